// Content bytes outlive the host (docs/replication.md): with evidence replication on, each blob
// goes to the JetStream Object Store bucket `<stream>_BLOBS` (OBJ_AIRLOCK_EVIDENCE_BLOBS by
// default) on the same cluster, named by its SHA-256 (content-addressed: a name already there
// holds the same bytes, so it is sent once).
// - sync: an upload's blob is in the bucket before its version is committed (the store then waits
//   for the evidence's PubAck), so an acknowledged upload loses nothing with the host; the bucket
//   out of reach answers 503 and commits nothing (the blob left on disk is reclaimed at start).
// - async: the upload is acknowledged after the local commit; a shipper, woken every second,
//   sends the blobs of new versions in content_events order from a cursor kept in the database,
//   so it resumes after a restart or an outage where it stopped. It runs in sync mode too, to
//   send the blobs stored before replication was turned on.
// A purge frees blobs for good: the shipper deletes them from the bucket as well (a deleted
// object's chunks are purged from the stream), in both modes, when it reaches the purge.
// evidence_restore fetches every blob a version still names (restore-blobs.ts).

import { connectNats, createObjectStore, statement } from '../kernel/index.ts';
import type { Logger, NatsClient, ObjectStore, ReplicationConfig, Store } from '../kernel/index.ts';
import type { BlobStore } from './blob-store.ts';
import { CONTENT_EVENTS } from './database.ts';
import { RepositoryError } from './repository-error.ts';

/** The bucket a stream's blobs go to. */
export function blobBucket(stream: string): string {
  return `${stream}_BLOBS`;
}

/** content_events actions whose payload names a blob (`sha256`). */
export const VERSION_ACTIONS = ['content-created', 'content-updated', 'reverted'] as const;

const CURSOR_SQL = 'CREATE TABLE IF NOT EXISTS blob_replication (id INTEGER PRIMARY KEY CHECK (id = 1), events_seq INTEGER NOT NULL) STRICT';
const POLL_MS = 1000;
const PAGE = 100;

export interface BlobReplication {
  /** sync: resolves once the bucket holds the blob (a 503 RepositoryError when it cannot); async: wakes the shipper. */
  stored(sha256: string): Promise<void>;
  /** Stops the shipper and closes the connection. */
  close(): Promise<void>;
}

export function startBlobReplication(options: { store: Store; blobs: BlobStore; config: ReplicationConfig; log: Logger }): BlobReplication {
  const { store, blobs, config, log } = options;
  const bucket = blobBucket(config.stream);
  let client: NatsClient | undefined;
  let objects: ObjectStore | undefined;
  let closed = false;
  let running: Promise<void> | undefined;
  let behind: string | undefined;
  const sent = new Set<string>();
  store.sqlite.exec(CURSOR_SQL);

  async function bucketStore(): Promise<ObjectStore> {
    if (objects) return objects;
    client ??= await connectNats({ servers: config.servers, name: 'airlock-content-blobs', reconnect: { initialMs: 50, maxMs: 2000, jitterMs: 50 }, log });
    const candidate = createObjectStore(client, { bucket, timeoutMs: config.syncTimeoutMs });
    await candidate.ensure({ replicas: config.replicas ?? (client.status().known_servers >= 3 ? 3 : 1) });
    objects = candidate;
    return objects;
  }

  async function put(sha256: string): Promise<void> {
    if (sent.has(sha256)) return;
    const target = await bucketStore();
    if ((await target.info(sha256)) === undefined) await target.putFile(sha256, blobs.path(sha256));
    sent.add(sha256);
  }

  async function forget(sha256: string): Promise<void> {
    await (await bucketStore()).delete(sha256);
    sent.delete(sha256);
  }

  /** Sends the blobs of the versions recorded after the cursor, page by page; the cursor follows. */
  async function ship(): Promise<void> {
    for (;;) {
      const cursor = Number(statement(store.sqlite, 'SELECT events_seq FROM blob_replication WHERE id = 1').get()?.['events_seq'] ?? 0);
      const rows = statement(store.sqlite, `SELECT seq, action, payload FROM ${CONTENT_EVENTS.name} WHERE seq > ? ORDER BY seq LIMIT ?`).all(cursor, PAGE);
      if (rows.length === 0) return;
      for (const row of rows) {
        const action = String(row['action']);
        const payload = JSON.parse(String(row['payload'])) as { sha256?: string; blobs_removed?: string[] };
        // A blob purged since has nothing left to send (no version names it).
        if ((VERSION_ACTIONS as readonly string[]).includes(action) && (await blobs.has(payload.sha256!))) await put(payload.sha256!);
        // Purged for good here, so in the bucket too, unless the same bytes came back since.
        if (action === 'purged') for (const sha256 of payload.blobs_removed ?? []) if (!(await blobs.has(sha256))) await forget(sha256);
      }
      const last = Number(rows.at(-1)!['seq']);
      await store.write((sqlite) => statement(sqlite, 'INSERT INTO blob_replication (id, events_seq) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET events_seq = excluded.events_seq').run(last));
    }
  }

  function wake(): void {
    if (closed || running) return;
    running = ship()
      .then(() => {
        if (behind !== undefined) log.info('content blob replication caught up', { bucket });
        behind = undefined;
      })
      .catch((error: unknown) => {
        // Logged once per outage; the next poll retries.
        if (behind === undefined) log.warn('content blob replication behind: retrying', { bucket, error: (error as Error).message });
        behind = (error as Error).message;
      })
      .finally(() => (running = undefined));
  }

  const timer = setInterval(wake, POLL_MS);
  timer.unref();
  wake();
  return {
    async stored(sha256) {
      if (config.mode === 'async') return;
      try {
        await put(sha256);
      } catch (error) {
        log.warn('content blob not replicated: upload refused', { bucket, sha256, error: (error as Error).message });
        throw new RepositoryError(503, `The content could not be replicated to the object store "${bucket}": ${(error as Error).message}; nothing was stored, retry`);
      }
    },
    async close() {
      closed = true;
      clearInterval(timer);
      await running;
      await client?.close();
    },
  };
}

/** `blobs` whose writers finish only once `replication` took the blob (see the header). */
export function replicatedBlobStore(blobs: BlobStore, replication: BlobReplication): BlobStore {
  return {
    ...blobs,
    create(maxBytes) {
      const writer = blobs.create(maxBytes);
      return {
        get size() {
          return writer.size;
        },
        write: (chunk) => writer.write(chunk),
        abort: () => writer.abort(),
        async finish() {
          const blob = await writer.finish();
          await replication.stored(blob.sha256);
          return blob;
        },
      };
    },
  };
}
