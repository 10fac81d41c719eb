// evidence_restore: rebuilds a service's database on an empty data directory from the evidence
// stream (docs/replication.md). Every chain is verified before a row is written; the service
// derives the rest of its state from the rows when it first opens the file (its migrations run
// from the start), so it starts there and carries on. Exit 0 restored, 1 a chain in the stream
// is broken or has two writers (nothing is written), 2 usage, an existing database, or an
// unreachable cluster.

import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { AirlockError, isAirlockError, connectNats, createStreamApi, DEFAULT_EVIDENCE_STREAM, defineCommand, EXIT_FAILED, EXIT_OK, main, parseNatsUrls, usageError } from '../src/kernel/index.ts';
import { readReplicatedChains, verifyReplicatedChain, writeReplicatedChain } from '../src/kernel/index.ts';
import { createObjectStore, restoreIdempotencyKeys } from '../src/kernel/index.ts';
import type { NatsClient, StreamApi } from '../src/kernel/index.ts';
import { blobBucket } from '../src/content/blob-replication.ts';
import { BLOB_DIR_NAME } from '../src/content/config.ts';
import { CONTENT_EVENTS } from '../src/content/database.ts';
import { namedBlobs, restoreContentBlobs } from '../src/content/restore-blobs.ts';

const command = defineCommand({
  name: 'evidence_restore',
  summary: "Rebuilds a service's database from its replicated evidence in a NATS JetStream stream",
  description: [
    'Reads every message of airlock.evidence.<service>.> from the stream, checks each table as a hash',
    'chain (seq 1..n, prev_sha256 links, every sha256 recomputed), and only when all verify writes',
    '<data-dir>/<service>.sqlite with the rows exactly as stored. Idempotency-Key answers still within',
    'their retention are derived from the idempotency_answers chain. Start the service on that data',
    'directory next: it derives the rest from the rows (ERP: documents and naming series; semantic: inbox,',
    'graph, outbox; content: nodes, versions, permissions, renditions). For content, every blob a version names',
    'is fetched from the object store bucket <stream>_BLOBS and checked against its digest; exit 1 when the',
    'bucket lacks some (async replication was behind). Stop the service on the old host first: one writer per chain.',
  ].join('\n'),
  options: {
    service: { type: 'string', valueName: 'NAME', description: 'The service, as in its subjects and database file name (erp, governance, ...)' },
    nats: { type: 'string', valueName: 'URL[,URL...]', description: "The cluster's NATS URLs" },
    'data-dir': { type: 'string', valueName: 'DIR', description: 'The new, empty data directory (created if missing)' },
    stream: { type: 'string', valueName: 'NAME', description: `The evidence stream (default ${DEFAULT_EVIDENCE_STREAM})` },
  },
  async run({ values, json, print, printJson }) {
    if (values.service === undefined) usageError('Missing --service NAME: name the service to restore (erp, governance, ...)');
    if (values.nats === undefined) usageError('Missing --nats URL: give the NATS cluster URLs, comma-separated');
    if (values['data-dir'] === undefined) usageError('Missing --data-dir DIR: name the new data directory');
    const file = join(values['data-dir'], `${values.service}.sqlite`);
    for (const path of [file, `${file}-wal`]) {
      if (existsSync(path)) throw new AirlockError('environment', `Cannot restore into "${path}": it exists; restore into an empty data directory (the service's database is never overwritten)`);
    }
    let servers;
    try {
      servers = parseNatsUrls(values.nats);
    } catch (error) {
      usageError(`Invalid --nats: ${(error as Error).message}`);
    }
    let client;
    try {
      client = await connectNats({ servers, name: 'airlock-evidence-restore', reconnect: { initialMs: 50, maxMs: 1000, jitterMs: 50 } });
    } catch (error) {
      throw new AirlockError('environment', `Cannot reach the NATS cluster at ${servers.map((s) => s.display).join(', ')}: ${(error as Error).message}`);
    }
    try {
      const api = createStreamApi(client);
      const stream = values.stream ?? DEFAULT_EVIDENCE_STREAM;
      if ((await api.infoWithin(stream, 60_000)) === undefined) throw new AirlockError('environment', `The NATS cluster has no stream "${stream}": nothing was replicated there`);
      let chains;
      try {
        chains = await readReplicatedChains(api, { stream, service: values.service });
      } catch (error) {
        // Two rows for one seq: a finding about the stream (exit 1), not a usage error.
        if (!isAirlockError(error, 'evidence_replication')) throw error;
        if (json) printJson({ ok: false, service: values.service, stream, error: error.message });
        else print(error.message);
        return EXIT_FAILED;
      }
      if (chains.length === 0) throw new AirlockError('environment', `The stream "${stream}" holds no evidence of service "${values.service}"`);
      const results = chains.map(verifyReplicatedChain);
      const broken = results.filter((result) => !result.ok);
      if (broken.length > 0) {
        if (json) printJson({ ok: false, service: values.service, stream, tables: results });
        else for (const result of broken) if (!result.ok) print(`${result.table}: broken at seq ${result.seq ?? '-'}: ${result.reason}`);
        return EXIT_FAILED;
      }
      mkdirSync(values['data-dir'], { recursive: true });
      // Written under another name and renamed into place once whole: a restore killed midway
      // leaves no <service>.sqlite that could pass for a restored database (or block a rerun).
      // Whatever a killed run left under that name is incomplete by definition.
      const partial = `${file}.restoring`;
      for (const path of [partial, `${partial}-wal`, `${partial}-shm`]) rmSync(path, { force: true });
      const sqlite = new DatabaseSync(partial);
      try {
        sqlite.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;');
        const now = () => new Date();
        for (const chain of chains) writeReplicatedChain(sqlite, chain, { now });
        const keys = restoreIdempotencyKeys(sqlite, { now: now() });
        // The content repository's bytes are not evidence: they come back from the object store.
        const blobs = chains.some((chain) => chain.table === CONTENT_EVENTS.name) ? await restoreBlobs(api, sqlite, { client, stream, dataDir: values['data-dir'] }) : undefined;
        sqlite.exec('PRAGMA wal_checkpoint(TRUNCATE)');
        sqlite.close();
        renameSync(partial, file);
        syncDirectory(values['data-dir']);
        const tables = results.map((result) => ({ ...result, repeats: chains.find((c) => c.table === result.table)!.repeats }));
        const complete = blobs === undefined || blobs.missing.length === 0;
        if (json) printJson({ ok: complete, service: values.service, stream, db: file, tables, idempotency_keys: keys, ...(blobs && { blobs }) });
        else {
          for (const table of tables) if (table.ok) print(`${table.table}: ${table.rows} rows, head ${table.head}`);
          if (blobs) print(`blobs: ${blobs.fetched} fetched from ${blobs.bucket}${complete ? '' : `; ${blobs.missing.length} MISSING from the bucket (their versions' content is lost): ${blobs.missing.join(', ')}`}`);
          print(`restored ${file}${keys > 0 ? ` (${keys} Idempotency-Key answers)` : ''}: start the service with AIRLOCK_DATA_DIR=${values['data-dir']}`);
        }
        return complete ? EXIT_OK : EXIT_FAILED;
      } catch (error) {
        if (sqlite.isOpen) sqlite.close();
        // A half-written database must not be mistaken for a restored one.
        for (const path of [partial, `${partial}-wal`, `${partial}-shm`]) rmSync(path, { force: true });
        throw error;
      }
    } finally {
      await client.close();
    }
  },
});

/** Makes the rename that put the restored database in place durable (Linux: fsync of the directory). */
function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Fetches the blobs the restored content database names from the bucket its host replicated them to. */
async function restoreBlobs(api: StreamApi, sqlite: DatabaseSync, options: { client: NatsClient; stream: string; dataDir: string }): Promise<{ bucket: string; fetched: number; missing: string[] }> {
  const bucket = blobBucket(options.stream);
  // No bucket at all: nothing was replicated, so every named blob is missing.
  if ((await api.info(`OBJ_${bucket}`)) === undefined) return { bucket, fetched: 0, missing: namedBlobs(sqlite) };
  const restored = await restoreContentBlobs(sqlite, { objects: createObjectStore(options.client, { bucket }), blobDir: join(options.dataDir, BLOB_DIR_NAME) });
  return { bucket, ...restored };
}

await main(command);
