import { test } from 'node:test';
import assert from 'node:assert/strict';
import { verifyAllChains } from '../../src/kernel/index.ts';
import { READBACK_TABLE, RECEIPTS_TABLE } from '../../src/semantic/control-schema.ts';
import { readOutbox, payloadValidator } from '../../src/semantic/event-outbox.ts';
import { enqueueRecords } from '../../src/semantic/ingest-inbox.ts';
import { reconcileOnce } from '../../src/semantic/reconcile.ts';
import { tenantHash } from '../../src/semantic/tenant-hash.ts';
import { edgeRecord, lines, nodeRecord, testStore } from './fixtures/semantic-fixtures.ts';

test('reconcileOnce() writes nothing when the inbox has nothing undecided', async (t) => {
  const store = testStore(t);
  assert.equal(await reconcileOnce(store, { batchSize: 10 }), undefined);
  assert.equal(store.readRows(READBACK_TABLE).length, 0);
  assert.equal(readOutbox(store.sqlite).length, 0);
});

test('reconcileOnce() takes at most the batch size, oldest first, and reports the backlog', async (t) => {
  const store = testStore(t);
  const records = Array.from({ length: 25 }, (_, i) => nodeRecord({ record_id: `r${i}`, node_id: `n${i}` }));
  await enqueueRecords(store, lines(...records), { source: 'test' });
  const first = await reconcileOnce(store, { batchSize: 10 });
  assert.deepEqual({ taken: first?.taken, cursor: first?.inbox_cursor, backlog: first?.backlog_remaining, limit: first?.batch_limit }, { taken: 10, cursor: 10, backlog: 15, limit: 10 });
  assert.equal(Number(store.sqlite.prepare('SELECT count(*) AS n FROM ingest_outcomes').get()?.['n']), 10);
  assert.equal(Number(store.sqlite.prepare('SELECT count(*) AS n FROM graph_nodes').get()?.['n']), 10);
  const second = await reconcileOnce(store, { batchSize: 10 });
  const third = await reconcileOnce(store, { batchSize: 10 });
  assert.deepEqual([second?.run_id, third?.run_id, third?.taken, third?.backlog_remaining], ['recon-11-20', 'recon-21-25', 5, 0]);
  assert.equal(await reconcileOnce(store, { batchSize: 10 }), undefined);
});

test('reconcileOnce() refuses a batch size outside 1..1000', async (t) => {
  const store = testStore(t);
  for (const size of [0, 1001, 2.5]) await assert.rejects(reconcileOnce(store, { batchSize: size }), /Invalid batch size/);
});

test('reconcileOnce() quarantines a record without or with an unknown domain and merges nothing for it', async (t) => {
  const store = testStore(t);
  await enqueueRecords(store, lines(
    nodeRecord({ record_id: 'ok', node_id: 'n-ok' }),
    nodeRecord({ record_id: 'missing', node_id: 'n-missing', isolation_domain_ref: undefined }),
    nodeRecord({ record_id: 'unknown', node_id: 'n-unknown', isolation_domain_ref: 'everything' }),
  ), { source: 'test' });
  const run = await reconcileOnce(store, { batchSize: 10 });
  assert.deepEqual([run?.merged, run?.quarantined], [1, 2]);
  const outcomes = store.sqlite.prepare('SELECT record_id, state, reason, isolation_domain_ref FROM ingest_outcomes ORDER BY inbox_seq').all();
  assert.deepEqual(outcomes.map((o) => ({ ...o })), [
    { record_id: 'ok', state: 'MERGED', reason: null, isolation_domain_ref: 'payments' },
    { record_id: 'missing', state: 'QUARANTINED', reason: 'isolation_domain_ref_missing', isolation_domain_ref: null },
    { record_id: 'unknown', state: 'QUARANTINED', reason: 'isolation_domain_ref_unknown', isolation_domain_ref: null },
  ]);
  const nodes = store.sqlite.prepare('SELECT node_id, isolation_domain_ref FROM graph_nodes').all();
  assert.deepEqual(nodes.map((n) => ({ ...n })), [{ node_id: 'n-ok', isolation_domain_ref: 'payments' }], 'no permissive default placed the others anywhere');
});

test('reconcileOnce() persists the declared domain, keeping one node id per compartment', async (t) => {
  const store = testStore(t);
  await enqueueRecords(store, lines(
    nodeRecord({ record_id: 'a', isolation_domain_ref: 'payments' }),
    nodeRecord({ record_id: 'b', isolation_domain_ref: 'customer_relationship' }),
    nodeRecord({ record_id: 'c', isolation_domain_ref: 'payments', label: 'Refund' }),
  ), { source: 'test' });
  await reconcileOnce(store, { batchSize: 10 });
  const nodes = store.sqlite.prepare('SELECT isolation_domain_ref, node_id, label, source_record_id, tenant_hash FROM graph_nodes ORDER BY isolation_domain_ref').all();
  assert.deepEqual(nodes.map((n) => ({ ...n })), [
    { isolation_domain_ref: 'customer_relationship', node_id: 'n1', label: 'Payment', source_record_id: 'b', tenant_hash: tenantHash('tenant-a') },
    { isolation_domain_ref: 'payments', node_id: 'n1', label: 'Refund', source_record_id: 'c', tenant_hash: tenantHash('tenant-a') },
  ]);
});

test('the control database refuses a domain outside the contract through its CHECK constraint', (t) => {
  const store = testStore(t);
  assert.throws(
    () => store.sqlite.prepare("INSERT INTO graph_nodes VALUES (?, 'default', 'n', 'L', '{}', 'r', 1)").run(tenantHash('t')),
    /CHECK constraint failed/,
  );
});

test('reconcileOnce() holds an edge hidden until both ends exist in its compartment, then restores it', async (t) => {
  const store = testStore(t);
  await enqueueRecords(store, lines(
    nodeRecord({ record_id: 'n1', node_id: 'n1' }),
    edgeRecord({ record_id: 'e1', edge_id: 'e1', from: 'n1', to: 'n2' }),
    nodeRecord({ record_id: 'n2-elsewhere', node_id: 'n2', isolation_domain_ref: 'procurement' }),
  ), { source: 'test' });
  const first = await reconcileOnce(store, { batchSize: 10 });
  assert.deepEqual([first?.edges_hidden, first?.edges_restored], [1, 0]);
  const visible = () => store.sqlite.prepare("SELECT visible FROM graph_edges WHERE edge_id = 'e1'").get()?.['visible'];
  assert.equal(visible(), 0, 'n2 exists only in another compartment');
  await enqueueRecords(store, lines(nodeRecord({ record_id: 'n2', node_id: 'n2' })), { source: 'test' });
  const second = await reconcileOnce(store, { batchSize: 10 });
  assert.deepEqual([second?.edges_hidden, second?.edges_restored], [0, 1]);
  assert.equal(visible(), 1);
  const repairs = store.readRows(RECEIPTS_TABLE, { where: { kind: 'visibility_repair' } });
  assert.deepEqual(repairs.map((r) => r.payload.items.map((i) => [i['action'], i['edge_id'], i['missing'] ?? null])), [[['held_hidden', 'e1', ['to']]], [['restored', 'e1', null]]]);
});

test('reconcileOnce() makes an edge visible at once when its ends arrive later in the same batch', async (t) => {
  const store = testStore(t);
  await enqueueRecords(store, lines(edgeRecord(), nodeRecord({ record_id: 'x1', node_id: 'n1' }), nodeRecord({ record_id: 'x2', node_id: 'n2' })), { source: 'test' });
  const run = await reconcileOnce(store, { batchSize: 10 });
  assert.deepEqual([run?.edges_hidden, run?.edges_restored], [0, 0]);
  assert.equal(store.sqlite.prepare('SELECT visible FROM graph_edges').get()?.['visible'], 1);
});

test('reconcileOnce() records receipts and a snapshot on intact hash chains, and emits events that match the AsyncAPI schemas', async (t) => {
  const store = testStore(t);
  await enqueueRecords(store, lines(nodeRecord(), nodeRecord({ record_id: 'bad', isolation_domain_ref: 'nope' }), edgeRecord()), { source: 'test' });
  const run = await reconcileOnce(store, { batchSize: 10 });
  const [snapshot] = store.readRows(READBACK_TABLE);
  assert.deepEqual(snapshot?.payload, run);
  assert.deepEqual(store.readRows(RECEIPTS_TABLE).map((r) => [r.kind, r.payload.counts]), [
    ['admission', { taken: 3, merged: 2, quarantined: 1 }],
    ['visibility_repair', { hidden: 1, restored: 0 }],
  ]);
  for (const chain of verifyAllChains(store.sqlite)) assert.ok(chain.ok, JSON.stringify(chain));
  const events = readOutbox(store.sqlite);
  assert.deepEqual(events.map((e) => e.channel), ['semantic.ingest.record_quarantined', 'semantic.reconciliation.run_completed']);
  for (const event of events) {
    const result = payloadValidator(event.channel).validate(event.payload);
    assert.ok(result.valid, JSON.stringify(result.errors));
  }
  assert.equal(events[0]?.payload['reason'], 'isolation_domain_ref_unknown');
});

test('reconcileOnce() commits nothing of a batch when a second worker already decided its records', async (t) => {
  const store = testStore(t);
  await enqueueRecords(store, lines(nodeRecord()), { source: 'test' });
  // Another worker decides seq 1 between this worker's plan and its commit.
  const planned = reconcileOnce(store, { batchSize: 10 });
  store.sqlite.prepare("INSERT INTO ingest_outcomes VALUES (1, 'r-node-1', 'QUARANTINED', 'record_invalid', NULL, 'other')").run();
  await assert.rejects(planned, /UNIQUE constraint failed: ingest_outcomes.inbox_seq/);
  assert.equal(store.readRows(READBACK_TABLE).length, 0, 'no snapshot');
  assert.equal(store.readRows(RECEIPTS_TABLE).length, 0, 'no receipt');
  assert.equal(Number(store.sqlite.prepare('SELECT count(*) AS n FROM graph_nodes').get()?.['n']), 0, 'no merge');
  assert.equal(readOutbox(store.sqlite).length, 0, 'no event');
});

test('reconcileOnce() scopes record_id by tenant: another tenant\'s record with the same id neither quarantines nor shadows this one', async (t) => {
  const store = testStore(t);
  const { putRecords } = await import('../../src/semantic/ingest-inbox.ts');
  const a = nodeRecord({ record_id: 'shared-id', tenant_id: 'tenant-a', node_id: 'n1', label: 'A' });
  const b = nodeRecord({ record_id: 'shared-id', tenant_id: 'tenant-b', node_id: 'n1', label: 'B' });
  assert.equal((await putRecords(store, lines(a, b), { source: 'test' })).seqs.length, 2, 'two tenants, two records');
  const run = await reconcileOnce(store, { batchSize: 10 });
  assert.deepEqual([run?.merged, run?.quarantined], [2, 0]);
  const labels = store.sqlite.prepare('SELECT tenant_hash, label FROM graph_nodes ORDER BY label').all().map((r) => [r['tenant_hash'], r['label']]);
  assert.deepEqual(labels, [[tenantHash('tenant-a'), 'A'], [tenantHash('tenant-b'), 'B']]);
  // Each tenant's own re-ingest is still a no-op, and its own changed content still a conflict.
  assert.equal((await putRecords(store, lines(b), { source: 'test' })).duplicates, 1);
  await putRecords(store, lines({ ...b, label: 'B2' }), { source: 'test' });
  const conflict = await reconcileOnce(store, { batchSize: 10 });
  assert.deepEqual([conflict?.merged, conflict?.quarantined], [0, 1]);
  assert.equal(store.sqlite.prepare('SELECT reason FROM ingest_outcomes WHERE inbox_seq = 3').get()?.['reason'], 'record_id_conflict');
  assert.deepEqual(store.sqlite.prepare('SELECT label FROM graph_nodes ORDER BY label').all().map((r) => r['label']), ['A', 'B'], 'tenant A is untouched');
});

test('the control database migration scopes existing inbox rows by tenant: decided rows from their tenant hash, undecided ones from their tenant id', async (t) => {
  const { DatabaseSync } = await import('node:sqlite');
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { openControlDatabase, CONTROL_MIGRATIONS } = await import('../../src/semantic/control-schema.ts');
  const dir = mkdtempSync(join(tmpdir(), 'airlock-semantic-migrate-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'semantic.sqlite');
  const old = new DatabaseSync(file);
  for (const migration of CONTROL_MIGRATIONS.slice(0, 2)) old.exec(migration.up as string);
  old.exec('PRAGMA user_version = 2');
  const insert = old.prepare('INSERT INTO ingest_inbox (received_at, source, record, record_id, content_sha256) VALUES (?, ?, ?, ?, ?)');
  insert.run('2026-01-01T00:00:00Z', 'old', JSON.stringify({ record_id: 'r1', tenant_hash: tenantHash('tenant-a') }), 'r1', 'x'.repeat(64));
  insert.run('2026-01-01T00:00:00Z', 'old', JSON.stringify({ record_id: 'r1', tenant_id: 'tenant-b' }), 'r1', 'y'.repeat(64));
  old.exec("INSERT INTO ingest_outcomes (inbox_seq, record_id, state, reason, isolation_domain_ref, run_id) VALUES (1, 'r1', 'QUARANTINED', 'record_invalid', NULL, 'recon-1-1')");
  old.close();
  const store = openControlDatabase(file);
  t.after(() => store.close());
  const hashes = store.sqlite.prepare('SELECT seq, tenant_hash FROM ingest_inbox ORDER BY seq').all().map((r) => r['tenant_hash']);
  assert.deepEqual(hashes, [tenantHash('tenant-a'), tenantHash('tenant-b')]);
});
