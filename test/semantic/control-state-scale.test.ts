// Issue 24: readiness re-reads the control state after every change of the database, and the
// status readback shows the inbox counts; neither may grow with the inbox. No inbox or outcome
// row is counted: the counts are last seqs and the counters the worker keeps, the same SQLite
// steps at 30 records as at 3000. The worker's backlog is not counted either.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { TestContext } from 'node:test';
import type { Store } from '../../src/kernel/index.ts';
import { openControlDatabase } from '../../src/semantic/control-schema.ts';
import { createControlStateReader } from '../../src/semantic/control-state.ts';
import { putRecords } from '../../src/semantic/ingest-inbox.ts';
import { lastInboxSeq, reconcileOnce } from '../../src/semantic/reconcile.ts';

/** `sqlite` with every SQL text it prepares recorded in `seen`. */
function recording(sqlite: DatabaseSync, seen: string[]): DatabaseSync {
  return new Proxy(sqlite, {
    get(target, property) {
      if (property === 'prepare') {
        return (sql: string) => {
          seen.push(sql);
          return target.prepare(sql);
        };
      }
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

test('the control state counts no inbox or outcome row, for readiness or for the readback', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-semantic-state-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const store = openControlDatabase(join(dir, 'semantic.sqlite'));
  t.after(() => store.close());
  const insert = store.sqlite.prepare("INSERT INTO ingest_inbox (received_at, source, record) VALUES ('2026-01-01T00:00:00Z', 'test', '{}')");
  store.sqlite.exec('BEGIN');
  for (let i = 0; i < 3000; i++) insert.run();
  store.sqlite.exec('COMMIT');
  const seen: string[] = [];
  const state = createControlStateReader(recording(store.sqlite, seen)).current();
  // What readiness reads: the integrity receipt and the latest snapshot.
  assert.equal(state.integrity.status, 'pass');
  assert.equal(state.snapshot, undefined);
  assert.deepEqual(seen.filter((sql) => /count\(\*\)/i.test(sql)), []);
  assert.deepEqual(state.chains.map((chain) => chain.rows), [0, 0]);
  assert.equal(state.inbox.records, 3000);
  assert.equal(state.inbox.undecided, 3000);
  assert.deepEqual(JSON.parse(JSON.stringify(state.inbox)), { records: 3000, undecided: 3000, merged: 0, quarantined: 0 });
  assert.deepEqual(seen.filter((sql) => /count\(\*\)/i.test(sql)), []);
});

/** A control database with `count` records ingested and all but the last `waiting` decided by the worker. */
async function decidedStore(t: TestContext, count: number, waiting: number) {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-semantic-state-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const store = openControlDatabase(join(dir, 'semantic.sqlite'));
  t.after(() => store.close());
  // Every tenth record has no isolation domain: quarantined.
  const record = (n: number) => JSON.stringify({ record_id: `r${n}`, tenant_id: 'tenant-a', kind: 'node', node_id: `n${n}`, label: 'L', properties: {}, ...(n % 10 !== 9 && { isolation_domain_ref: 'payments' }) });
  await putRecords(store, Array.from({ length: count - waiting }, (_, n) => record(n)), { source: 'test' });
  // Three worker runs whatever the size, so both stores hold as many readback and receipt rows.
  while (await reconcileOnce(store, { batchSize: Math.max(1, Math.ceil((count - waiting) / 3)) }) !== undefined);
  await putRecords(store, Array.from({ length: waiting }, (_, n) => record(count - waiting + n)), { source: 'test' });
  return store;
}

/** The state read fresh over `sqlite`, with the SQLite steps of every statement it ran. */
function stateWithSteps(sqlite: DatabaseSync) {
  const statements: StatementSync[] = [];
  const counting = new Proxy(sqlite, {
    get(target, property) {
      if (property === 'prepare') return (sql: string) => (statements.push(target.prepare(sql)), statements.at(-1)!);
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const state = createControlStateReader(counting).current();
  const inbox = { ...state.inbox };
  const steps = statements.reduce((sum, s) => sum + (s as unknown as { stat(c: 'vmStep'): number }).stat('vmStep'), 0);
  return { inbox, steps };
}

test('the status counts cost the same steps at 30 and at 3000 inbox records, and are exact', async (t) => {
  const small = stateWithSteps((await decidedStore(t, 30, 5)).sqlite);
  const large = stateWithSteps((await decidedStore(t, 3000, 5)).sqlite);
  assert.deepEqual(small.inbox, { records: 30, undecided: 5, merged: 23, quarantined: 2 });
  assert.deepEqual(large.inbox, { records: 3000, undecided: 5, merged: 2696, quarantined: 299 });
  assert.equal(large.steps, small.steps, `steps at 3000 records ${large.steps}, at 30 ${small.steps}`);
});

test('the worker\'s backlog is the last inbox seq less its cursor, not a count of what waits', async (t) => {
  const store = await decidedStore(t, 0, 0);
  await putRecords(store, Array.from({ length: 2500 }, (_, n) => JSON.stringify({ record_id: `r${n}`, tenant_id: 't', isolation_domain_ref: 'payments', kind: 'node', node_id: `n${n}`, label: 'L', properties: {} })), { source: 'test' });
  const seen: string[] = [];
  const view = Object.create(store, { sqlite: { value: recording(store.sqlite, seen) } }) as Store;
  const run = await reconcileOnce(view, { batchSize: 100 });
  assert.equal(run?.backlog_remaining, 2400);
  assert.deepEqual(seen.filter((sql) => /count\(\*\)/i.test(sql)), []);
  assert.equal(lastInboxSeq(store.sqlite), 2500);
});

test('a control database of the previous version gets its outcome counters filled from its outcomes', async (t) => {
  const store = await decidedStore(t, 40, 0);
  const path = store.path;
  store.sqlite.exec('DROP TABLE ingest_outcome_counts; PRAGMA user_version = 3');
  await store.close();
  const reopened = openControlDatabase(path);
  t.after(() => reopened.close());
  assert.deepEqual({ ...createControlStateReader(reopened.sqlite).current().inbox }, { records: 40, undecided: 0, merged: 36, quarantined: 4 });
});
