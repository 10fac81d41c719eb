import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { isAirlockError } from '../../src/kernel/errors.ts';
import { replyForError } from '../../src/kernel/http/pipeline.ts';
import { openDatabase } from '../../src/kernel/store/open-database.ts';
import { createReadPool } from '../../src/kernel/store/read-pool.ts';
import { RECEIPTS, tempDir } from './fixtures/store-fixtures.ts';

/** A query that keeps a thread busy for seconds: counts to `n` in a recursive CTE. */
const slowCount = (n: number) => `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ${n}) SELECT count(*) AS n FROM c`;

async function filledStore(t: import('node:test').TestContext, rows = 20) {
  const store = openDatabase(join(tempDir(t), 'a.sqlite'), { evidenceTables: [RECEIPTS] });
  t.after(() => store.close());
  for (let n = 1; n <= rows; n++) await store.append(RECEIPTS, { subject: `case-${n}`, kind: 'opened', payload: { n } });
  return store;
}

test('createReadPool() answers from its own read-only connection and sees every committed write', async (t) => {
  const store = await filledStore(t);
  const reads = createReadPool(store.path, { threads: 1 });
  t.after(() => reads.close());
  const first = await reads.query('SELECT count(*) AS n FROM receipts');
  assert.equal(first.rows[0]!['n'], 20);
  await store.append(RECEIPTS, { subject: 'case-21', kind: 'opened', payload: { n: 21 } });
  const second = await reads.query('SELECT subject FROM receipts WHERE seq = ?', [21]);
  assert.deepEqual(second.rows.map((row) => ({ ...row })), [{ subject: 'case-21' }]);
  await assert.rejects(reads.query("INSERT INTO receipts (seq) VALUES (99)"), (error) => isAirlockError(error, 'store_read') && /readonly|read-only/i.test(error.message));
});

test('createReadPool() reports the steps a query took, which an index keeps independent of the table size', async (t) => {
  const store = await filledStore(t, 200);
  const reads = createReadPool(store.path, { threads: 1 });
  t.after(() => reads.close());
  const byIndex = await reads.query('SELECT seq FROM receipts WHERE subject = ?', ['case-7']);
  const byScan = await reads.query("SELECT seq FROM receipts WHERE json_extract(payload, '$.n') = ?", [7]);
  assert.deepEqual([byIndex.rows.length, byScan.rows.length], [1, 1]);
  assert.ok(byIndex.steps < 50, `an index lookup took ${byIndex.steps} steps`);
  assert.ok(byScan.steps > 200 * 3, `a scan of 200 rows took only ${byScan.steps} steps`);
  assert.equal(reads.stats().lastSteps, byScan.steps);
});

test('createReadPool() keeps the event loop free while a heavy query runs', async (t) => {
  const store = await filledStore(t, 1);
  const reads = createReadPool(store.path, { threads: 1, budgetMs: 60_000 });
  t.after(() => reads.close());
  const heavy = reads.query(slowCount(3_000_000));
  let ticks = 0;
  let settled = false;
  void heavy.finally(() => (settled = true));
  while (!settled) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    ticks++;
  }
  assert.equal((await heavy).rows[0]!['n'], 3_000_000);
  assert.ok(ticks >= 3, `the event loop turned only ${ticks} times while the query ran`);
});

test('createReadPool() refuses a query whose budget is spent with read_budget (503, Retry-After) and serves the next one', async (t) => {
  const store = await filledStore(t, 3);
  const reads = createReadPool(store.path, { threads: 1, budgetMs: 50 });
  t.after(() => reads.close());
  const slow = reads.query(slowCount(5_000_000));
  const queued = reads.query('SELECT count(*) AS n FROM receipts');
  await assert.rejects(slow, (error) => isAirlockError(error, 'read_budget') && /50 ms budget/.test(error.message));
  // The query behind it waited on the same budget: it is refused too, never left hanging.
  await assert.rejects(queued, (error) => isAirlockError(error, 'read_budget'));
  const reply = replyForError(await slow.catch((error: unknown) => error));
  assert.equal(reply.status, 503);
  assert.equal(reply.headers?.['retry-after'], '1');
  const after = await reads.query('SELECT count(*) AS n FROM receipts', [], { budgetMs: 5000 });
  assert.equal(after.rows[0]!['n'], 3);
  assert.equal(reads.stats().overBudget, 2);
});

test('createReadPool() refuses at once when its queue is full', async (t) => {
  const store = await filledStore(t, 1);
  const reads = createReadPool(store.path, { threads: 1, maxQueue: 1, budgetMs: 60_000 });
  t.after(() => reads.close());
  const running = reads.query(slowCount(500_000));
  const waiting = reads.query('SELECT 1 AS one');
  await assert.rejects(reads.query('SELECT 2 AS two'), (error) => isAirlockError(error, 'read_budget') && /1 reads are already waiting/.test(error.message));
  await Promise.all([running, waiting]);
  assert.equal(reads.stats().refused, 1);
});

test('createReadPool() on ":memory:" runs inline on the writer connection', async (t) => {
  const store = openDatabase(':memory:', { evidenceTables: [RECEIPTS] });
  t.after(() => store.close());
  await store.append(RECEIPTS, { subject: 'a', kind: 'opened', payload: {} });
  const reads = createReadPool(':memory:', { inline: store.sqlite });
  assert.equal((await reads.query('SELECT count(*) AS n FROM receipts')).rows[0]!['n'], 1);
  await assert.rejects(createReadPool(':memory:').query('SELECT 1'), TypeError);
});

test('createReadPool() close() rejects what waits and ends its threads', async (t) => {
  const store = await filledStore(t, 1);
  const reads = createReadPool(store.path, { threads: 1, budgetMs: 60_000 });
  const running = reads.query(slowCount(300_000));
  const refusals = [reads.query('SELECT 1 AS one'), running].map((query) => assert.rejects(query, (error) => isAirlockError(error, 'store_closed')));
  await reads.close();
  await Promise.all(refusals);
  await assert.rejects(reads.query('SELECT 1'), (error) => isAirlockError(error, 'store_closed'));
});

test('queryRecords() renders the rows as records on the read thread: the spread record, as one buffer with its SHA-256', async (t) => {
  const store = await filledStore(t, 3);
  await store.append(RECEIPTS, { subject: 'odd', kind: 'opened', payload: { '10': 'a', '9': 'b', seq: 'shadowed', deep: { '2': 0 } } });
  await store.append(RECEIPTS, { subject: 'big', kind: 'opened', payload: { text: 'é\u2028"q"'.repeat(5000) } });
  const sql = 'SELECT seq, recorded_at, subject, payload, sha256 FROM receipts WHERE seq > ? ORDER BY seq LIMIT ?';
  const rows = store.sqlite.prepare(sql).all(0, 10);
  const expected = rows.map((row) => JSON.stringify({ seq: row['seq'], subject: row['subject'], ...(JSON.parse(String(row['payload'])) as object), sha256: row['sha256'] })).join(',');
  const shape = { before: ['seq', 'subject'], after: ['sha256'] };
  const reads = createReadPool(store.path, { threads: 1 });
  t.after(() => reads.close());
  const inline = createReadPool(':memory:', { inline: store.sqlite });
  for (const [name, pool] of [['thread', reads], ['inline', inline]] as const) {
    const page = await pool.queryRecords(sql, [0, 10], shape);
    assert.equal(page.bytes.toString('utf8'), expected, name);
    assert.equal(page.digest, createHash('sha256').update(expected).digest('base64url'), name);
    assert.deepEqual([page.count, page.lastSeq], [5, 5], name);
    const empty = await pool.queryRecords(sql, [5, 10], shape);
    assert.deepEqual([empty.bytes.length, empty.count, empty.lastSeq], [0, 0, undefined], name);
  }
});

test('createReadPool({ functions }) gives every read connection the SQL functions, from their source text', async (t) => {
  const store = await filledStore(t, 3);
  // Stands alone, as the option requires: the threads get its source, not the closure.
  const initials = (text: unknown) => (typeof text === 'string' ? text.split('-').map((part) => part[0]).join('') : null);
  const reads = createReadPool(store.path, { threads: 1, functions: { initials } });
  t.after(() => reads.close());
  const { rows } = await reads.query('SELECT initials(subject) AS i FROM receipts WHERE seq = 1');
  assert.equal(rows[0]!['i'], 'c1');
  const memory = openDatabase(':memory:', { evidenceTables: [RECEIPTS] });
  t.after(() => memory.close());
  await memory.append(RECEIPTS, { subject: 'x-y', kind: 'opened', payload: {} });
  const inline = createReadPool(':memory:', { inline: memory.sqlite, functions: { initials } });
  assert.equal((await inline.query('SELECT initials(subject) AS i FROM receipts')).rows[0]!['i'], 'xy');
  assert.throws(() => createReadPool(store.path, { functions: { 'x); DROP': initials } }), /Invalid SQL function name/);
});
