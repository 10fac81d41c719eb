// evidence_restore and verify_evidence_chain --nats against a real nats-server with JetStream:
// a store replicates (sync), its database is lost, the restore rebuilds it row for row (with the
// Idempotency-Key answers still in retention), heads agree; a stream with two writers, an
// existing database, an unknown service and bad usage each fail with the reason.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, test } from 'node:test';
import {
  connectNats, createIdempotencyStore, createStreamApi, defineEvidenceTable, encodeEvidenceRow, openDatabase, parseNatsUrls, requestFingerprint,
} from '../../src/kernel/index.ts';
import type { ReplicationConfig } from '../../src/kernel/index.ts';
import { startNatsServer } from '../helpers/nats-server.ts';
import type { RunningNatsServer } from '../helpers/nats-server.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const RECEIPTS = defineEvidenceTable({ name: 'receipts', columns: { subject: 'text', amount: 'integer' } });

function run(script: string, args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'scripts', script), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.on('exit', (code) => resolve({ status: code ?? -1, stdout, stderr }));
  });
}

describe('evidence_restore and verify_evidence_chain --nats', () => {
  let server: RunningNatsServer;
  let dir: string;
  before(async () => {
    server = await startNatsServer({ jetstream: true });
    dir = mkdtempSync(join(tmpdir(), 'airlock-restore-'));
  });
  after(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  function config(): ReplicationConfig {
    return { mode: 'sync', servers: parseNatsUrls(server.url), replicas: 1, stream: 'AIRLOCK_EVIDENCE', lagWarnSeconds: 10, syncTimeoutMs: 5000 };
  }

  test('a lost database is rebuilt row for row, with its Idempotency-Key answers; heads agree; a later local write makes them differ', async () => {
    mkdirSync(join(dir, 'a'));
    const original = join(dir, 'a', 'demo.sqlite');
    const store = openDatabase(original, { evidenceTables: [RECEIPTS], replication: { config: config(), service: 'demo' } });
    const keys = createIdempotencyStore(store);
    for (let i = 0; i < 20; i++) await store.append(RECEIPTS, { subject: `s${i}`, amount: i, payload: { i, text: 'ü' } });
    const fingerprint = requestFingerprint({ method: 'POST', path: '/x', body: Buffer.from('{}') });
    const begun = await keys.begin({ scope: 'demo POST /x', key: 'k-1', fingerprint });
    assert.equal(begun.kind, 'started');
    await keys.complete({ scope: 'demo POST /x', key: 'k-1', token: (begun as { token: string }).token, response: { status: 201, headers: { 'content-type': 'application/json' }, body: Buffer.from('{"ok":true}') } });
    const localRows = store.sqlite.prepare('SELECT * FROM receipts ORDER BY seq').all();
    await store.close();

    const target = join(dir, 'b');
    // What a restore killed midway left: its database under the partial name, which a rerun replaces.
    mkdirSync(target, { recursive: true });
    writeFileSync(join(target, 'demo.sqlite.restoring'), 'half a database');
    const restored = await run('evidence_restore.ts', ['--service', 'demo', '--nats', server.url, '--data-dir', target, '--json']);
    assert.equal(restored.status, 0, restored.stderr);
    assert.deepEqual(readdirSync(target).filter((name) => name.startsWith('demo.sqlite')), ['demo.sqlite'], 'the database renamed into place whole, nothing partial left');
    const report = JSON.parse(restored.stdout);
    assert.equal(report.ok, true);
    assert.equal(report.idempotency_keys, 1);
    assert.deepEqual(report.tables.map((t: { table: string; rows: number }) => [t.table, t.rows]), [['idempotency_answers', 1], ['receipts', 20]]);

    const reopened = openDatabase(join(target, 'demo.sqlite'), { evidenceTables: [RECEIPTS], replication: { config: false } });
    assert.deepEqual(reopened.sqlite.prepare('SELECT * FROM receipts ORDER BY seq').all(), localRows);
    const replay = await createIdempotencyStore(reopened).begin({ scope: 'demo POST /x', key: 'k-1', fingerprint });
    assert.equal(replay.kind, 'replay');
    assert.equal(Buffer.from((replay as { response: { body: Uint8Array } }).response.body).toString(), '{"ok":true}');
    await reopened.close();

    const verified = await run('verify_evidence_chain.ts', ['--nats', server.url, '--service', 'demo', '--db', join(target, 'demo.sqlite'), '--json']);
    assert.equal(verified.status, 0, verified.stdout + verified.stderr);
    assert.ok(JSON.parse(verified.stdout).heads.every((h: { agree: boolean }) => h.agree));

    // A row written here and never replicated: the heads no longer agree.
    const offline = openDatabase(join(target, 'demo.sqlite'), { evidenceTables: [RECEIPTS], replication: { config: false } });
    await offline.append(RECEIPTS, { subject: 'late', amount: 1, payload: null });
    await offline.close();
    const differ = await run('verify_evidence_chain.ts', ['--nats', server.url, '--service', 'demo', '--db', join(target, 'demo.sqlite')]);
    assert.equal(differ.status, 1);
    assert.match(differ.stdout, /receipts: heads DIFFER: local seq 21 [0-9a-f]{64}, stream seq 20 [0-9a-f]{64}/);

    const again = await run('evidence_restore.ts', ['--service', 'demo', '--nats', server.url, '--data-dir', target]);
    assert.equal(again.status, 2);
    assert.match(again.stderr, /demo\.sqlite": it exists; restore into an empty data directory/);
  });

  test('a stream with two different rows for one seq is refused: nothing is written, exit 1 names the two writers', async () => {
    mkdirSync(join(dir, 'c'));
    const store = openDatabase(join(dir, 'c', 'twice.sqlite'), { evidenceTables: [RECEIPTS], replication: { config: config(), service: 'twice' } });
    const row = await store.append(RECEIPTS, { subject: 's', amount: 1, payload: 'real' });
    await store.close();
    // Another writer's seq 1, past the de-duplication window's reach (another Msg-Id).
    const client = await connectNats({ servers: parseNatsUrls(server.url) });
    const forged = { seq: 1, recorded_at: row.recorded_at, columns: { subject: 's', amount: 1 }, payload: '"forged"', sha256: 'f'.repeat(64), prev_sha256: row.prev_sha256 };
    const outcome = await createStreamApi(client).publish('airlock.evidence.twice.receipts', encodeEvidenceRow(forged), { headers: { 'Nats-Msg-Id': 'other-host' }, timeoutMs: 2000 });
    assert.equal(outcome.ok, true);
    await client.close();
    const target = join(dir, 'd');
    const restored = await run('evidence_restore.ts', ['--service', 'twice', '--nats', server.url, '--data-dir', target]);
    assert.equal(restored.status, 1, restored.stderr);
    assert.equal(existsSync(join(target, 'twice.sqlite')), false);
    assert.match(restored.stdout, /two different rows for seq 1 of "airlock\.evidence\.twice\.receipts".*two hosts wrote this chain/);
  });

  test('a second copy of a row that claims its sha256 but carries another payload is two rows for one seq: restore and verify refuse it', async () => {
    mkdirSync(join(dir, 'f'));
    const store = openDatabase(join(dir, 'f', 'copied.sqlite'), { evidenceTables: [RECEIPTS], replication: { config: config(), service: 'copied' } });
    const row = await store.append(RECEIPTS, { subject: 's', amount: 1, payload: { amount: '1.00' } });
    await store.append(RECEIPTS, { subject: 's', amount: 2, payload: { amount: '2.00' } });
    await store.close();
    // The tamperer copies row 1 with its hashes and changes the payload: the copy is not the first
    // message of seq 1, so a check that only compares the claimed sha256 takes it for a re-send.
    const client = await connectNats({ servers: parseNatsUrls(server.url) });
    const tampered = { seq: 1, recorded_at: row.recorded_at, columns: { subject: 's', amount: 1 }, payload: '{"amount":"9999.00"}', sha256: row.sha256, prev_sha256: row.prev_sha256 };
    const outcome = await createStreamApi(client).publish('airlock.evidence.copied.receipts', encodeEvidenceRow(tampered), { headers: { 'Nats-Msg-Id': 'tamperer' }, timeoutMs: 2000 });
    assert.equal(outcome.ok, true);
    await client.close();
    const target = join(dir, 'g');
    const restored = await run('evidence_restore.ts', ['--service', 'copied', '--nats', server.url, '--data-dir', target]);
    assert.equal(restored.status, 1, restored.stdout + restored.stderr);
    assert.equal(existsSync(join(target, 'copied.sqlite')), false);
    assert.match(restored.stdout, /two different rows for seq 1 of "airlock\.evidence\.copied\.receipts"/);
    const verified = await run('verify_evidence_chain.ts', ['--nats', server.url, '--service', 'copied']);
    assert.equal(verified.status, 1, verified.stdout + verified.stderr);
    assert.match(verified.stdout + verified.stderr, /two different rows for seq 1/);
  });

  test('verify --nats --db also verifies the local rows: a tampered row under heads that agree is exit 1', async () => {
    mkdirSync(join(dir, 'h'));
    const file = join(dir, 'h', 'tampered.sqlite');
    const store = openDatabase(file, { evidenceTables: [RECEIPTS], replication: { config: config(), service: 'tampered' } });
    for (let i = 0; i < 3; i++) await store.append(RECEIPTS, { subject: 's', amount: i, payload: { i } });
    await store.close();
    const db = new DatabaseSync(file);
    for (const trigger of db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'receipts'").all()) db.exec(`DROP TRIGGER ${String(trigger['name'])}`);
    db.exec(`UPDATE receipts SET payload = '{"i":9}' WHERE seq = 1`);
    db.close();
    const verified = await run('verify_evidence_chain.ts', ['--nats', server.url, '--service', 'tampered', '--db', file]);
    assert.equal(verified.status, 1, verified.stdout + verified.stderr);
    assert.match(verified.stdout, /receipts: heads agree/);
    assert.match(verified.stdout, /local receipts: broken at seq 1/);
  });

  test('usage and environment errors exit 2 with the reason', async () => {
    // Runs after the tests above: the stream exists, with no evidence of "nobody".
    const none = await run('evidence_restore.ts', ['--service', 'nobody', '--nats', server.url, '--data-dir', join(dir, 'e')]);
    assert.equal(none.status, 2);
    assert.match(none.stderr, /holds no evidence of service "nobody"/);
    const missing = await run('evidence_restore.ts', ['--nats', server.url, '--data-dir', join(dir, 'e')]);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /Missing --service NAME/);
    const badUrl = await run('verify_evidence_chain.ts', ['--nats', 'http://x', '--service', 'demo']);
    assert.equal(badUrl.status, 2);
    assert.match(badUrl.stderr, /Invalid --nats/);
    const unreachable = await run('evidence_restore.ts', ['--service', 'demo', '--nats', 'nats://127.0.0.1:1', '--data-dir', join(dir, 'e')]);
    assert.equal(unreachable.status, 2);
    assert.match(unreachable.stderr, /Cannot reach the NATS cluster at nats:\/\/127\.0\.0\.1:1/);
  });
});
