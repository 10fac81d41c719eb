// The ERP service: waits for and opens its database, wires sessions and the route table, answers
// kernel errors on Frappe paths in Frappe's envelope, and closes the database after draining.

import { createIdempotencyStore, createLogger, createReadPool, createService, versionTruth } from '../kernel/index.ts';
import type { Logger, ReadPool, Service, Store } from '../kernel/index.ts';
import type { ErpConfig } from './config.ts';
import { openErpDatabase } from './database/open-erp-database.ts';
import { startDispatchWorker } from './dispatch/worker.ts';
import type { DispatchWorker } from './dispatch/worker.ts';
import type { ErpDeps, ErpRoute } from './erp-route.ts';
import { FRAPPE_AUTH, frappeAuthenticator } from './frappe/authenticator.ts';
import { frappeProblemRenderer } from './frappe/render-problem.ts';
import { createSessions } from './frappe/sessions.ts';
import { SERVICE_NAME } from './identity.ts';
import { erpRoutes } from './routes.ts';
import { erpMcpMount } from './mcp/mount.ts';
import { startHandoffRetry } from './support-cases/handoff-retry.ts';
import { watchSuppliers } from './suppliers.ts';

export interface ErpServiceOptions {
  now?: () => number;
  log?: Logger;
  env?: NodeJS.ProcessEnv;
  version?: string;
  /** Pause between database open attempts (tests shorten it). */
  retryMs?: number;
  /** Interval of the failed support-handoff retry (1 s by default; 0 turns it off). */
  handoffRetryIntervalMs?: number;
}

export interface ErpService extends Service {
  readonly store: Store;
  /** The read pool lists run on (tests read its step counts). */
  readonly reads: ReadPool;
  /** The dispatch worker (tests call tick() instead of waiting for the interval). */
  readonly dispatchWorker: DispatchWorker;
}

/**
 * Creates the ERP service from its configuration.
 *
 * @example
 * const service = await createErpService(loadErpConfig(process.env));
 * await service.listen();
 */
export async function createErpService(config: ErpConfig, options: ErpServiceOptions = {}): Promise<ErpService> {
  const now = options.now ?? Date.now;
  const version = options.version ?? versionTruth();
  const log = options.log ?? createLogger({ name: SERVICE_NAME, service: SERVICE_NAME });
  log.addSecrets([...[config.outbound.supportDeskSecret, config.outbound.supportDeskToken, config.outbound.governanceToken].filter((s): s is string => s !== undefined), ...Object.values(config.secrets).filter((s): s is string => s !== undefined), ...config.apiKeys.map((k) => k.pair)]);
  const store = await openErpDatabase(config.databasePath, { now: () => new Date(now()), waitSeconds: config.migrationWaitSeconds, ...(options.retryMs !== undefined && { retryMs: options.retryMs }) });
  const sessions = createSessions(store, { ttlSeconds: config.sessionTtlSeconds, now });
  let routes: readonly ErpRoute[] = [];
  const supplierMaster = watchSuppliers(config.suppliersFile, config.suppliers, (detail) => log.warn('supplier master not reloaded', { detail }));
  const reads = createReadPool(store.path, { inline: store.sqlite });
  const deps: ErpDeps = { config, store, reads, sessions, idempotency: createIdempotencyStore(store), version, log, now, routes: () => routes, suppliers: () => supplierMaster.current() };
  const ref = () => deps;
  routes = erpRoutes(ref);
  const dispatchWorker = startDispatchWorker(deps);
  const handoffRetry = startHandoffRetry(ref, options.handoffRetryIntervalMs ?? 1000);
  const service = createService({
    name: SERVICE_NAME,
    version,
    routes,
    listeners: { main: config.listen },
    authenticators: { [FRAPPE_AUTH]: frappeAuthenticator(config.apiKeys, sessions), ...erpMcpMount(ref).authenticators },
    renderProblem: frappeProblemRenderer(new Map(routes.flatMap((r) => (r.signature ? [[r.path, r.signature.scheme]] : [])))),
    log,
    ...(options.env && { env: options.env }),
    now,
    onClose: () => {
      dispatchWorker.stop();
      handoffRetry.stop();
      return reads.close().then(() => store.close());
    },
  });
  return Object.assign(service, { store, reads, dispatchWorker });
}
