// POST /api/v1/contracts/compatibility/check: a proposed JSON Schema against one previous
// schema, a list of previous versions, or a contract family whose versions are the schema files
// of the contract artifacts (<family>_v<N>.schema.json). The answer is the pure checker's; the
// check leaves one evidence row and admits nothing.

import { createHash } from 'node:crypto';
import { canonicalJson, compileSchema, json, problem, writeReply } from '../../kernel/index.ts';
import type { JsonValue, Reply, RequestContext } from '../../kernel/index.ts';
import { checkCompatibility } from '../compatibility/index.ts';
import type { CompatibilityMode, CompatibilityResult, SchemaVersion } from '../compatibility/index.ts';
import { compatibilityChecks } from '../database.ts';
import type { GovernanceRuntime } from '../runtime.ts';

export { default as COMPATIBILITY_INPUT_SCHEMA } from '../../../contracts/governance/schemas/compatibility_check_input_v1.schema.json' with { type: 'json' };

/** The 200 body: the verdict and one message per breaking change. */
export const COMPATIBILITY_RESULT_SCHEMA = {
  type: 'object',
  required: ['is_compatible', 'mode', 'subject', 'compared_with', 'messages', 'evidence'],
  properties: {
    is_compatible: { type: 'boolean' },
    mode: { type: 'string' },
    subject: { type: 'string' },
    compared_with: { type: 'array', items: { type: 'string' } },
    messages: {
      type: 'array',
      items: {
        type: 'object',
        required: ['rule', 'direction', 'version', 'pointer', 'message'],
        properties: { rule: { type: 'string' }, direction: { enum: ['backward', 'forward'] }, version: { type: 'string' }, pointer: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
} as const;

interface CheckRequest {
  mode: CompatibilityMode;
  proposed: unknown;
  previous?: unknown;
  previous_versions?: unknown[];
  family?: string;
  proposed_version?: string;
}

/** The versions of a contract family, oldest first: its schema files by their _v<N> suffix. */
export function familyVersions(runtime: GovernanceRuntime, family: string): SchemaVersion[] {
  const pattern = new RegExp(`^${family}_v(\\d+)$`);
  return [...runtime.artifacts.schemas.values()]
    .map((schema) => ({ schema, n: Number(pattern.exec(schema.shortId)?.[1] ?? NaN) }))
    .filter(({ schema, n }) => Number.isInteger(n) && schema.ok)
    .sort((a, b) => a.n - b.n)
    .map(({ schema }) => ({ version: schema.shortId, schema: schema.document }));
}

/** Resolves a urn of the contract registry, for `$ref`s between governance schemas. */
export function registryResolver(runtime: GovernanceRuntime): (uri: string) => unknown {
  return (uri) => runtime.artifacts.schemas.get(uri)?.document;
}

/** Runs the check; a family with no version is answered as an error, not as compatible. */
export function runCompatibility(runtime: GovernanceRuntime, request: CheckRequest): { ok: true; result: CompatibilityResult; subject: string } | { ok: false; reply: Reply } {
  const invalid = schemaProblem(runtime, request.proposed, '/proposed');
  if (invalid) return { ok: false, reply: invalid };
  let previous: SchemaVersion[];
  let subject = 'inline';
  if (request.family !== undefined) {
    previous = familyVersions(runtime, request.family);
    subject = request.family;
    if (previous.length === 0) {
      const families = [...new Set([...runtime.artifacts.schemas.values()].map((s) => s.shortId.replace(/_v\d+$/, '')))].sort();
      return { ok: false, reply: problem(404, 'Unknown contract family', { detail: `No schema of family "${request.family}" under contracts/governance/schemas: known ${families.join(', ')}` }) };
    }
  } else {
    const list = request.previous_versions ?? [request.previous];
    for (const [i, schema] of list.entries()) {
      const bad = schemaProblem(runtime, schema, request.previous_versions ? `/previous_versions/${i}` : '/previous');
      if (bad) return { ok: false, reply: bad };
    }
    previous = list.map((schema, i) => ({ version: request.previous_versions ? `previous_versions[${i}]` : 'previous', schema }));
  }
  // One spelling rule for the check and the dry-run: either case is the same mode.
  const mode = request.mode.toUpperCase() as CompatibilityMode;
  const result = checkCompatibility({ mode, previous, proposed: request.proposed, resolve: registryResolver(runtime) });
  return { ok: true, result, subject };
}

/** A 422 when `schema` does not compile as draft 2020-12 (with the contract registry for its $refs). */
function schemaProblem(runtime: GovernanceRuntime, schema: unknown, pointer: string): Reply | undefined {
  try {
    compileSchema(schema, { registry: new Map([...runtime.artifacts.schemas.values()].filter((s) => s.ok).map((s) => [s.id, s.document])) });
    return undefined;
  } catch (error) {
    const detail = `${pointer} is not a usable JSON Schema: ${(error as Error).message}`;
    return problem(422, 'Request body is invalid', { detail, errors: [{ pointer, detail }] });
  }
}

export async function compatibilityCheckReply(runtime: GovernanceRuntime, context: RequestContext): Promise<Reply> {
  const request = context.body as CheckRequest;
  const outcome = runCompatibility(runtime, request);
  if (!outcome.ok) return outcome.reply;
  const { result, subject } = outcome;
  const proposedSha256 = createHash('sha256').update(canonicalJson(request.proposed as JsonValue)).digest('hex');
  return writeReply(context, {
    store: runtime.store,
    work: (_sqlite, tx) => tx.append(compatibilityChecks, {
    subject,
    verdict: result.is_compatible ? 'compatible' : 'incompatible',
    payload: { mode: result.mode, compared_with: result.compared_with, proposed_version: request.proposed_version ?? null, proposed_sha256: proposedSha256, rules: result.messages.map((m) => m.rule) },
  }),
    reply: (row) => json({
    ...result,
    subject,
    proposed_version: request.proposed_version ?? null,
    proposed_sha256: proposedSha256,
    evidence: { table: 'compatibility_checks', seq: row.seq, sha256: row.sha256 },
    authority: 'a compatibility result admits nothing; admission is a separate review',
  }),
  });
}
