// The semantic API as a kernel service: opens the control database, wires the readbacks, the
// projection-verification ledger and the fixtures to the route table, and closes the database
// after the last request drained.

import { createLogger, createService, json, problem, versionTruth } from '../kernel/index.ts';
import type { Logger, RequestContext, Service, Store } from '../kernel/index.ts';
import { compileBodySchema } from './_schema.ts';
import { createAuthenticators } from './authenticators.ts';
import type { ApiConfig } from './config.ts';
import { contextBody } from './context-readback.ts';
import { openControlDatabase } from './control-schema.ts';
import { createControlStateReader } from './control-state.ts';
import { FIXTURES, fixtureReceipt } from './fixtures.ts';
import { projectionRunBody, recordProjectionRun } from './projection-verification.ts';
import type { ProjectionRequest } from './projection-verification.ts';
import { healthReply, readinessReply } from './readiness.ts';
import { receiptWindow, sealReceipt } from './receipt-clock.ts';
import { semanticRoutes } from './routes.ts';
import type { SemanticHandlers } from './routes.ts';
import { readRuntimeOwnerArtifact } from './runtime-owner-artifact.ts';
import { createStatusReadback } from './status-readback.ts';
import { readTopologyMetrics } from './topology-metrics.ts';
import { createUpstreamProbe } from './upstream-probe.ts';

export const SERVICE_NAME = 'semantic';

export interface SemanticServiceOptions {
  /** Milliseconds since the epoch; Date.now by default (tests inject a clock). */
  now?: () => number;
  log?: Logger;
  env?: NodeJS.ProcessEnv;
  version?: string;
}

export interface SemanticService extends Service {
  readonly store: Store;
}

/**
 * Creates the semantic API from its configuration (see config.ts).
 *
 * @example
 * const service = createSemanticService(loadApiConfig(process.env));
 * await service.listen();
 */
export function createSemanticService(config: ApiConfig, options: SemanticServiceOptions = {}): SemanticService {
  const now = options.now ?? Date.now;
  const version = options.version ?? versionTruth();
  const log = options.log ?? createLogger({ name: SERVICE_NAME, service: SERVICE_NAME });
  log.addSecrets([...config.operatorTokens, ...config.consumerTokens.map((c) => c.token)]);
  const store = openControlDatabase(config.databasePath, { now: () => new Date(now()) });
  const reader = createControlStateReader(store.sqlite);
  let service: Service | undefined;
  const baseUrl = () => service!.url();
  const status = createStatusReadback({ config, version, reader, baseUrl });
  const probes = {
    model_runtime: createUpstreamProbe(config.upstreams.model_runtime, { variable: 'SEMANTIC_MODEL_RUNTIME_URL', now }),
    vector_store: createUpstreamProbe(config.upstreams.vector_store, { variable: 'SEMANTIC_VECTOR_STORE_URL', now }),
    governance: createUpstreamProbe(config.upstreams.governance, { variable: 'SEMANTIC_GOVERNANCE_URL', path: '/health', now }),
  };
  const allowlist = new Set(config.caseAllowlist);
  const fixtureContext = {
    stage: config.stage,
    canaryTenantId: config.canaryTenantId,
    runtimeArtifact: () => readRuntimeOwnerArtifact(config.runtimeOwnerArtifact),
  };
  const window = () => receiptWindow(now(), config.receiptTtlSeconds);

  const handlers: SemanticHandlers = {
    healthz: () => healthReply(version),
    readyz: () => readinessReply({ config, version, reader, probes, replication: () => store.replication() }),
    status: () => status.reply(),
    context: () => json(contextBody(reader.current(), { version })),
    topology: () => json(readTopologyMetrics(config.runtimeOwnerArtifact)),
    projection: async (context: RequestContext) => {
      const request = context.body as ProjectionRequest;
      if (!allowlist.has(request.case_ref)) {
        return problem(403, 'Case ref not admitted', {
          type: 'case_ref_not_admitted',
          detail: `Cannot admit case ref "${request.case_ref}": not in SEMANTIC_PROJECTION_CASE_ALLOWLIST`,
        });
      }
      const issued = window();
      const outcome = await recordProjectionRun(store, request, { stage: config.stage, at: issued.issued_at });
      if (outcome === 'conflict') {
        return problem(422, 'Correlation id reused', {
          type: 'correlation_id_conflict',
          detail: `Cannot record correlation id "${request.correlation_id}": it was used with another body`,
          errors: [{ pointer: '/correlation_id', detail: 'already recorded with another source_event_id or case_ref' }],
        });
      }
      return json(sealReceipt(projectionRunBody(request, config.stage), issued));
    },
    fixture: (name) => {
      const definition = FIXTURES.find((f) => f.name === name)!;
      return (context: RequestContext) => json(sealReceipt(fixtureReceipt(definition, (context.body ?? {}) as Record<string, string>, fixtureContext), window()));
    },
  };

  service = createService({
    name: SERVICE_NAME,
    version,
    routes: semanticRoutes(handlers),
    listeners: { main: config.listen },
    authenticators: createAuthenticators(config),
    // The operator's credential is a header of its own, not a bearer token: the challenge names it (RFC 9110 11.6.1).
    challenges: { operator: 'X-Semantic-Operator-Token realm="semantic"', projection: 'X-Semantic-Operator-Token realm="semantic"' },
    compileSchema: compileBodySchema,
    log,
    ...(options.env && { env: options.env }),
    now,
    onClose: () => store.close(),
  });
  return Object.assign(service, { store });
}
