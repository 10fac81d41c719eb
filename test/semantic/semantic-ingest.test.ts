import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openControlDatabase } from '../../src/semantic/control-schema.ts';
import { MAX_RECORD_BYTES, parseJsonLines } from '../../src/semantic/ingest-inbox.ts';
import { nodeRecord, tempDir } from './fixtures/semantic-fixtures.ts';
import { compileCache } from '../helpers/compile-cache.ts';

const MAIN = fileURLToPath(new URL('../../src/semantic/main-ingest.ts', import.meta.url));

function ingest(dir: string, args: string[]) {
  return spawnSync(process.execPath, [MAIN, ...args], { env: { PATH: process.env['PATH'] ?? '', ...compileCache(), AIRLOCK_DATA_DIR: dir }, encoding: 'utf8', timeout: 20_000 });
}

function inboxCount(dir: string): number {
  const store = openControlDatabase(join(dir, 'semantic.sqlite'));
  try {
    return Number(store.sqlite.prepare('SELECT count(*) AS n FROM ingest_inbox').get()?.['n']);
  } finally {
    void store.close();
  }
}

test('parseJsonLines() keeps JSON objects, skips blank lines and names every bad line', () => {
  assert.deepEqual(parseJsonLines('{"a":1}\n\n{"b":2}\r\n'), { records: ['{"a":1}', '{"b":2}'], reasons: [] });
  const { reasons } = parseJsonLines(`{"a":1}\n[1]\n"x"\nnot json\n${JSON.stringify({ big: 'x'.repeat(MAX_RECORD_BYTES) })}\n`);
  assert.equal(reasons.length, 4);
  assert.deepEqual(reasons.map((r) => r.slice(0, 7)), ['line 2:', 'line 3:', 'line 4:', 'line 5:']);
});

test('semantic-ingest enqueues every record of a file, including ones the worker will quarantine', (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'records.jsonl');
  writeFileSync(file, [nodeRecord(), nodeRecord({ record_id: 'no-domain', isolation_domain_ref: undefined })].map((r) => JSON.stringify(r)).join('\n'));
  const run = ingest(dir, [file, '--json']);
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), { ok: true, enqueued: 2, duplicates: 0, first_seq: 1, last_seq: 2 });
  assert.equal(inboxCount(dir), 2);
});

test('semantic-ingest enqueues nothing when a line is bad (exit 1), and exits 2 for a missing file or no argument', (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'records.jsonl');
  writeFileSync(file, `${JSON.stringify(nodeRecord())}\nnot json\n`);
  const bad = ingest(dir, [file]);
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /nothing enqueued, 1 bad lines .*\n {2}line 2: not JSON/);
  assert.equal(inboxCount(dir), 0);
  assert.equal(ingest(dir, [join(dir, 'absent.jsonl')]).status, 2);
  assert.equal(ingest(dir, []).status, 2);
  assert.equal(ingest(dir, ['--help']).status, 0);
});

test('parseJsonLines() refuses values the inbox could not keep as given', () => {
  const { records, reasons } = parseJsonLines('{"tenant_id":"a\\udfff"}\n{"n":1e400}\n{"n":9007199254740993}\n{"n":1.5}\n');
  assert.deepEqual(records, ['{"n":1.5}']);
  assert.deepEqual(reasons.map((r) => r.slice(0, 7)), ['line 1:', 'line 2:', 'line 3:']);
});

test('semantic-ingest refuses a file that is not valid UTF-8 (exit 1) and enqueues nothing', (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'records.jsonl');
  const line = JSON.stringify(nodeRecord());
  writeFileSync(file, Buffer.concat([Buffer.from(line.replace('tenant-a', 'tenant-')), Buffer.from([0xff]), Buffer.from('\n')]));
  const run = ingest(dir, [file]);
  assert.equal(run.status, 1);
  assert.match(run.stderr, /is not valid UTF-8/);
  assert.equal(inboxCount(dir), 0);
});

test('semantic-ingest of the same file twice is a no-op; the same record_id with other content is quarantined as a conflict', async (t) => {
  const { reconcileOnce } = await import('../../src/semantic/reconcile.ts');
  const dir = tempDir(t);
  const file = join(dir, 'records.jsonl');
  const records = [nodeRecord(), nodeRecord({ record_id: 'no-domain', node_id: 'n9', isolation_domain_ref: undefined })];
  writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n'));
  assert.equal(ingest(dir, [file]).status, 0);
  const store = openControlDatabase(join(dir, 'semantic.sqlite'));
  t.after(() => store.close());
  await reconcileOnce(store, { batchSize: 10 });
  const again = ingest(dir, [file, '--json']);
  assert.equal(again.status, 0, again.stderr);
  assert.deepEqual(JSON.parse(again.stdout), { ok: true, enqueued: 0, duplicates: 2, first_seq: null, last_seq: null });
  // Key order is not content: the same record written another way is still the same record.
  const reordered = join(dir, 'reordered.jsonl');
  writeFileSync(reordered, JSON.stringify(Object.fromEntries(Object.entries(nodeRecord()).reverse())));
  assert.equal(JSON.parse(ingest(dir, [reordered, '--json']).stdout).duplicates, 1);
  assert.equal(inboxCount(dir), 2, 'no inbox row doubled');
  assert.equal(await reconcileOnce(store, { batchSize: 10 }), undefined, 'nothing new to decide, so no quarantine doubled');
  const changed = join(dir, 'changed.jsonl');
  writeFileSync(changed, JSON.stringify(nodeRecord({ label: 'Changed' })));
  assert.equal(JSON.parse(ingest(dir, [changed, '--json']).stdout).enqueued, 1);
  const run = await reconcileOnce(store, { batchSize: 10 });
  assert.deepEqual([run?.merged, run?.quarantined], [0, 1]);
  const outcome = store.sqlite.prepare('SELECT state, reason, record_id FROM ingest_outcomes WHERE inbox_seq = 3').get();
  assert.deepEqual({ ...outcome }, { state: 'QUARANTINED', reason: 'record_id_conflict', record_id: 'r-node-1' });
  assert.equal(store.sqlite.prepare('SELECT label FROM graph_nodes').get()?.['label'], 'Payment', 'the first version stays; the conflict did not win');
});

test('a decided record keeps no raw tenant id in the inbox: its tenant hash instead', async (t) => {
  const { reconcileOnce } = await import('../../src/semantic/reconcile.ts');
  const { tenantHash } = await import('../../src/semantic/tenant-hash.ts');
  const dir = tempDir(t);
  const file = join(dir, 'records.jsonl');
  writeFileSync(file, [nodeRecord({ tenant_id: 'raw-tenant-merged' }), nodeRecord({ record_id: 'q', tenant_id: 'raw-tenant-quarantined', isolation_domain_ref: 'nowhere' })].map((r) => JSON.stringify(r)).join('\n'));
  assert.equal(ingest(dir, [file]).status, 0);
  const store = openControlDatabase(join(dir, 'semantic.sqlite'));
  t.after(() => store.close());
  const undecided = store.sqlite.prepare('SELECT group_concat(record) AS all_records FROM ingest_inbox').get()?.['all_records'];
  assert.match(String(undecided), /raw-tenant-merged/, 'the worker still needs it before deciding');
  await reconcileOnce(store, { batchSize: 10 });
  const rows = store.sqlite.prepare('SELECT record FROM ingest_inbox ORDER BY seq').all().map((r) => JSON.parse(String(r['record'])) as Record<string, unknown>);
  assert.ok(!JSON.stringify(rows).includes('raw-tenant'), 'no raw tenant id left after the decision');
  assert.deepEqual(rows.map((r) => [r['tenant_id'], r['tenant_hash']]), [[undefined, tenantHash('raw-tenant-merged')], [undefined, tenantHash('raw-tenant-quarantined')]]);
  assert.equal(rows[0]!['isolation_domain_ref'], 'payments', 'the rest of the record stays for audits');
});
