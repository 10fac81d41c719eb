// Prepared statements are cached per connection and SQL text, and the cache is bounded: a
// search's SQL follows the shape of its query, so without a bound every new shape a client
// sends keeps a prepared statement (and its SQLite memory) for the life of the process.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import { cachedStatement, statement } from '../../src/kernel/store/_statements.ts';
import { openDatabase } from '../../src/kernel/store/open-database.ts';
import { createReadPool } from '../../src/kernel/store/read-pool.ts';
import { RECEIPTS, tempDir } from './fixtures/store-fixtures.ts';

test('statement() prepares a SQL text once per connection', () => {
  const sqlite = new DatabaseSync(':memory:');
  const other = new DatabaseSync(':memory:');
  assert.equal(statement(sqlite, 'SELECT 1 AS n'), statement(sqlite, 'SELECT 1 AS n'));
  assert.notEqual(statement(sqlite, 'SELECT 1 AS n'), statement(other, 'SELECT 1 AS n'));
});

test('the cache holds at most 1,000 statements, and answers the same after it starts again', () => {
  const sqlite = new DatabaseSync(':memory:');
  const cache = new Map();
  const first = cachedStatement(cache, sqlite, 'SELECT 0 AS n');
  for (let n = 1; n < 1000; n++) cachedStatement(cache, sqlite, `SELECT ${n} AS n`);
  assert.equal(cache.size, 1000);
  assert.equal(cachedStatement(cache, sqlite, 'SELECT 0 AS n'), first, 'kept while there is room');
  for (let n = 1000; n < 2500; n++) cachedStatement(cache, sqlite, `SELECT ${n} AS n`);
  assert.ok(cache.size <= 1000, `${cache.size} statements cached`);
  const again = cachedStatement(cache, sqlite, 'SELECT 0 AS n');
  assert.notEqual(again, first, 'prepared again once dropped');
  assert.deepEqual({ ...again.get() }, { n: 0 });
});

test('the read pool\'s threads answer past 1,000 different SQL texts, each with its own rows', async (t) => {
  const store = openDatabase(join(tempDir(t), 'a.sqlite'), { evidenceTables: [RECEIPTS] });
  t.after(() => store.close());
  const reads = createReadPool(store.path, { threads: 1 });
  t.after(() => reads.close());
  for (let n = 0; n < 1200; n++) {
    const { rows } = await reads.query(`SELECT ${n} AS n`);
    assert.equal(rows[0]!['n'], n);
  }
  assert.equal((await reads.query('SELECT 0 AS n')).rows[0]!['n'], 0);
});

test('with closeDropped, the statements dropped when the cache starts again are finalized at once', () => {
  const sqlite = new DatabaseSync(':memory:');
  const cache = new Map();
  const first = cachedStatement(cache, sqlite, 'SELECT 0 AS n', true);
  for (let n = 1; n <= 1000; n++) cachedStatement(cache, sqlite, `SELECT ${n} AS n`, true);
  assert.throws(() => first.get(), /finalized/);
  const kept = cachedStatement(new Map(), sqlite, 'SELECT 0 AS n');
  assert.deepEqual({ ...kept.get() }, { n: 0 });
});
