import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { isAirlockError } from '../../src/kernel/errors.ts';
import { openDatabase } from '../../src/kernel/store/open-database.ts';
import { GENESIS_SHA256 } from '../../src/kernel/store/row-hash.ts';
import { verifyAllChains } from '../../src/kernel/store/verify-chain.ts';
import { RECEIPTS, tempDir } from './fixtures/store-fixtures.ts';

function appendMany(store: ReturnType<typeof openDatabase>, count: number) {
  return Array.from({ length: count }, (_, n) => store.append(RECEIPTS, { subject: `s${n}`, kind: 'k', payload: { n } }));
}

test('Store.append() from 50 concurrent callers shares one transaction, in call order', async (t) => {
  const store = openDatabase(join(tempDir(t), 'a.sqlite'), { evidenceTables: [RECEIPTS] });
  t.after(() => store.close());
  const rows = await Promise.all(appendMany(store, 50));
  assert.deepEqual(rows.map((row) => row.seq), Array.from({ length: 50 }, (_, n) => n + 1));
  assert.deepEqual(rows.map((row) => row.payload), Array.from({ length: 50 }, (_, n) => ({ n })));
  assert.deepEqual(store.stats(), { commits: 1, writes: 50, failures: 0 });
  assert.deepEqual(verifyAllChains(store.sqlite), [{ ok: true, table: 'receipts', rows: 50, head: rows[49]?.sha256 }]);
});

test('Store.append() caps a batch at maxBatch rows', async (t) => {
  const store = openDatabase(join(tempDir(t), 'a.sqlite'), { evidenceTables: [RECEIPTS], maxBatch: 1000 });
  t.after(() => store.close());
  const rows = await Promise.all(appendMany(store, 2500));
  assert.equal(rows.at(-1)?.seq, 2500);
  assert.deepEqual(store.stats(), { commits: 3, writes: 2500, failures: 0 });
});

test('Store.append() resolves only when another connection can read the committed row', async (t) => {
  const path = join(tempDir(t), 'a.sqlite');
  const store = openDatabase(path, { evidenceTables: [RECEIPTS] });
  t.after(() => store.close());
  const reader = new DatabaseSync(path, { readOnly: true });
  t.after(() => reader.close());
  const seen = await Promise.all(
    appendMany(store, 20).map(async (append) => {
      const row = await append;
      return reader.prepare('SELECT count(*) AS n FROM receipts WHERE seq = ?').get(row.seq)?.['n'];
    }),
  );
  assert.deepEqual(seen, Array(20).fill(1));
});

test('Store.append() appends arriving during a flush go into the next batch', async (t) => {
  const store = openDatabase(join(tempDir(t), 'a.sqlite'), { evidenceTables: [RECEIPTS] });
  t.after(() => store.close());
  const first = appendMany(store, 3);
  // Queued from inside the first batch's resolution, that is after its COMMIT.
  const later = first[0]!.then(() => Promise.all(appendMany(store, 2)));
  await Promise.all(first);
  const rows = await later;
  assert.deepEqual(rows.map((row) => row.seq), [4, 5]);
  assert.deepEqual(store.stats(), { commits: 2, writes: 5, failures: 0 });
});

test('Store.write() failing in a batch rejects only its own caller; the rest of the batch commits', async (t) => {
  const store = openDatabase(join(tempDir(t), 'a.sqlite'), { evidenceTables: [RECEIPTS] });
  t.after(() => store.close());
  store.sqlite.exec('CREATE TABLE notes (text TEXT NOT NULL)');
  const before = appendMany(store, 2);
  const failing = store.write((sqlite, tx) => {
    tx.append(RECEIPTS, { subject: 'half', kind: 'k', payload: 'undone' });
    return sqlite.prepare('INSERT INTO notes VALUES (NULL)').run();
  });
  const after = appendMany(store, 2);
  const outcomes = await Promise.allSettled([...before, failing, ...after]);
  assert.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
  const error = (outcomes[2] as PromiseRejectedResult).reason;
  assert.ok(isAirlockError(error, 'store_write'));
  assert.match(error.message, /^Cannot write to ".*a\.sqlite": NOT NULL constraint failed: notes\.text$/);
  assert.equal(store.sqlite.isTransaction, false);
  // The failing unit's own evidence row went with it; the chain has no gap and verifies.
  assert.deepEqual(store.readRows(RECEIPTS).map((row) => [row.seq, row.subject]), [[1, 's0'], [2, 's1'], [3, 's0'], [4, 's1']]);
  assert.deepEqual(store.stats(), { commits: 1, writes: 4, failures: 0 });
  assert.equal(verifyAllChains(store.sqlite)[0]?.ok, true);
});

test('Store.write() reports a write refused by an append-only trigger with code append_only', async (t) => {
  const store = openDatabase(join(tempDir(t), 'a.sqlite'), { evidenceTables: [RECEIPTS] });
  t.after(() => store.close());
  await store.append(RECEIPTS, { subject: 's', kind: 'k', payload: 1 });
  await assert.rejects(
    store.write((sqlite) => sqlite.exec(`UPDATE receipts SET kind = 'x'`)),
    (error: unknown) => isAirlockError(error, 'append_only') && /append-only: UPDATE refused$/.test(error.message),
  );
});

test('Store.write() refuses to batch on a connection someone left inside a transaction', async (t) => {
  const store = openDatabase(join(tempDir(t), 'a.sqlite'), { evidenceTables: [RECEIPTS] });
  t.after(() => store.close());
  store.sqlite.exec('BEGIN');
  const pending = store.append(RECEIPTS, { subject: 's', kind: 'k', payload: 1 });
  await assert.rejects(pending, /a transaction is already open on this connection$/);
  // The foreign transaction was left alone, not rolled back by the committer.
  assert.equal(store.sqlite.isTransaction, true);
  store.sqlite.exec('ROLLBACK');
});

test('Store.append() rejects a bad row alone and commits the rest of its batch', async (t) => {
  const store = openDatabase(join(tempDir(t), 'a.sqlite'), { evidenceTables: [RECEIPTS] });
  t.after(() => store.close());
  const good = appendMany(store, 2);
  const bad = store.append(RECEIPTS, { subject: 's', kind: 'k', payload: NaN });
  await assert.rejects(bad, TypeError);
  assert.deepEqual((await Promise.all(good)).map((row) => row.seq), [1, 2]);
});

test('Store.append() keeps the payload as it was when append() was called', async (t) => {
  const store = openDatabase(join(tempDir(t), 'a.sqlite'), { evidenceTables: [RECEIPTS] });
  t.after(() => store.close());
  const payload = { state: 'before' };
  const pending = store.append(RECEIPTS, { subject: 's', kind: 'k', payload });
  payload.state = 'after';
  assert.deepEqual((await pending).payload, { state: 'before' });
  assert.equal(verifyAllChains(store.sqlite)[0]?.ok, true);
});

test('Store.write() appends evidence with tx.append in the same transaction as its own SQL', async (t) => {
  const store = openDatabase(join(tempDir(t), 'a.sqlite'), { evidenceTables: [RECEIPTS] });
  t.after(() => store.close());
  store.sqlite.exec('CREATE TABLE state (id TEXT PRIMARY KEY, value TEXT NOT NULL)');
  const row = await store.write((sqlite, tx) => {
    sqlite.prepare('INSERT INTO state VALUES (?, ?)').run('a', 'one');
    return tx.append(RECEIPTS, { subject: 'a', kind: 'set', payload: { value: 'one' } });
  });
  assert.equal(row.seq, 1);
  assert.equal(store.readRows(RECEIPTS).length, 1);

  // A failure after the append rolls back both the state change and the evidence row.
  await assert.rejects(store.write((sqlite, tx) => {
    sqlite.prepare('INSERT INTO state VALUES (?, ?)').run('b', 'two');
    tx.append(RECEIPTS, { subject: 'b', kind: 'set', payload: { value: 'two' } });
    throw new Error('handler failed after appending');
  }));
  assert.deepEqual(store.sqlite.prepare('SELECT id FROM state ORDER BY id').all().map((r) => r['id']), ['a']);
  assert.equal(store.readRows(RECEIPTS).length, 1);
  const next = await store.append(RECEIPTS, { subject: 'c', kind: 'set', payload: {} });
  assert.equal(next.seq, 2, 'the chain head was not advanced by the rolled-back row');
  assert.equal(verifyAllChains(store.sqlite)[0]?.ok, true);
});
