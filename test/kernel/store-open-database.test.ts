import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { isAirlockError } from '../../src/kernel/errors.ts';
import type { AirlockErrorCode } from '../../src/kernel/errors.ts';
import { openDatabase, openDatabaseReadOnly } from '../../src/kernel/store/open-database.ts';
import { verifyChain } from '../../src/kernel/store/verify-chain.ts';
import type { Migration } from '../../src/kernel/store/migrate.ts';
import { RECEIPTS, tempDir } from './fixtures/store-fixtures.ts';

const MIGRATIONS: Migration[] = [
  { name: 'cases', up: 'CREATE TABLE cases (ref TEXT PRIMARY KEY, owner TEXT REFERENCES owners (id))' },
  { name: 'owners', up: 'CREATE TABLE owners (id TEXT PRIMARY KEY)' },
  { name: 'seed owner', up: (sqlite) => sqlite.prepare('INSERT INTO owners (id) VALUES (?)').run('ops') },
];

function pragma(sqlite: DatabaseSync, name: string): unknown {
  // busy_timeout answers in a column called "timeout": take the only column, whatever its name.
  return Object.values(sqlite.prepare(`PRAGMA ${name}`).get() ?? {})[0];
}

function rejectsWith(code: AirlockErrorCode, message: RegExp) {
  return (error: unknown) => isAirlockError(error, code) && message.test(error.message);
}

test('openDatabase() sets WAL, synchronous=FULL, the busy timeout, a 32 MiB page cache, temp storage in memory, foreign keys and recursive triggers', async (t) => {
  const store = openDatabase(join(tempDir(t), 'a.sqlite'), { busyTimeoutMs: 1234 });
  t.after(() => store.close());
  assert.equal(pragma(store.sqlite, 'journal_mode'), 'wal');
  assert.equal(pragma(store.sqlite, 'synchronous'), 2);
  assert.equal(pragma(store.sqlite, 'busy_timeout'), 1234);
  assert.equal(pragma(store.sqlite, 'cache_size'), -32768);
  assert.equal(pragma(store.sqlite, 'temp_store'), 2);
  assert.equal(pragma(store.sqlite, 'foreign_keys'), 1);
  assert.equal(pragma(store.sqlite, 'recursive_triggers'), 1);
});

test('openDatabase() runs the migrations in order and records user_version', async (t) => {
  const store = openDatabase(join(tempDir(t), 'a.sqlite'), { migrations: MIGRATIONS });
  t.after(() => store.close());
  assert.equal(pragma(store.sqlite, 'user_version'), 3);
  assert.deepEqual(store.sqlite.prepare('SELECT id FROM owners').all().map((row) => row['id']), ['ops']);
  // Foreign keys are enforced: the point of turning them on.
  assert.throws(() => store.sqlite.prepare('INSERT INTO cases VALUES (?, ?)').run('c1', 'nobody'), /FOREIGN KEY constraint failed/);
});

test('openDatabase() runs only the migrations a database lacks', async (t) => {
  const path = join(tempDir(t), 'a.sqlite');
  await openDatabase(path, { migrations: MIGRATIONS.slice(0, 2) }).close();
  const store = openDatabase(path, { migrations: MIGRATIONS });
  t.after(() => store.close());
  assert.equal(pragma(store.sqlite, 'user_version'), 3);
  // The seed step ran once; had the first two run again, CREATE TABLE would have failed.
  assert.equal(store.sqlite.prepare('SELECT count(*) AS n FROM owners').get()?.['n'], 1);
});

test('openDatabase() rolls back a failing migration with its version bump', (t) => {
  const path = join(tempDir(t), 'a.sqlite');
  const broken: Migration[] = [
    MIGRATIONS[0] as Migration,
    { name: 'half done', up: 'CREATE TABLE half (x); INSERT INTO nowhere VALUES (1);' },
  ];
  assert.throws(
    () => openDatabase(path, { migrations: broken }),
    rejectsWith('store_migration', /^Cannot migrate database ".*a\.sqlite" to version 2 \("half done"\): no such table: nowhere$/),
  );
  const sqlite = new DatabaseSync(path);
  t.after(() => sqlite.close());
  assert.equal(pragma(sqlite, 'user_version'), 1);
  assert.equal(sqlite.prepare(`SELECT count(*) AS n FROM sqlite_schema WHERE name = 'half'`).get()?.['n'], 0);
});

test('openDatabase() refuses a database whose user_version is newer than the code knows', async (t) => {
  const path = join(tempDir(t), 'a.sqlite');
  await openDatabase(path, { migrations: MIGRATIONS }).close();
  assert.throws(
    () => openDatabase(path, { migrations: MIGRATIONS.slice(0, 1) }),
    rejectsWith('store_version', /^Cannot open database ".*a\.sqlite": user_version 3 is newer than this code knows \(1\)$/),
  );
});

test('openDatabase() refuses a file that is not a database with store_open', (t) => {
  const path = join(tempDir(t), 'notes.txt');
  writeFileSync(path, 'these are not the pages you are looking for\n'.repeat(100));
  assert.throws(() => openDatabase(path), rejectsWith('store_open', /^Cannot open database ".*notes\.txt": file is not a database$/));
});

test('openDatabase() refuses a path in a missing directory with store_open', (t) => {
  const path = join(tempDir(t), 'missing', 'a.sqlite');
  assert.throws(() => openDatabase(path), rejectsWith('store_open', /unable to open database file/));
});

test('openDatabase() accepts :memory: for tests', async () => {
  const store = openDatabase(':memory:', { migrations: MIGRATIONS, evidenceTables: [RECEIPTS] });
  const row = await store.append(RECEIPTS, { subject: 's', kind: 'k', payload: {} });
  assert.equal(row.seq, 1);
  await store.close();
});

test('openDatabaseReadOnly() refuses a missing file without creating it', (t) => {
  const path = join(tempDir(t), 'absent.sqlite');
  assert.throws(() => openDatabaseReadOnly(path), rejectsWith('store_open', /file does not exist$/));
  assert.throws(() => openDatabaseReadOnly(path), rejectsWith('store_open', /file does not exist$/));
});

test('openDatabaseReadOnly() reads but cannot write', async (t) => {
  const path = join(tempDir(t), 'a.sqlite');
  await openDatabase(path, { migrations: MIGRATIONS }).close();
  const sqlite = openDatabaseReadOnly(path);
  t.after(() => sqlite.close());
  assert.equal(sqlite.prepare('SELECT count(*) AS n FROM owners').get()?.['n'], 1);
  assert.throws(() => sqlite.exec(`INSERT INTO owners VALUES ('x')`), /readonly/);
});

test('Store.close() commits pending appends before closing', async (t) => {
  const path = join(tempDir(t), 'a.sqlite');
  const store = openDatabase(path, { evidenceTables: [RECEIPTS] });
  const pending = [1, 2, 3].map((n) => store.append(RECEIPTS, { subject: `s${n}`, kind: 'k', payload: { n } }));
  await store.close();
  assert.deepEqual((await Promise.all(pending)).map((row) => row.seq), [1, 2, 3]);
  const sqlite = new DatabaseSync(path);
  t.after(() => sqlite.close());
  assert.equal(sqlite.prepare('SELECT count(*) AS n FROM receipts').get()?.['n'], 3);
});

test('Store.append() and write() after close() reject with store_closed', async (t) => {
  const store = openDatabase(join(tempDir(t), 'a.sqlite'), { evidenceTables: [RECEIPTS] });
  await store.close();
  await store.close();
  await assert.rejects(
    store.append(RECEIPTS, { subject: 's', kind: 'k', payload: 1 }),
    rejectsWith('store_closed', /^Cannot append to "receipts": database ".*a\.sqlite" is closed$/),
  );
  await assert.rejects(store.write(() => 1), rejectsWith('store_closed', /^Cannot write: database/));
});

test('openDatabase() in several processes at once on one new file: every process opens it (no "database is locked")', async (t) => {
  // Units started together open the same new database; switching it to WAL needs an exclusive
  // lock, and SQLite answers a contender SQLITE_BUSY at once rather than wait (deadlock risk).
  const opener = join(tempDir(t), 'open.ts');
  const module = new URL('../../src/kernel/store/open-database.ts', import.meta.url).href;
  writeFileSync(opener, `import { openDatabase } from ${JSON.stringify(module)};
const at = Number(process.argv[3]);
while (Date.now() < at) {}
const store = openDatabase(process.argv[2], { migrations: [{ name: 't', up: 'CREATE TABLE t (x)' }] });
await store.close();
`);
  for (let round = 0; round < 6; round++) {
    const path = join(tempDir(t), `shared-${round}.sqlite`);
    const at = String(Date.now() + 700);
    const children = Array.from({ length: 6 }, () => spawn(process.execPath, [opener, path, at], { stdio: ['ignore', 'ignore', 'pipe'] }));
    const outcomes = await Promise.all(children.map((child) => new Promise<{ code: number | null; stderr: string }>((resolve) => {
      let stderr = '';
      child.stderr!.on('data', (chunk) => (stderr += chunk));
      child.on('exit', (code) => resolve({ code, stderr }));
    })));
    for (const outcome of outcomes) assert.equal(outcome.code, 0, `round ${round}: ${outcome.stderr}`);
  }
});

test('Transaction.appendChain() stores the row append() would, in the same chain, and returns only its chain fields', async (t) => {
  const store = openDatabase(join(tempDir(t), 'a.sqlite'), { evidenceTables: [RECEIPTS], now: () => new Date(Date.UTC(2026, 0, 1)) });
  t.after(() => store.close());
  const [row, chain] = await store.write((_sqlite, tx) => [
    tx.append(RECEIPTS, { subject: 's1', kind: 'k', payload: { b: 1, a: [2] } }),
    tx.appendChain(RECEIPTS, { subject: 's2', kind: 'k', payload: { b: 1, a: [2] } }),
  ] as const);
  assert.deepEqual(Object.keys(chain).sort(), ['prev_sha256', 'recorded_at', 'seq', 'sha256']);
  assert.equal(chain.seq, row.seq + 1);
  assert.equal(chain.prev_sha256, row.sha256);
  const stored = store.sqlite.prepare('SELECT seq, recorded_at, subject, payload, sha256, prev_sha256 FROM receipts WHERE seq = ?').get(chain.seq);
  assert.deepEqual({ ...stored }, { seq: chain.seq, recorded_at: chain.recorded_at, subject: 's2', payload: '{"a":[2],"b":1}', sha256: chain.sha256, prev_sha256: chain.prev_sha256 });
  assert.deepEqual(verifyChain(store.sqlite, { name: 'receipts', columns: { subject: 'text', kind: 'text' } }).ok, true);
  // The same checks as append(): a bad row fails its own unit.
  await assert.rejects(store.write((_sqlite, tx) => tx.appendChain(RECEIPTS, { subject: 1, kind: 'k', payload: null } as never)), /column "subject" must be a string/);
});
