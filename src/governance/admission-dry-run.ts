// POST /api/v1/tools/admission/dry-run: seed 001's admission review order, step by step, on a
// tool's payload. Each mandatory item of the admission-governance artifact gets a verdict and the
// step it came from; the review is green only when every item passes and no contradiction
// between the payload (the tool's manifest), the documentation and the live surfaces remains.
// A dry run admits nothing. Step 5 runs only a read-only verifier the stack contract declares for
// the tool's own service (the contract's string, never the payload's), in a sandbox that cannot
// write, against the listeners that service bound; the live target is probed (loopback only,
// time-limited) and the readiness targets are read back in process (verify-step.ts).

import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, normalize, sep } from 'node:path';
import { canonicalJson, json, writeReply } from '../kernel/index.ts';
import type { JsonValue, Reply, RequestContext, Transaction } from '../kernel/index.ts';
import { runCompatibility } from './compatibility-route.ts';
import type { CompatibilityMode } from './compatibility/index.ts';
import { toolRegistry } from './crossrefs.ts';
import type { DriftItem } from './crossrefs.ts';
import { admissionReviews } from './database.ts';
import { computeDrift } from './drift.ts';
import { appendOutbox } from './outbox-append.ts';
import { buildMatrix } from './matrix.ts';
import { artifactMember } from './read-route.ts';
import { readBack } from './readback.ts';
import { resolvesToRoute } from './route-ref.ts';
import { declaredCommand, probeLiveTarget, runVerifier } from './verify-step.ts';
import type { GovernanceRuntime } from './runtime.ts';
import DRY_RUN_SCHEMA from '../../contracts/governance/schemas/admission_dry_run_input_v1.schema.json' with { type: 'json' };

export const DRY_RUN_INPUT_SCHEMA = DRY_RUN_SCHEMA;

const VERDICT = { enum: ['pass', 'fail'] };
const REASONS = { type: 'array', items: { type: 'string' } };

/** The 200 body: a verdict per mandatory item and per step; admitted is always false. */
export const DRY_RUN_RESULT_SCHEMA = {
  type: 'object',
  required: ['dry_run', 'admitted', 'tool_name', 'verdict', 'steps', 'checklist', 'blocking_drift', 'evidence', 'authority'],
  properties: {
    dry_run: { const: true },
    admitted: { const: false },
    tool_name: { type: 'string' },
    verdict: { enum: ['green', 'red'] },
    steps: { type: 'array', minItems: 6, maxItems: 6, items: { type: 'object', required: ['step', 'name', 'verdict', 'reasons'], properties: { step: { type: 'integer' }, name: { type: 'string' }, verdict: VERDICT, reasons: REASONS } } },
    checklist: { type: 'array', items: { type: 'object', required: ['item', 'step', 'verdict', 'reasons'], properties: { item: { type: 'string' }, step: { type: 'integer', minimum: 1, maximum: 6 }, verdict: VERDICT, reasons: REASONS } } },
    blocking_drift: { type: 'array', items: { type: 'object', required: ['kind', 'subject', 'detail'] } },
    evidence: { type: 'object', required: ['table', 'seq', 'sha256'] },
  },
} as const;

export interface DryRunPayload {
  identity: { tool_name: string; owner: string };
  classification: { capability_class: string; runtime_kind: string; release_channel: string; lifecycle_stage: string };
  contract_families: { family: string; usage: 'producer' | 'consumer' }[];
  compatibility: { mode: string; notes?: string; family?: string; proposed_schema?: unknown };
  lifecycle: { stage: string; deprecation_policy: string };
  verify: { entrypoint: string; live_target: string };
  readiness_targets: string[];
  boundaries: { exclusions: string[]; fail_closed_conditions: string[] };
  docs_evidence: Record<string, string>;
}

type Verdict = 'pass' | 'fail';

interface Finding {
  verdict: Verdict;
  reasons: string[];
  /** Contradictions between the payload, the documentation and live surfaces: blocking drift. */
  contradictions: DriftItem[];
}

const STEP_NAMES = ['validate', 'compatibility', 'matrix', 'docs', 'verify', 'drift'] as const;

function finding(reasons: string[], contradictions: DriftItem[] = []): Finding {
  return { verdict: reasons.length === 0 && contradictions.length === 0 ? 'pass' : 'fail', reasons: [...reasons, ...contradictions.map((c) => c.detail)], contradictions };
}

function contradiction(subject: string, detail: string): DriftItem {
  return { kind: 'admission_contradiction', subject, detail };
}

/** Step 1 and the identity item: the payload passed its schema; its tool agrees with the registry. */
function identityFinding(runtime: GovernanceRuntime, payload: DryRunPayload): Finding {
  const { tool_name: tool } = payload.identity;
  const reasons: string[] = [];
  const schemaId = artifactMember(runtime, 'contracts_governance/admission-governance')?.['dry_run_input_schema'];
  if (schemaId !== DRY_RUN_SCHEMA.$id) reasons.push(`the admission-governance artifact names input schema "${String(schemaId)}", but the route validates against "${DRY_RUN_SCHEMA.$id}"`);
  const registered = (toolRegistry(runtime) ?? []).find((t) => t.tool_name === tool);
  const contradictions = registered && registered.capability_class !== payload.classification.capability_class
    ? [contradiction(tool, `capability class "${payload.classification.capability_class}" contradicts the tool-action registry, which registers "${tool}" as "${registered.capability_class}"`)]
    : [];
  return finding(reasons, contradictions);
}

/** Step 2: the compatibility posture, checked with the compatibility checker when a schema is proposed; the lifecycle agrees with itself. */
function compatibilityFinding(runtime: GovernanceRuntime, payload: DryRunPayload): Finding {
  const reasons: string[] = [];
  const contradictions: DriftItem[] = [];
  const { mode, family, proposed_schema: proposed } = payload.compatibility;
  if (family !== undefined) {
    const outcome = runCompatibility(runtime, { mode: mode.toUpperCase() as CompatibilityMode, family, proposed });
    if (!outcome.ok) reasons.push(`compatibility check of family "${family}" could not run: ${String((outcome.reply.body as { detail?: string }).detail)}`);
    else for (const message of outcome.result.messages) reasons.push(`${mode} against ${message.version}: ${message.message}`);
  }
  if (payload.lifecycle.stage !== payload.classification.lifecycle_stage) {
    contradictions.push(contradiction(payload.identity.tool_name, `lifecycle stage "${payload.lifecycle.stage}" contradicts the classification's lifecycle stage "${payload.classification.lifecycle_stage}"`));
  }
  if (payload.lifecycle.deprecation_policy.trim() === '') reasons.push('the lifecycle posture names no deprecation policy');
  return finding(reasons, contradictions);
}

/** Step 3: each declared family usage against the live producer/consumer matrix of governance-manifest.json. */
function matrixFinding(runtime: GovernanceRuntime, payload: DryRunPayload): Finding {
  if (!runtime.manifest.ok) return finding([`the producer/consumer matrix is unavailable: ${runtime.manifest.detail}`]);
  const manifest = runtime.manifest.document;
  const matrix = buildMatrix(manifest);
  const owner = payload.identity.owner;
  const service = ownerService(runtime, owner);
  const reasons: string[] = [];
  const contradictions: DriftItem[] = [];
  for (const { family, usage } of payload.contract_families) {
    const row = matrix.families.find((f) => f.family === family);
    if (!row) {
      reasons.push(`family "${family}" is not in the producer/consumer matrix (/api/v1/contracts/matrix)`);
      continue;
    }
    if (usage === 'producer') {
      if (service === undefined) reasons.push(`owner "${owner}" is no service of governance-manifest.json, so it cannot produce family "${family}"`);
      else if (!row.producers.includes(service)) contradictions.push(contradiction(service, `declares producer of family "${family}", but the matrix lists producers ${row.producers.join(', ') || 'none'}`));
    } else {
      if (row.producers.length === 0) reasons.push(`family "${family}" has no producer to consume from`);
      if (service !== undefined && !row.consumers.some((c) => c.service === service)) {
        contradictions.push(contradiction(service, `declares consumer of family "${family}", but governance-manifest.json declares no consumed surface of it`));
      }
    }
  }
  return finding(reasons, contradictions);
}

const DOC_PATH = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_.-]+)*\.md$/;

/** Step 4: the documentation entrypoint exists under the install root and carries the docs-standard sections. */
function docsFinding(runtime: GovernanceRuntime, payload: DryRunPayload): Finding {
  const standard = artifactMember(runtime, 'contracts_governance/docs-standard');
  const fields = (standard?.['docs_evidence_fields'] ?? []) as string[];
  const sections = (standard?.['mandatory_sections'] ?? []) as string[];
  const reasons: string[] = [];
  for (const field of fields) if (!(payload.docs_evidence[field] ?? '').trim()) reasons.push(`docs_evidence names no "${field}"`);
  const entrypoint = payload.docs_evidence['entrypoint'] ?? '';
  const root = runtime.config.paths.root;
  const file = normalize(join(root, entrypoint));
  if (!DOC_PATH.test(entrypoint) || entrypoint.split('/').includes('..') || !file.startsWith(root + sep)) {
    reasons.push(`documentation entrypoint "${entrypoint}" is not a Markdown path under the install root`);
  } else if (!existsSync(file)) {
    reasons.push(`documentation entrypoint "${entrypoint}" does not exist under the install root`);
  } else {
    const headings = readFileSync(file, 'utf8').split('\n').filter((line) => /^#{1,3} /.test(line)).map((line) => line.replace(/^#+ /, '').trim().toLowerCase());
    for (const section of sections) if (!headings.some((h) => h.startsWith(section.toLowerCase()))) reasons.push(`"${entrypoint}" has no "${section}" section (docs-standard)`);
  }
  return finding(reasons);
}

/** The service of governance-manifest.json the tool's owner names, if any. */
function ownerService(runtime: GovernanceRuntime, owner: string): string | undefined {
  if (!runtime.manifest.ok) return undefined;
  return runtime.manifest.document.services.find((s) => s.service === owner || s.identity?.owner === owner)?.service;
}

/**
 * Step 5: the verify entrypoint names a verify command the stack contract declares for the tool's
 * own service, and that command, a read-only verifier, runs green against the listeners the
 * service bound; readiness targets answer 200 now; the live target is served and answers 2xx.
 * A command of another service is a contradiction (blocking drift, step 6) and never runs.
 */
async function verifyFinding(runtime: GovernanceRuntime, payload: DryRunPayload): Promise<Finding> {
  const reasons: string[] = [];
  const contradictions: DriftItem[] = [];
  const entrypoint = payload.verify.entrypoint.trim();
  const tool = payload.identity.tool_name;
  const service = ownerService(runtime, payload.identity.owner);
  if (!runtime.stackContract.ok) reasons.push(`the stack contract is unavailable: ${runtime.stackContract.detail}`);
  else {
    const declared = declaredCommand(runtime.stackContract.document, entrypoint);
    if (declared === undefined) {
      contradictions.push(contradiction(tool, `verify entrypoint "${entrypoint}" is not a verify command of configs/stack-contract.json`));
    } else if (service === undefined) {
      reasons.push(`owner "${payload.identity.owner}" is no service of governance-manifest.json, so no verifier of its own can run`);
    } else if (declared.service !== service) {
      contradictions.push(contradiction(tool, `verify entrypoint "${entrypoint}" is a verify command of service "${declared.service}", not of the tool's own service "${service}"`));
    } else {
      const ran = await runVerifier(runtime, service, declared.command);
      if (!ran.ok) reasons.push(ran.reason);
    }
  }
  for (const target of payload.readiness_targets) {
    const answer = await readBack(runtime, target);
    if (!answer.ok) reasons.push(`readiness target ${answer.reason}`);
    else if (answer.status !== 200) contradictions.push(contradiction(target, `readiness target answers ${answer.status} now`));
  }
  const live = payload.verify.live_target;
  let livePath = live;
  if (/^https?:\/\//.test(live)) {
    const url = URL.parse(live);
    livePath = url?.pathname ?? '';
    const probed = await probeLiveTarget(runtime, live);
    if (!probed.ok) reasons.push(probed.reason);
  } else if (live.startsWith('/')) {
    const answer = await readBack(runtime, live);
    if (!answer.ok) reasons.push(`live target ${answer.reason}`);
    else if (answer.status < 200 || answer.status > 299) reasons.push(`live target "${live}" answers ${answer.status}, not 2xx`);
  }
  const served = runtime.routes.filter((r) => r.method === 'GET').map((r) => ({ path: r.path }));
  if (!livePath.startsWith('/') || !resolvesToRoute(livePath, served)) reasons.push(`live target "${live}" is not a GET route this service serves`);
  return finding(reasons, contradictions);
}

/** The mandatory items of the artifact, each with the step that decides it. */
const ITEM_STEPS: Record<string, (typeof STEP_NAMES)[number]> = {
  'tool identity and capability class': 'validate',
  'documentation entrypoint plus tool profile, integrations, capabilities, API and OSS inventory': 'docs',
  'explicit producer/consumer declarations': 'matrix',
  'compatibility mode and lifecycle posture': 'compatibility',
  'verify entrypoint, readiness refs and live verification target': 'verify',
  'a checklist verdict for every mandatory item': 'drift',
};

export interface DryRunResult {
  verdict: 'green' | 'red';
  steps: { step: number; name: string; verdict: Verdict; reasons: string[] }[];
  checklist: { item: string; step: number; verdict: Verdict; reasons: string[] }[];
  blocking_drift: DriftItem[];
}

/** Runs the review order on a payload that passed the input schema. */
export async function reviewAdmission(runtime: GovernanceRuntime, payload: DryRunPayload): Promise<DryRunResult> {
  const found: Record<string, Finding> = {
    validate: identityFinding(runtime, payload),
    compatibility: compatibilityFinding(runtime, payload),
    matrix: matrixFinding(runtime, payload),
    docs: docsFinding(runtime, payload),
    verify: await verifyFinding(runtime, payload),
  };
  const blocking = [...computeDrift(runtime), ...Object.values(found).flatMap((f) => f.contradictions)];
  const mandatory = (artifactMember(runtime, 'contracts_governance/admission-governance')?.['mandatory_for_green'] ?? []) as string[];
  const unknown = mandatory.filter((item) => !(item in ITEM_STEPS));
  found['drift'] = finding(
    [
      ...unknown.map((item) => `no check decides mandatory item "${item}"`),
      ...(mandatory.length === 0 ? ['the admission-governance artifact lists no mandatory item'] : []),
    ],
    blocking.filter((d) => d.kind !== 'admission_contradiction'),
  );
  const stepOf = (name: string) => STEP_NAMES.indexOf(name as (typeof STEP_NAMES)[number]) + 1;
  const checklist = mandatory.map((item) => {
    const step = ITEM_STEPS[item];
    const result = step ? found[step]! : finding([`no check decides mandatory item "${item}"`]);
    return { item, step: step ? stepOf(step) : 0, verdict: result.verdict, reasons: result.reasons };
  });
  const green = checklist.length > 0 && checklist.every((c) => c.verdict === 'pass') && blocking.length === 0;
  return {
    verdict: green ? 'green' : 'red',
    steps: STEP_NAMES.map((name, i) => ({ step: i + 1, name, verdict: found[name]!.verdict, reasons: found[name]!.reasons })),
    checklist,
    blocking_drift: blocking,
  };
}

export async function admissionDryRunReply(runtime: GovernanceRuntime, context: RequestContext): Promise<Reply> {
  const payload = context.body as DryRunPayload;
  const result = await reviewAdmission(runtime, payload);
  const payloadSha256 = createHash('sha256').update(canonicalJson(payload as unknown as JsonValue)).digest('hex');
  const checklist = result.checklist.map((c) => ({ item: c.item, verdict: c.verdict }));
  const at = new Date(runtime.now()).toISOString();
  const work = (_sqlite: unknown, tx: Transaction) => {
    const review = tx.append(admissionReviews, { tool_name: payload.identity.tool_name, verdict: result.verdict, payload: { payload_sha256: payloadSha256, checklist, blocking_drift: result.blocking_drift.length } });
    appendOutbox(tx, { family: 'admission', event: 'admission.dry_run_recorded', occurred_at: at, payload: { tool_name: payload.identity.tool_name, verdict: result.verdict, checklist }, source: 'governance', correlation_id: null });
    return review;
  };
  return writeReply(context, { store: runtime.store, work, reply: (row) => json({
    dry_run: true,
    admitted: false,
    tool_name: payload.identity.tool_name,
    ...result,
    payload_sha256: payloadSha256,
    review_order: '/api/v1/contracts/admission-governance',
    evidence: { table: 'admission_reviews', seq: row.seq, sha256: row.sha256 },
    authority: 'a dry run admits nothing: no tool is registered, enabled or granted any authority',
  }) });
}
