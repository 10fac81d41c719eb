// agent-context as a kernel service: opens the evidence database, wires the governance client,
// the metrics, the reads and the guarded writes to the route table, counts every answer (request-metrics.ts),
// records its start, and closes the database after the last request drained.

import { buildOpenApi, createLogger, createReadPool, createService, json, problem, versionTruth } from '../kernel/index.ts';
import type { Handler, Logger, ReadPool, Reply, RequestContext, Service, Store } from '../kernel/index.ts';
import { internalAuthenticator } from './authenticators.ts';
import type { AgentContextConfig } from './config.ts';
import { openAgentContextDatabase, serviceStarts } from './database.ts';
import { createGovernanceClient } from './governance-client.ts';
import type { GovernanceClient } from './governance-client.ts';
import { guardedWrite } from './guarded-write.ts';
import type { GuardedWrite } from './guarded-write.ts';
import { SERVICE_NAME } from './identity.ts';
import { manifest } from './manifest.ts';
import { METRICS_CONTENT_TYPE } from './metrics.ts';
import { controlStatusReply, driftSummaryReply, inventoryReply, persistentAgentsReply, rolloutsAuditReply, topologyDiffReply } from './reads.ts';
import type { ReadDeps } from './reads.ts';
import { agentContextRoutes } from './routes.ts';
import type { WriteName } from './routes.ts';
import { healthReply, manifestEntry, readyReply, versionReply } from './self-description.ts';
import { countAnswers } from './request-metrics.ts';
import { createServiceMetrics } from './service-metrics.ts';
import type { ServiceMetrics } from './service-metrics.ts';
import { controlState, createAgentsFold } from './state.ts';
import { memoByCommits } from './state-cache.ts';
import { countRows, databaseBytes } from './database.ts';
import { CONTROL_PAUSE, CONTROL_RESUME, PATCH_APPLY, PATCH_ROLLBACK, PROPOSAL_REVIEW, PROPOSAL_WRITE, RUN_DISPATCH, RUN_RESULT } from './writes.ts';

export interface AgentContextServiceOptions {
  now?: () => number;
  log?: Logger;
  env?: NodeJS.ProcessEnv;
  version?: string;
  /** For tests: wraps the read pool the rollouts audit is read on (to hold reads in flight). */
  wrapReads?: (pool: ReadPool) => ReadPool;
}

export interface AgentContextService extends Service {
  readonly store: Store;
  readonly metrics: ServiceMetrics;
  /** Resolves once the start row is durable. */
  readonly started: Promise<void>;
}

const WRITES: Record<WriteName, [string, GuardedWrite]> = {
  patchApply: ['/api/v1/agent-runtime/patch/apply', PATCH_APPLY],
  patchRollback: ['/api/v1/agent-runtime/patch/rollback', PATCH_ROLLBACK],
  runDispatch: ['/api/v1/execution/runs', RUN_DISPATCH],
  runResult: ['/api/v1/execution/runs/:run_id/result', RUN_RESULT],
  controlPause: ['/api/v1/control-agent/pause', CONTROL_PAUSE],
  controlResume: ['/api/v1/control-agent/resume', CONTROL_RESUME],
  proposalWrite: ['/api/v1/learning-proposals', PROPOSAL_WRITE],
  proposalReview: ['/api/v1/learning-proposals/:proposal_id/review', PROPOSAL_REVIEW],
};

/**
 * Creates agent-context-api from its configuration (see config.ts).
 *
 * @example
 * const service = createAgentContextService(loadAgentContextConfig(process.env));
 * await service.listen();
 */
export function createAgentContextService(config: AgentContextConfig, options: AgentContextServiceOptions = {}): AgentContextService {
  const now = options.now ?? Date.now;
  const version = options.version ?? versionTruth();
  const log = options.log ?? createLogger({ name: SERVICE_NAME, service: SERVICE_NAME });
  log.addSecrets([...config.tokens, ...(config.serviceAuthToken ? [config.serviceAuthToken] : [])]);
  const store = openAgentContextDatabase(config.databasePath, config.dataDir, { now: () => new Date(now()) });
  const startedAt = now();
  let governance: GovernanceClient | undefined;
  const agentsFold = createAgentsFold();
  const folds = {
    agents: memoByCommits(() => store, (s) => agentsFold.advance(s.sqlite)),
    control: memoByCommits(() => store, (s) => controlState(s.sqlite)),
    rows: memoByCommits(() => store, countRows),
    bytes: memoByCommits(() => store, databaseBytes),
  };
  const metrics = createServiceMetrics({ version, rows: folds.rows, bytes: folds.bytes, control: folds.control, governanceLastSuccess: () => governance?.lastSuccess(), now, startedAt });
  governance = createGovernanceClient({ url: config.governanceUrl, token: config.serviceAuthToken, timeoutMs: config.upstreamTimeoutMs, requests: metrics.governanceRequests, now });
  const client = governance;
  let service: Service | undefined;
  const openapi = buildOpenApi(manifest);
  const entry = manifestEntry();
  const pool = createReadPool(store.path, { inline: store.sqlite });
  const reads = options.wrapReads?.(pool) ?? pool;
  const deps: ReadDeps = { store: () => store, reads: () => reads, folds, governance: client, metrics, version, startedAt, now, listenerUrl: () => service!.url(), surfaces: manifest.routes.length };
  const writeDeps = { store: () => store, governance: client, metrics };
  const writes = Object.fromEntries(Object.entries(WRITES).map(([name, [path, write]]) => [name, guardedWrite(path, write, writeDeps)])) as Record<WriteName, Handler>;

  const compose: Handler = async (context) => {
    const answer = await client.compose(context.body, context.requestId);
    if (answer.ok) return json({ source: 'governance POST /api/v1/context-composer/context', composition: answer.body });
    if (answer.outcome === 'http_error' && answer.status === 422) {
      return problem(422, 'Governance refused the composition', { type: 'composition-refused', detail: answer.reason });
    }
    return problem(503, 'Live upstream context unavailable', { type: 'live-upstream-unavailable', detail: answer.reason, extensions: { reason: `governance_${answer.outcome}` } });
  };

  const handlers = {
    health: () => healthReply(version),
    ready: () => readyReply({ version, store: () => store, governance: client }),
    version: () => versionReply(version),
    metrics: (): Reply => ({ status: 200, raw: metrics.registry.render(), contentType: METRICS_CONTENT_TYPE }),
    openapi: () => json(openapi),
    manifest: () => json(entry),
    reads: {
      inventory: () => inventoryReply(deps),
      topologyDiff: () => topologyDiffReply(deps),
      driftSummary: () => driftSummaryReply(deps),
      rolloutsAudit: (context: RequestContext) => rolloutsAuditReply(deps, context.query),
      controlStatus: () => controlStatusReply(deps),
      persistentAgents: () => persistentAgentsReply(deps),
    },
    compose,
    writes,
  };

  const routes = agentContextRoutes(handlers);
  service = createService({
    name: SERVICE_NAME,
    version,
    routes,
    listeners: { main: config.listen },
    authenticators: { internal: internalAuthenticator(config.tokens, metrics.authRefusals) },
    log,
    ...(options.env && { env: options.env }),
    now,
    onClose: async () => {
      await reads.close();
      await store.close();
    },
    onResponse: countAnswers(routes, metrics.requests),
  });
  const started = store.append(serviceStarts, { version, payload: { pid: process.pid, governance_url: config.governanceUrl ?? null } }).then(() => metrics.appends.inc({ table: serviceStarts.name }));
  return Object.assign(service, { store, metrics, started });
}
