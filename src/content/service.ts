// Builds the content service: the database and blob store under AIRLOCK_DATA_DIR, the OIDC
// bridge, the route table and its authenticators, on one listener.

import { createLogger, createReadPool, createService, replicationConfigFromEnv, secretValues, versionTruth } from '../kernel/index.ts';
import type { Logger, ReadPool, Service } from '../kernel/index.ts';
import { aftsMatch } from './afts-sql.ts';
import { reclaimBlobs } from './blob-reclaim.ts';
import { replicatedBlobStore, startBlobReplication } from './blob-replication.ts';
import { createBlobStore } from './blob-store.ts';
import { CONTENT_SPEC } from './config.ts';
import type { ContentConfig } from './config.ts';
import { ensureRootFolder, openContentStore } from './database.ts';
import { deriveRepositoryFromEvidence } from './derive-repository.ts';
import { createBridge, repositoryAuthenticator, repositoryPrefixAuthenticator, shareAuthenticator } from './oidc/bridge.ts';
import { permissionPolicy } from './permissions.ts';
import { ensureSystemFolders } from './repository.ts';
import { isProbePath, loopbackOnly } from './probes.ts';
import { renderContentProblem } from './render-problem.ts';
import { contentRoutes } from './routes.ts';

export const SERVICE_NAME = 'content';

/** The service, with the read pool its searches and folder listings run on. */
export type ContentService = Service & { reads: ReadPool };

export async function createContentService(config: ContentConfig, options: { now?: () => number; env?: NodeJS.ProcessEnv; log?: Logger; reads?: { threads?: number; budgetMs?: number; maxQueue?: number } } = {}): Promise<ContentService> {
  const log = options.log ?? createLogger({ name: SERVICE_NAME, service: SERVICE_NAME, secrets: secretValues(CONTENT_SPEC, { CONTENT_OIDC_CLIENT_SECRET: config.clientSecret }) });
  const store = openContentStore(config.databasePath);
  const local = createBlobStore(config.blobDir);
  const derived = await deriveRepositoryFromEvidence(store.sqlite, { blobs: local, indexTextBytes: config.indexTextBytes });
  if (derived > 0) log.info('repository derived from restored evidence', { events: derived });
  await ensureRootFolder(store);
  await ensureSystemFolders(store);
  const reclaimed = await reclaimBlobs(store, local);
  if (reclaimed.removed.length + reclaimed.restored.length > 0) log.info('blobs reclaimed at start', { removed: reclaimed.removed.length, restored: reclaimed.restored.length });
  // The settings the store's evidence replication read (AIRLOCK_EVIDENCE_*): bytes go where their evidence goes.
  const replicationConfig = replicationConfigFromEnv(process.env);
  const replication = replicationConfig && startBlobReplication({ store, blobs: local, config: replicationConfig, log: log.child('content.blobs') });
  const blobs = replication ? replicatedBlobStore(local, replication) : local;
  const bridge = createBridge({ config, store, log: log.child('content.oidc'), ...(options.now && { now: options.now }) });
  // Searches and folder listings read on their own connections, so probes and writes answer beside them.
  const reads = createReadPool(store.path, { ...options.reads, inline: store.sqlite, functions: { afts_match: aftsMatch } });
  const deps = { store, reads, blobs, config, log, policy: permissionPolicy(config) };
  const repository = repositoryAuthenticator(bridge);
  const service = createService({
    name: SERVICE_NAME,
    version: versionTruth(),
    routes: contentRoutes(deps, bridge),
    listeners: { main: { host: config.listen.host, port: config.listen.port, authenticate: 'repository-prefix' } },
    authenticators: { repository, 'repository-prefix': repositoryPrefixAuthenticator(repository, isProbePath), share: shareAuthenticator(bridge), loopback: loopbackOnly },
    renderProblem: renderContentProblem,
    log,
    ...(options.env && { env: options.env }),
    ...(options.now && { now: options.now }),
    onClose: async () => {
      await replication?.close();
      await reads.close();
      await store.close();
    },
  });
  return Object.assign(service, { reads });
}
