// The six internal reads (seed 002), each computed from this service's evidence and the
// governance service's published truth. Governance truth a read merely reports is marked
// `unavailable` with the reason when it cannot be had; a read whose answer IS a comparison with
// governance truth (topology diff, drift summary) fails closed with 503 instead.

import { createChainWatch, json, JSON_TYPE, problem, statement } from '../kernel/index.ts';
import type { ChainVerification, ReadPool, Reply, Store } from '../kernel/index.ts';
import { databaseBytes, runtimePatches } from './database.ts';
import { declaredServices, driftSummary } from './drift.ts';
import type { GovernanceClient, UpstreamResult } from './governance-client.ts';
import { EXECUTABLE, SERVICE_NAME } from './identity.ts';
import type { ServiceMetrics } from './service-metrics.ts';
import type { ControlState, PersistentAgent } from './state.ts';

export const AUTHORITY_MODULE = 'agent-runtime-control';

export interface ReadDeps {
  store: () => Store;
  /** Read-only threads for the pages that grow with the evidence, so they never hold the probes. */
  reads: () => ReadPool;
  /** Folds of the evidence, kept between commits (state-cache.ts). */
  folds: { agents: () => Map<string, PersistentAgent>; control: () => ControlState; rows: () => { table: string; rows: number }[] };
  governance: GovernanceClient;
  metrics: ServiceMetrics;
  version: string;
  startedAt: number;
  now: () => number;
  listenerUrl: () => string;
  /** How many surfaces the route table exposes. */
  surfaces: number;
}

function marker(result: UpstreamResult & { ok: false }): Record<string, unknown> {
  return { state: 'unavailable', outcome: result.outcome, reason: result.reason };
}

/** A 200 whose JSON object lacks what governance publishes there: truth that cannot be had. */
function invalidBody(result: UpstreamResult & { ok: true }, what: string): UpstreamResult & { ok: false } {
  return { ok: false, outcome: 'invalid_body', status: result.status, reason: `Governance ${what}` };
}

function unavailable(what: string, result: UpstreamResult & { ok: false }): Reply {
  return problem(503, 'Governance truth unavailable', {
    type: 'governance-truth-unavailable',
    detail: `Cannot compute ${what} without the governance service's published truth: ${result.reason}`,
    extensions: { projection_state: 'fail_closed', reason: `governance_${result.outcome}` },
  });
}

function agentList(deps: ReadDeps): PersistentAgent[] {
  return [...deps.folds.agents().values()].sort((a, b) => (a.agent_id < b.agent_id ? -1 : 1));
}

export async function inventoryReply(deps: ReadDeps): Promise<Reply> {
  const store = deps.store();
  const answer = await deps.governance.truth('/api/v1/platform/services');
  const list = answer.ok ? declaredServices(answer.body) : undefined;
  const services: UpstreamResult = answer.ok && list === undefined ? invalidBody(answer, '/api/v1/platform/services carries no services list') : answer;
  const declared = list?.find((s) => s.service === SERVICE_NAME) ?? null;
  return json({
    service: {
      name: SERVICE_NAME,
      executable: EXECUTABLE,
      version: deps.version,
      node: process.version,
      pid: process.pid,
      started_at: new Date(deps.startedAt).toISOString(),
      uptime_seconds: Math.floor((deps.now() - deps.startedAt) / 1000),
      listener: deps.listenerUrl(),
    },
    database: { file: store.path, size_bytes: databaseBytes(store), tables: deps.folds.rows() },
    agents: agentList(deps).map((a) => ({ agent_id: a.agent_id, runtime: a.runtime, desired_version: a.desired_version, observed_version: a.observed_version })),
    governance: services.ok ? { state: 'available', declaration: declared ?? 'absent: governance-manifest.json has no entry for this service' } : marker(services),
  });
}

export async function topologyDiffReply(deps: ReadDeps): Promise<Reply> {
  const services = await deps.governance.truth('/api/v1/platform/services');
  if (!services.ok) return unavailable('the topology diff', services);
  const declared = declaredServices(services.body);
  if (declared === undefined) return unavailable('the topology diff', invalidBody(services, '/api/v1/platform/services carries no services list'));
  const self = declared.find((s) => s.service === SERVICE_NAME)?.executables?.find((e) => e.name === EXECUTABLE)?.listeners?.find((l) => l.name === 'main');
  const runningPort = Number(new URL(deps.listenerUrl()).port);
  const agents = agentList(deps).map((a) => ({
    agent_id: a.agent_id,
    desired_version: a.desired_version,
    observed_version: a.observed_version,
    state: a.observed_version === null ? 'unobserved' : a.observed_version === a.desired_version ? 'in_sync' : 'drifted',
  }));
  const count = (state: string) => agents.filter((a) => a.state === state).length;
  return json({
    declared_services: declared.map((s) => ({ service: s.service, executables: (s.executables ?? []).map((e) => ({ name: e.name, ports: (e.listeners ?? []).map((l) => l.port) })) })),
    self: { declared_port: self?.port ?? null, running_port: runningPort, state: self === undefined ? 'not_declared' : self.port === runningPort ? 'as_declared' : 'overridden' },
    agents,
    summary: { agents: agents.length, in_sync: count('in_sync'), drifted: count('drifted'), unobserved: count('unobserved') },
  });
}

export async function driftSummaryReply(deps: ReadDeps): Promise<Reply> {
  const outcome = await driftSummary({ governance: deps.governance, surfaces: deps.surfaces, listenerUrl: deps.listenerUrl(), version: deps.version });
  if (!outcome.ok) {
    deps.metrics.driftChecks.inc({ outcome: 'unavailable' });
    return problem(503, 'Governance truth unavailable', {
      type: 'governance-truth-unavailable',
      detail: `Cannot compute the drift summary without the governance manifest: ${outcome.reason}`,
      extensions: { projection_state: 'fail_closed', reason: `governance_${outcome.outcome}` },
    });
  }
  deps.metrics.driftChecks.inc({ outcome: 'computed' });
  deps.metrics.setDriftFindings(outcome.summary.findings.length);
  return json(outcome.summary);
}

/** Patches one rollouts-audit page shows by default, and at most. */
export const AUDIT_DEFAULT_LIMIT = 100;
export const AUDIT_MAX_LIMIT = 500;

const watches = new WeakMap<Store, ReturnType<typeof createChainWatch>>();

/** The patches chain, verified through the rows appended since the previous audit (issue 24). */
function verifyPatches(store: Store): ChainVerification {
  let watch = watches.get(store);
  if (watch === undefined) {
    watch = createChainWatch(store.sqlite, { tables: [runtimePatches.name] });
    watches.set(store, watch);
  }
  return watch.verifyAll()[0]!;
}

/** `after_seq` and `limit` of the audit, or the problem that names what is allowed. */
function auditPage(query: URLSearchParams): { afterSeq: number; limit: number } | Reply {
  const extra = [...query.keys()].find((k) => k !== 'after_seq' && k !== 'limit');
  if (extra !== undefined) return problem(400, 'Unknown query parameter', { detail: `Only "after_seq" and "limit" are accepted, not "${extra}"` });
  const whole = (name: string, fallback: number, min: number, max: number) => {
    const raw = query.get(name);
    if (raw === null) return fallback;
    return /^\d{1,16}$/.test(raw) && Number(raw) >= min && Number(raw) <= max ? Number(raw) : undefined;
  };
  const afterSeq = whole('after_seq', 0, 0, Number.MAX_SAFE_INTEGER);
  if (afterSeq === undefined) return problem(400, 'Invalid after_seq', { detail: 'after_seq must be a whole number: the seq of the last patch of the previous page (0 for the first)' });
  const limit = whole('limit', AUDIT_DEFAULT_LIMIT, 1, AUDIT_MAX_LIMIT);
  if (limit === undefined) return problem(400, 'Invalid limit', { detail: `limit must be a whole number from 1 to ${AUDIT_MAX_LIMIT}` });
  return { afterSeq, limit };
}

/**
 * One audit page, each patch built as JSON text by SQLite on a read thread (the event loop only
 * joins the texts): seq, recorded_at, agent_id, action, runtime, version, rolled_back_from (a
 * rollback's), actor, reason, sha256. One row more than the page says whether a next one exists.
 */
export const AUDIT_PAGE_SQL = `SELECT seq, CASE WHEN coalesce(json_extract(payload, '$.rolled_back_from'), '') = ''
    THEN json_object('seq', seq, 'recorded_at', recorded_at, 'agent_id', agent_id, 'action', action, 'runtime', json_extract(payload, '$.runtime'), 'version', json_extract(payload, '$.version'), 'actor', json_extract(payload, '$.actor'), 'reason', json_extract(payload, '$.reason'), 'sha256', sha256)
    ELSE json_object('seq', seq, 'recorded_at', recorded_at, 'agent_id', agent_id, 'action', action, 'runtime', json_extract(payload, '$.runtime'), 'version', json_extract(payload, '$.version'), 'rolled_back_from', json_extract(payload, '$.rolled_back_from'), 'actor', json_extract(payload, '$.actor'), 'reason', json_extract(payload, '$.reason'), 'sha256', sha256)
  END AS rollout
  FROM ${runtimePatches.name} WHERE seq > ? ORDER BY seq LIMIT ?`;

export async function rolloutsAuditReply(deps: ReadDeps, query: URLSearchParams = new URLSearchParams()): Promise<Reply> {
  const page = auditPage(query);
  if (!('afterSeq' in page)) return page;
  const store = deps.store();
  const [rows, truth] = await Promise.all([deps.reads().query(AUDIT_PAGE_SQL, [page.afterSeq, page.limit + 1]), deps.governance.truth('/api/v1/platform/version-truth')]);
  const more = rows.rows.length > page.limit;
  const shown = more ? rows.rows.slice(0, page.limit) : rows.rows;
  const chain = verifyPatches(store);
  const rest = JSON.stringify({
    // The chain is gap-free from seq 1: its last seq is the number of patches.
    total: Number(statement(store.sqlite, `SELECT coalesce(max(seq), 0) AS n FROM ${runtimePatches.name}`).get()?.['n'] ?? 0),
    page: { after_seq: page.afterSeq, limit: page.limit, next_after_seq: more ? Number(shown.at(-1)!['seq']) : null },
    chain: chain.ok ? { verified: true, rows: chain.rows, head: chain.head } : { verified: false, seq: chain.seq, reason: chain.reason },
    governance_version_truth: truth.ok ? truth.body : marker(truth),
  });
  return { status: 200, raw: Buffer.from(`{"rollouts":[${shown.map((row) => String(row['rollout'])).join(',')}],${rest.slice(1)}`, 'utf8'), contentType: JSON_TYPE };
}

export async function controlStatusReply(deps: ReadDeps): Promise<Reply> {
  const state = deps.folds.control();
  const module = await deps.governance.truth(`/api/v1/agent/action-context/${AUTHORITY_MODULE}`);
  return json({
    mode: state.mode,
    commands: state.commands,
    last_command: state.last,
    execution_dispatch: state.mode === 'paused' ? 'refused: the control agent is paused' : 'admitted with a projected authority context',
    live_upstream: deps.governance.configured ? 'configured' : 'fail_closed: GOVERNANCE_URL or AGENT_CONTEXT_SERVICE_AUTH_TOKEN is not set',
    authority_module: module.ok ? module.body : marker(module),
  });
}

export async function persistentAgentsReply(deps: ReadDeps): Promise<Reply> {
  const agents = agentList(deps);
  const module = await deps.governance.truth(`/api/v1/agent/action-context/${AUTHORITY_MODULE}`);
  const listed = module.ok ? (module.body as { admitted_action_intents?: unknown }).admitted_action_intents : undefined;
  const intents = Array.isArray(listed) && listed.every((i) => typeof i === 'string') ? listed : undefined;
  const refused = module.ok ? invalidBody(module, `/api/v1/agent/action-context/${AUTHORITY_MODULE} carries no admitted_action_intents list`) : module;
  return json({
    agents,
    count: agents.length,
    governance: intents === undefined ? marker(refused) : { state: 'available', module: AUTHORITY_MODULE, admitted_action_intents: intents },
  });
}
