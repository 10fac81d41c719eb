// Assembles the governance service: opens the database, loads and validates the contract
// artifacts and the manifests, records what this process publishes, and binds the listeners of
// its role (platform: read-only; worker: loopback, lane authentication before routing).

import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { canonicalJson, compileSchema, createIdempotencyStore, createLogger, createReadPool, createService, readRows, versionTruth } from '../kernel/index.ts';
import type { Logger, ListenerOptions, Service } from '../kernel/index.ts';
import { loadArtifacts } from './contracts/artifacts.ts';
import { documentPaths } from './contracts/docs-check.ts';
import { PLATFORM_LISTENER, WORKER_LISTENER } from './config.ts';
import type { GovernanceConfig } from './config.ts';
import { openGovernanceDatabase, publicationStarts, signingKeys } from './database.ts';
import { loadSigningKey } from './access/signing-key.ts';
import { SERVICE_NAME } from './identity.ts';
import { readJsonFile } from './json-file.ts';
import { authenticators, WORKER_GATE } from './lanes.ts';
import { READ_ROUTES, WRITE_ROUTES, governanceRoutes } from './routes.ts';
import { readDocs, readManifest, readStackContract } from './runtime.ts';
import type { GovernanceRuntime } from './runtime.ts';

export interface GovernanceServiceOptions {
  log?: Logger;
  /** Milliseconds since the epoch; Date.now by default. */
  now?: () => number;
  fetch?: typeof fetch;
  version?: string;
  /** Called once with the assembled runtime (tests use it to inject faults). */
  inspect?: (runtime: GovernanceRuntime) => void;
}

/**
 * Builds the service for `config.role`. Throws AirlockError for a database it cannot open;
 * bad contract files never throw (their routes fail closed).
 *
 * @example
 * const service = await createGovernanceService(readGovernanceConfig({ argv: ['--role', 'test'] }));
 * await service.listen();
 */
export async function createGovernanceService(config: GovernanceConfig, options: GovernanceServiceOptions = {}): Promise<Service> {
  const log = options.log ?? createLogger({ name: SERVICE_NAME, service: SERVICE_NAME });
  log.addSecrets(config.secrets);
  const now = options.now ?? Date.now;
  const store = openGovernanceDatabase(config.dataDir, { now: () => new Date(now()) });
  const readPool = createReadPool(store.path, { inline: store.sqlite });
  let runtime: GovernanceRuntime | undefined;
  const routes = governanceRoutes(() => runtime!);
  const artifacts = loadArtifacts(config.paths.contractsDir);
  runtime = {
    config,
    version: options.version ?? versionTruth(),
    store,
    readPool,
    idempotency: createIdempotencyStore(store),
    signingKey: loadSigningKey(config.signingKey.file, { create: config.signingKey.create }),
    artifacts,
    manifest: readManifest(config.paths.manifest),
    stackContract: readStackContract(config.paths.stackContract),
    committedOpenApi: readJsonFile(config.paths.openapi),
    docs: readDocs(config.paths.root, documentPaths(artifacts)),
    routes,
    reads: READ_ROUTES,
    writes: WRITE_ROUTES,
    log,
    now,
    cache: new Map(),
    listenerUrl: (name) => {
      const address = config.addresses[name as keyof GovernanceConfig['addresses']];
      return address && `http://${address.host.includes(':') ? `[${address.host}]` : address.host}:${address.port}`;
    },
    fetch: options.fetch ?? globalThis.fetch,
  };
  for (const artifact of runtime.artifacts.artifacts.values()) {
    if (artifact.state !== 'valid') log.warn('contract artifact fails closed', { artifact: artifact.id, file: artifact.file, reasons: artifact.reasons.slice(0, 5) });
  }
  if (config.role === 'unknown') log.warn('no deployment role set (--role or GOVERNANCE_DEPLOYMENT_ROLE): running both listeners');
  if (config.listeners.worker && config.operatorTokens.length === 0) log.warn('GOVERNANCE_OPERATOR_TOKEN is not set: the worker listener refuses every request');
  if (!runtime.signingKey.ok) log.warn('mail-admission key store missing: its routes fail closed (awaiting_transport_owner)', { reason: runtime.signingKey.reason });
  await recordStart(runtime);
  options.inspect?.(runtime);

  const listeners: Record<string, ListenerOptions> = {};
  if (config.listeners.platform) listeners[PLATFORM_LISTENER] = { ...config.listeners.platform };
  if (config.listeners.worker) listeners[WORKER_LISTENER] = { ...config.listeners.worker, authenticate: WORKER_GATE };
  const service = createService({
    name: SERVICE_NAME,
    version: runtime.version,
    routes: routes.filter((route) => route.listener !== undefined && route.listener in listeners),
    listeners,
    authenticators: authenticators(config, routes),
    // Request schemas assert their formats (date-time, uuid...), as the contract artifacts do.
    compileSchema: (schema) => compileSchema(schema, { formats: 'assert' }).validate,
    log,
    now,
    onClose: () => readPool.close().then(() => store.close()),
  });
  const configured = runtime.listenerUrl;
  runtime.listenerUrl = (name) => (name in listeners ? boundUrl(service, name) : undefined) ?? configured(name);
  return service;
}

/** The URL a listener of this process bound, once it listens. */
function boundUrl(service: Service, name: string): string | undefined {
  try {
    return service.url(name);
  } catch (error) {
    if (error instanceof TypeError) return undefined; // not listening yet
    throw error;
  }
}

/** The registry digest this process publishes, as one evidence row; the signing key's public part, once per key. */
async function recordStart(runtime: GovernanceRuntime): Promise<void> {
  const key = runtime.signingKey;
  if (key.ok) {
    await runtime.store.write((sqlite, tx) => {
      if (readRows(sqlite, signingKeys, { where: { kid: key.kid } }).length === 0) tx.append(signingKeys, { kid: key.kid, payload: { public_jwk: { ...key.publicJwk }, file: basename(key.file) } });
    });
  }
  const artifacts = [...runtime.artifacts.artifacts.values()].map((a) => ({ id: a.id, state: a.state, sha256: a.sha256 ?? null }));
  const registrySha256 = createHash('sha256').update(canonicalJson(artifacts)).digest('hex');
  await runtime.store.append(publicationStarts, {
    role: runtime.config.role,
    registry_sha256: registrySha256,
    payload: { version: runtime.version, artifacts: artifacts.length, failing_closed: artifacts.filter((a) => a.state !== 'valid').map((a) => a.id) },
  });
}
