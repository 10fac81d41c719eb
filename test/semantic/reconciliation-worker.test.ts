import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../src/kernel/index.ts';
import type { ReadbackPayload } from '../../src/semantic/control-schema.ts';
import { enqueueRecords } from '../../src/semantic/ingest-inbox.ts';
import { startReconciliationWorker } from '../../src/semantic/reconciliation-worker.ts';
import { lines, nodeRecord, testStore } from './fixtures/semantic-fixtures.ts';

const quiet = createLogger({ write: () => {} });

test('startReconciliationWorker() drains a backlog in batches of at most its batch size, back to back', async (t) => {
  const store = testStore(t);
  await enqueueRecords(store, lines(...Array.from({ length: 25 }, (_, i) => nodeRecord({ record_id: `r${i}`, node_id: `n${i}` }))), { source: 'test' });
  const runs: ReadbackPayload[] = [];
  let drained!: () => void;
  const done = new Promise<void>((resolve) => (drained = resolve));
  const started = Date.now();
  const worker = startReconciliationWorker({
    store, batchSize: 10, intervalMs: 60_000, log: quiet,
    onRun: (run) => {
      runs.push(run);
      if (run.backlog_remaining === 0) drained();
    },
  });
  await done;
  assert.ok(Date.now() - started < 30_000, 'no interval between batches while a backlog remains');
  assert.deepEqual(runs.map((r) => [r.taken, r.backlog_remaining]), [[10, 15], [10, 5], [5, 0]]);
  await worker.stop();
});

test('startReconciliationWorker() picks up new records after its interval and stops at once while sleeping', async (t) => {
  const store = testStore(t);
  const runs: ReadbackPayload[] = [];
  let ran!: () => void;
  const first = new Promise<void>((resolve) => (ran = resolve));
  const worker = startReconciliationWorker({ store, batchSize: 5, intervalMs: 50, log: quiet, onRun: (run) => { runs.push(run); ran(); } });
  await new Promise((resolve) => setTimeout(resolve, 120));
  assert.equal(runs.length, 0, 'an empty inbox produces no run and no snapshot');
  await enqueueRecords(store, lines(nodeRecord()), { source: 'test' });
  await first;
  assert.equal(runs[0]?.taken, 1);
  const stopping = Date.now();
  await worker.stop();
  assert.ok(Date.now() - stopping < 1000);
});

test('startReconciliationWorker() logs a failed batch and keeps running', async (t) => {
  const store = testStore(t);
  const logged: string[] = [];
  await enqueueRecords(store, lines(nodeRecord()), { source: 'test' });
  store.sqlite.exec("CREATE TRIGGER refuse BEFORE INSERT ON graph_nodes BEGIN SELECT RAISE(ABORT, 'refused for the test'); END");
  const worker = startReconciliationWorker({ store, batchSize: 5, intervalMs: 20, log: createLogger({ write: (l) => void logged.push(l) }) });
  await new Promise((resolve) => setTimeout(resolve, 150));
  assert.ok(logged.some((l) => l.includes('reconciliation run failed') && l.includes('refused for the test')));
  store.sqlite.exec('DROP TRIGGER refuse');
  await new Promise((resolve) => setTimeout(resolve, 150));
  await worker.stop();
  assert.equal(Number(store.sqlite.prepare('SELECT count(*) AS n FROM graph_nodes').get()?.['n']), 1, 'the same record succeeded on a later run');
});
