import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../src/kernel/index.ts';
import type { ReadbackPayload } from '../../src/semantic/control-schema.ts';
import { enqueueRecords } from '../../src/semantic/ingest-inbox.ts';
import { startReconciliationWorker } from '../../src/semantic/reconciliation-worker.ts';
import { lines, nodeRecord, testStore } from './fixtures/semantic-fixtures.ts';
import { compileCache } from '../helpers/compile-cache.ts';

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
  store.sqlite.exec("CREATE TRIGGER refuse BEFORE INSERT ON event_outbox BEGIN SELECT RAISE(ABORT, 'refused for the test'); END");
  const worker = startReconciliationWorker({ store, batchSize: 5, intervalMs: 20, log: createLogger({ write: (l) => void logged.push(l) }) });
  await new Promise((resolve) => setTimeout(resolve, 150));
  assert.ok(logged.some((l) => l.includes('reconciliation run failed') && l.includes('refused for the test')));
  store.sqlite.exec('DROP TRIGGER refuse');
  await new Promise((resolve) => setTimeout(resolve, 150));
  await worker.stop();
  assert.equal(Number(store.sqlite.prepare('SELECT count(*) AS n FROM graph_nodes').get()?.['n']), 1, 'the same record succeeded on a later run');
});

// A tampered graph schema: an extra index on a covered table changes the schema hash.
function tamper(store: import('../../src/kernel/index.ts').Store): void {
  store.sqlite.exec('CREATE INDEX tampered ON graph_nodes (label)');
}

test('startReconciliationWorker() fails closed when schema integrity fails: nothing merged, reason logged, failure kept', async (t) => {
  const store = testStore(t);
  await enqueueRecords(store, lines(nodeRecord()), { source: 'test' });
  tamper(store);
  const logged: string[] = [];
  const worker = startReconciliationWorker({ store, batchSize: 5, intervalMs: 20, log: createLogger({ write: (l) => void logged.push(l) }) });
  await worker.stopped;
  assert.match(worker.failure ?? '', /schema integrity failed: schema object "tampered" \(index\) is not expected/);
  assert.ok(logged.some((l) => l.includes('reconciliation refused: schema integrity failed') && l.includes('tampered')));
  assert.equal(Number(store.sqlite.prepare('SELECT count(*) AS n FROM graph_nodes').get()?.['n']), 0, 'nothing merged');
  assert.equal(Number(store.sqlite.prepare('SELECT count(*) AS n FROM ingest_outcomes').get()?.['n']), 0, 'nothing decided');
});

test('semantic-worker exits 1 and merges nothing when schema integrity fails, resident or --once', async (t) => {
  const { spawnSync } = await import('node:child_process');
  const { join } = await import('node:path');
  const { fileURLToPath } = await import('node:url');
  const { openControlDatabase } = await import('../../src/semantic/control-schema.ts');
  const { tempDir } = await import('./fixtures/semantic-fixtures.ts');
  const dir = tempDir(t);
  const store = openControlDatabase(join(dir, 'semantic.sqlite'));
  await enqueueRecords(store, lines(nodeRecord()), { source: 'test' });
  tamper(store);
  await store.close();
  const main = fileURLToPath(new URL('../../src/semantic/main-worker.ts', import.meta.url));
  for (const args of [[], ['--once'], ['--once', '--json']]) {
    const run = spawnSync(process.execPath, [main, ...args], { env: { PATH: process.env['PATH'] ?? '', ...compileCache(), AIRLOCK_DATA_DIR: dir }, encoding: 'utf8', timeout: 20_000 });
    assert.equal(run.status, 1, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, /reconciliation refused: schema integrity failed.*tampered/);
    if (args.includes('--json')) assert.equal(JSON.parse(run.stdout).ok, false);
  }
  const reopened = openControlDatabase(join(dir, 'semantic.sqlite'));
  t.after(() => reopened.close());
  assert.equal(Number(reopened.sqlite.prepare('SELECT count(*) AS n FROM graph_nodes').get()?.['n']), 0, 'nothing merged');
});
