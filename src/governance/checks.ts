// The named checks that readiness and production-readiness routes run. Artifacts name them
// (`readiness_checks`, `criteria[].check`); each looks at something real (the database, the
// files read at start, the configuration) when the route is read.

import { accessSync, constants } from 'node:fs';
import { isLoopbackHost } from '../kernel/index.ts';
import type { HealthCheck, HealthStatus } from '../kernel/index.ts';
import { checkDatabase, checkEvidenceChains } from './database.ts';
import { computeDrift } from './drift.ts';
import { missingDocs } from './docs-check.ts';
import { standardHealthReport } from './event-modeling.ts';
import { readSemanticHarness } from './semantic-harness.ts';
import { SERVICE_NAME } from './identity.ts';
import { askCrmOwner } from './crm-assertion.ts';
import type { GovernanceRuntime } from './runtime.ts';

export const CHECK_NAMES = [
  'database', 'evidence_chains', 'data_dir_writable', 'manifest', 'stack_contract', 'artifacts_all_valid', 'drift_empty',
  'worker_loopback', 'operator_token', 'crm_assertion', 'docs_present', 'semantic_contracts', 'event_catalog_standard', 'signing_key',
] as const;

export type CheckName = (typeof CHECK_NAMES)[number];

type Check = (runtime: GovernanceRuntime) => HealthCheck | Promise<HealthCheck>;

const pass = (output?: string): HealthCheck => ({ status: 'pass', ...(output !== undefined && { output }) });
const fail = (output: string): HealthCheck => ({ status: 'fail', output });
const warn = (output: string): HealthCheck => ({ status: 'warn', output });

const CHECKS: Record<CheckName, Check> = {
  database(runtime) {
    const result = checkDatabase(runtime.store);
    return result.ok ? { status: 'pass', observedValue: result.userVersion } : fail(result.reasons.join('; '));
  },
  evidence_chains(runtime) {
    const result = checkEvidenceChains(runtime.store);
    return result.ok ? { status: 'pass', observedValue: result.tables.reduce((n, t) => n + t.rows, 0) } : fail(result.reasons.join('; '));
  },
  data_dir_writable(runtime) {
    try {
      accessSync(runtime.config.dataDir, constants.W_OK);
      return pass();
    } catch (error) {
      return fail(`data directory "${runtime.config.dataDir}" is not writable: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
    }
  },
  manifest(runtime) {
    const manifest = runtime.manifest;
    if (!manifest.ok) return fail(manifest.detail);
    return manifest.document.services.some((s) => s.service === SERVICE_NAME) ? pass() : fail(`"${manifest.path}" has no "${SERVICE_NAME}" entry`);
  },
  stack_contract(runtime) {
    return runtime.stackContract.ok ? pass() : fail(runtime.stackContract.detail);
  },
  artifacts_all_valid(runtime) {
    const bad = [...runtime.artifacts.artifacts.values()].filter((a) => a.state !== 'valid');
    const badSchemas = [...runtime.artifacts.schemas.values()].filter((s) => !s.ok);
    if (runtime.artifacts.artifacts.size === 0) return fail(`no contract artifact under "${runtime.artifacts.dir}"`);
    if (bad.length + badSchemas.length === 0) return { status: 'pass', observedValue: runtime.artifacts.artifacts.size };
    return fail(`failing closed: ${[...bad.map((a) => a.file), ...badSchemas.map((s) => s.file)].join(', ')}`);
  },
  drift_empty(runtime) {
    const drift = computeDrift(runtime);
    return drift.length === 0 ? pass() : fail(`${drift.length} drift ${drift.length === 1 ? 'entry' : 'entries'}; first: ${drift[0]!.kind}: ${drift[0]!.detail}`);
  },
  worker_loopback(runtime) {
    const worker = runtime.config.listeners.worker;
    if (!worker) return pass('the worker listener does not run in this process');
    return isLoopbackHost(worker.host) ? pass() : fail(`worker listener host "${worker.host}" is not loopback`);
  },
  operator_token(runtime) {
    if (!runtime.config.listeners.worker) return pass('the worker listener does not run in this process');
    return runtime.config.operatorTokens.length > 0 ? pass() : fail('GOVERNANCE_OPERATOR_TOKEN is not set: the worker refuses every request');
  },
  async crm_assertion(runtime) {
    const { upstreamUrl, knownCompanies } = runtime.config.crm;
    // No owner, no truth: an assertion route that can only deny is not a passing check.
    if (upstreamUrl === undefined) return fail('no CRM upstream configured (GOVERNANCE_CRM_UPSTREAM_URL): every assertion fails closed (awaiting_transport_owner)');
    const owner = await askCrmOwner(runtime, upstreamUrl);
    if (!owner.ok) return fail(`${owner.detail}: every assertion fails closed (awaiting_transport_owner)`);
    if (knownCompanies.length === 0) return warn('GOVERNANCE_CRM_KNOWN_COMPANIES is empty: every company is denied before the upstream');
    return { status: 'pass', observedValue: knownCompanies.length };
  },
  docs_present(runtime) {
    const missing = missingDocs(runtime);
    return missing.length === 0 ? pass() : fail(`missing under "${runtime.config.paths.root}": ${missing.join(', ')}`);
  },
  semantic_contracts(runtime) {
    const harness = readSemanticHarness(runtime);
    return harness.ok ? pass() : warn(`${harness.detail}: the harness route fails closed`);
  },
  signing_key(runtime) {
    const key = runtime.signingKey;
    return key.ok ? { status: 'pass', observedValue: key.kid } : fail(`mail-admission key store missing (${key.reason}): signing fails closed`);
  },
  event_catalog_standard(runtime) {
    const report = standardHealthReport(runtime);
    if (report === undefined) return fail('the event-modeling artifact is not valid');
    return report.violations.length === 0 ? { status: 'pass', observedValue: report.checked } : fail(report.violations.map((v) => `${v.name}: ${v.problem}`).join('; '));
  },
};

/** Runs `names` (concurrently: a check that asks an owner waits at most its time limit) in the health+json `checks` shape. */
export async function runChecks(runtime: GovernanceRuntime, names: readonly string[]): Promise<Record<string, HealthCheck[]>> {
  const results = await Promise.all(names.map((name) => {
    const check = CHECKS[name as CheckName];
    return check ? check(runtime) : fail(`unknown check "${name}"`);
  }));
  return Object.fromEntries(names.map((name, i) => [name, [results[i]!]]));
}

/** The worst status among `checks`. */
export function worstOf(checks: Record<string, HealthCheck[]>): HealthStatus {
  const statuses = Object.values(checks).flat().map((c) => c.status);
  return statuses.includes('fail') ? 'fail' : statuses.includes('warn') ? 'warn' : 'pass';
}
