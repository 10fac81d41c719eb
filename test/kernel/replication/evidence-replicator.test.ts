// Evidence replication from the kernel store to a real nats-server with JetStream (Debian's
// package): the row exactly as stored on its subject with its Nats-Msg-Id, sync waiting for the
// PubAck, async lag, resuming from the stream after a restart, and a stream that disagrees
// with the local chain stopping replication with a clear error.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  connectNats, createStreamApi, decodeEvidenceRow, defineEvidenceTable, encodeEvidenceRow, isAirlockError, openDatabase, parseNatsUrls, recomputeRowHash,
  replicationConfigFromEnv, replicationHealthCheck,
} from '../../../src/kernel/index.ts';
import type { ReplicationConfig, Store } from '../../../src/kernel/index.ts';
import { startNatsServer } from '../../helpers/nats-server.ts';
import type { RunningNatsServer } from '../../helpers/nats-server.ts';
import { until } from '../../helpers/until.ts';

const RECEIPTS = defineEvidenceTable({ name: 'receipts', columns: { subject: 'text', amount: 'integer' } });
const NOTES = defineEvidenceTable({ name: 'notes', columns: { kind: 'text' } });

describe('evidence replication to JetStream', () => {
  let server: RunningNatsServer;
  let dir: string;
  before(async () => {
    server = await startNatsServer({ jetstream: true });
    dir = mkdtempSync(join(tmpdir(), 'airlock-repl-'));
  });
  after(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** One stream for every test (stream subjects may not overlap); each test uses services of its own. */
  function config(mode: 'sync' | 'async', overrides: Partial<ReplicationConfig> = {}): ReplicationConfig {
    return { mode, servers: parseNatsUrls(server.url), replicas: 1, stream: 'AIRLOCK_EVIDENCE', lagWarnSeconds: 10, syncTimeoutMs: 5000, ...overrides };
  }

  function open(file: string, replication: ReplicationConfig, service: string): Store {
    return openDatabase(join(dir, file), { evidenceTables: [RECEIPTS, NOTES], replication: { config: replication, service } });
  }

  async function streamRows(stream: string, subject: string) {
    const client = await connectNats({ servers: parseNatsUrls(server.url) });
    const api = createStreamApi(client);
    const got: { headers: Record<string, string>; row: ReturnType<typeof decodeEvidenceRow> }[] = [];
    await api.replay(stream, subject, (m) => got.push({ headers: m.headers, row: decodeEvidenceRow(m.data) }));
    await client.close();
    return got;
  }

  test('sync: append() resolves after the stream stored the row as stored, on its subject, with its Nats-Msg-Id', async () => {
    const cfg = config('sync');
    const store = open('sync.sqlite', cfg, 'svc');
    const first = await store.append(RECEIPTS, { subject: 'case-1', amount: 7, payload: { note: 'é', n: 1.5 } });
    await store.append(RECEIPTS, { subject: 'case-2', amount: 8, payload: [] });
    await store.append(NOTES, { kind: 'x', payload: null });
    // Sync: nothing to wait for once append() resolved.
    const receipts = await streamRows(cfg.stream, 'airlock.evidence.svc.receipts');
    assert.equal(receipts.length, 2);
    assert.equal(receipts[0]!.headers['Nats-Msg-Id'], 'svc:receipts:1');
    const stored = store.sqlite.prepare('SELECT * FROM receipts WHERE seq = 1').get()!;
    assert.deepEqual(receipts[0]!.row, { seq: 1, recorded_at: stored['recorded_at'], columns: { subject: 'case-1', amount: 7 }, payload: stored['payload'], sha256: first.sha256, prev_sha256: first.prev_sha256 });
    assert.equal(recomputeRowHash(receipts[1]!.row), receipts[1]!.row.sha256);
    assert.equal(receipts[1]!.row.prev_sha256, first.sha256);
    assert.equal((await streamRows(cfg.stream, 'airlock.evidence.svc.notes')).length, 1);
    const status = store.replication()!;
    assert.equal(status.lag_rows, 0);
    assert.deepEqual(status.acked, { notes: 1, receipts: 2 });
    assert.equal(replicationHealthCheck(status).status, 'pass');
    await store.close();
  });

  test('async: append() resolves at the local commit; the shipper catches up and lag returns to 0', async () => {
    const cfg = config('async');
    const store = open('async.sqlite', cfg, 'async');
    await Promise.all(Array.from({ length: 300 }, (_, i) => store.append(RECEIPTS, { subject: `s${i}`, amount: i, payload: { i } })));
    await until(() => store.replication()!.lag_rows === 0 && store.replication()!.acked['receipts'] === 300, 10_000);
    const rows = await streamRows(cfg.stream, 'airlock.evidence.async.receipts');
    assert.deepEqual(rows.map((r) => r.row.seq), Array.from({ length: 300 }, (_, i) => i + 1));
    await store.close();
  });

  test('a restarted store resumes from the stream: rows written while off are shipped once, none twice', async () => {
    const cfg = config('async');
    const file = 'resume.sqlite';
    let store = open(file, cfg, 'resume');
    for (let i = 0; i < 5; i++) await store.append(RECEIPTS, { subject: 'a', amount: i, payload: i });
    await until(() => store.replication()!.acked['receipts'] === 5);
    await store.close();
    // Written with replication off (an outage of the shipper), then on again.
    store = openDatabase(join(dir, file), { evidenceTables: [RECEIPTS, NOTES], replication: { config: false } });
    for (let i = 5; i < 8; i++) await store.append(RECEIPTS, { subject: 'a', amount: i, payload: i });
    await store.close();
    store = open(file, cfg, 'resume');
    await until(() => store.replication()!.acked['receipts'] === 8, 10_000);
    const rows = await streamRows(cfg.stream, 'airlock.evidence.resume.receipts');
    assert.deepEqual(rows.map((r) => r.row.seq), [1, 2, 3, 4, 5, 6, 7, 8]);
    await store.close();
  });

  test('a second host writing the same service chain is refused: replication stops, a sync write answers evidence_replication', async () => {
    const cfg = config('sync');
    const a = open('host-a.sqlite', cfg, 'shared');
    await a.append(RECEIPTS, { subject: 'a', amount: 1, payload: 'from a' });
    const b = open('host-b.sqlite', cfg, 'shared');
    await assert.rejects(b.append(RECEIPTS, { subject: 'b', amount: 1, payload: 'from b' }), (error) => {
      assert.ok(isAirlockError(error, 'evidence_replication'), String(error));
      assert.match((error as Error).message, /seq 1 of "airlock\.evidence\.shared\.receipts" has sha256 [0-9a-f]{64}, the local row [0-9a-f]{64}: another host writes/);
      return true;
    });
    const status = b.replication()!;
    assert.equal(status.state, 'stopped');
    assert.equal(replicationHealthCheck(status).status, 'fail');
    // The row stays committed locally; the stream keeps host a's chain only.
    assert.equal(b.readRows(RECEIPTS).length, 1);
    const rows = await streamRows(cfg.stream, 'airlock.evidence.shared.receipts');
    assert.deepEqual(rows.map((r) => r.row.payload), ['"from a"']);
    await a.close();
    await b.close();
  });

  test('a foreign copy of a local row that keeps its sha256 but changes its content stops replication', async () => {
    const cfg = config('sync');
    const store = open('copied.sqlite', cfg, 'copied');
    const row = await store.append(RECEIPTS, { subject: 'a', amount: 1, payload: { amount: '1.00' } });
    const client = await connectNats({ servers: parseNatsUrls(server.url) });
    const tampered = { seq: 1, recorded_at: row.recorded_at, columns: { subject: 'a', amount: 1 }, payload: '{"amount":"9999.00"}', sha256: row.sha256, prev_sha256: row.prev_sha256 };
    const outcome = await createStreamApi(client).publish('airlock.evidence.copied.receipts', encodeEvidenceRow(tampered), { headers: { 'Nats-Msg-Id': 'tamperer' }, timeoutMs: 2000 });
    assert.equal(outcome.ok, true);
    await client.close();
    await assert.rejects(store.append(RECEIPTS, { subject: 'a', amount: 2, payload: 2 }), (error) => {
      assert.ok(isAirlockError(error, 'evidence_replication'), String(error));
      assert.match((error as Error).message, /seq 1 of "airlock\.evidence\.copied\.receipts".*differs from the local row/);
      return true;
    });
    assert.equal(store.replication()!.state, 'stopped');
    await store.close();
  });

  test('a foreign message on the service\'s subject that is no evidence row stops replication for good (no endless retry)', async () => {
    const cfg = config('sync');
    const store = open('junk.sqlite', cfg, 'junk');
    await store.append(RECEIPTS, { subject: 'a', amount: 1, payload: 1 });
    const client = await connectNats({ servers: parseNatsUrls(server.url) });
    const outcome = await createStreamApi(client).publish('airlock.evidence.junk.receipts', Buffer.from('not json at all'), { headers: { 'Nats-Msg-Id': 'junk' }, timeoutMs: 2000 });
    assert.equal(outcome.ok, true);
    await client.close();
    await assert.rejects(store.append(RECEIPTS, { subject: 'a', amount: 2, payload: 2 }), (error) => {
      assert.ok(isAirlockError(error, 'evidence_replication'), String(error));
      assert.match((error as Error).message, /stopped: the stream's message \d+ on "airlock\.evidence\.junk\.receipts" is not an evidence row \(Evidence message is not JSON/);
      return true;
    });
    const status = store.replication()!;
    assert.equal(status.state, 'stopped');
    assert.equal(replicationHealthCheck(status).status, 'fail');
    await store.close();
  });

  test('a stream ahead of the local chain (a database older than the stream) stops replication naming evidence_restore', async () => {
    const cfg = config('sync');
    const a = open('ahead-a.sqlite', cfg, 'ahead');
    for (let i = 0; i < 3; i++) await a.append(NOTES, { kind: 'k', payload: i });
    await a.close();
    const b = open('ahead-b.sqlite', cfg, 'ahead');
    await assert.rejects(b.append(RECEIPTS, { subject: 'x', amount: 1, payload: 1 }), /local chain ends at seq 0: another host writes this service's evidence, or this database is older than the stream \(restore it with evidence_restore\)/);
    await b.close();
  });

  test('replicationConfigFromEnv(): off by default; a bad mode, a missing URL or bad replicas is config_invalid naming the variable', () => {
    assert.equal(replicationConfigFromEnv({}), undefined);
    assert.equal(replicationConfigFromEnv({ AIRLOCK_EVIDENCE_REPLICATION: 'off', AIRLOCK_EVIDENCE_NATS_URL: 'nats://x' }), undefined);
    const parsed = replicationConfigFromEnv({ AIRLOCK_EVIDENCE_REPLICATION: 'sync', AIRLOCK_EVIDENCE_NATS_URL: 'nats://a:4222, nats://b:4223' })!;
    assert.deepEqual([parsed.mode, parsed.servers.map((s) => s.display), parsed.replicas, parsed.stream], ['sync', ['nats://a:4222', 'nats://b:4223'], undefined, 'AIRLOCK_EVIDENCE']);
    for (const [env, message] of [
      [{ AIRLOCK_EVIDENCE_REPLICATION: 'always' }, /Invalid AIRLOCK_EVIDENCE_REPLICATION "always": use off, async or sync/],
      [{ AIRLOCK_EVIDENCE_REPLICATION: 'async' }, /Missing AIRLOCK_EVIDENCE_NATS_URL/],
      [{ AIRLOCK_EVIDENCE_REPLICATION: 'sync', AIRLOCK_EVIDENCE_NATS_URL: 'http://x' }, /Invalid AIRLOCK_EVIDENCE_NATS_URL/],
      [{ AIRLOCK_EVIDENCE_REPLICATION: 'sync', AIRLOCK_EVIDENCE_NATS_URL: 'nats://x', AIRLOCK_EVIDENCE_REPLICAS: '0' }, /Invalid AIRLOCK_EVIDENCE_REPLICAS "0"/],
      [{ AIRLOCK_EVIDENCE_REPLICATION: 'sync', AIRLOCK_EVIDENCE_NATS_URL: 'nats://x', AIRLOCK_EVIDENCE_STREAM: 'a.b' }, /Invalid AIRLOCK_EVIDENCE_STREAM "a.b"/],
    ] as const) {
      assert.throws(() => replicationConfigFromEnv(env), (error) => isAirlockError(error, 'config_invalid') && message.test((error as Error).message));
    }
  });

  test('a stream that refuses (another stream already owns the subjects) fails health with the refusal', async () => {
    const cfg = config('async', { stream: 'OTHER_NAME' });
    const store = open('refused.sqlite', cfg, 'refused');
    await store.append(NOTES, { kind: 'k', payload: 1 });
    await until(() => store.replication()!.refused);
    const check = replicationHealthCheck(store.replication()!);
    assert.equal(check.status, 'fail');
    assert.match(String(check.output), /the stream refuses writes: JetStream refused STREAM.CREATE OTHER_NAME with 1 replicas: subjects overlap/);
    await store.close();
  });

  test('a service that opens its store without a logger still logs why replication stopped, on stderr', async () => {
    // Services open their store with openDatabase(path, { evidenceTables }) alone: the replicator's
    // own log must reach stderr, or an async host stops replicating for good without a line said.
    const ahead = open('logged-ahead.sqlite', config('sync'), 'logged');
    await ahead.append(NOTES, { kind: 'k', payload: 1 });
    await ahead.close();
    const script = [
      `import { openDatabase, defineEvidenceTable } from ${JSON.stringify(join(import.meta.dirname, '../../../src/kernel/index.ts'))};`,
      `const store = openDatabase(${JSON.stringify(join(dir, 'logged.sqlite'))}, { evidenceTables: [defineEvidenceTable({ name: 'notes', columns: { kind: 'text' } })] });`,
      'while (store.replication().state !== "stopped") await new Promise((r) => setTimeout(r, 20));',
      'await store.close();',
    ].join('\n');
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8', timeout: 20_000,
      env: { PATH: process.env['PATH'] ?? '', AIRLOCK_EVIDENCE_REPLICATION: 'async', AIRLOCK_EVIDENCE_NATS_URL: server.url, AIRLOCK_EVIDENCE_REPLICAS: '1' },
    });
    assert.equal(child.status, 0, child.stderr);
    const stopped = child.stderr.split('\n').filter((line) => line.includes('"evidence replication stopped"'));
    assert.equal(stopped.length, 1, child.stderr);
    assert.match(stopped[0]!, /"level":"error"/);
    assert.match(stopped[0]!, /the stream holds seq 1 of \\"airlock\.evidence\.logged\.notes\\" but the local chain ends at seq 0/);
  });

  test('sync: a write waits for the stream, and answers evidence_replication (committed here) when no server answers in time', async () => {
    const cfg = config('sync', { syncTimeoutMs: 1000 });
    const store = open('down.sqlite', cfg, 'down');
    await store.append(NOTES, { kind: 'k', payload: 1 });
    await server.stop();
    try {
      await assert.rejects(store.append(NOTES, { kind: 'k', payload: 2 }), (error) => isAirlockError(error, 'evidence_replication') && /did not acknowledge within 1 s: committed here/.test((error as Error).message));
      assert.equal(store.readRows(NOTES).length, 2);
      assert.equal(store.replication()!.lag_rows, 1);
    } finally {
      await server.start();
    }
    // Back: the shipper sends the committed row, and the next write is acknowledged.
    await store.append(NOTES, { kind: 'k', payload: 3 });
    assert.equal(store.replication()!.acked['notes'], 3);
    await store.close();
  });
});
