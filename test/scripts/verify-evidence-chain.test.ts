import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { defineEvidenceTable, openDatabase } from '../../src/kernel/store/index.ts';
import { RECEIPTS, tamper, tempDir } from '../kernel/fixtures/store-fixtures.ts';

const SCRIPT = join(import.meta.dirname, '..', '..', 'scripts', 'verify_evidence_chain.ts');
const LEDGER = defineEvidenceTable({ name: 'ledger', columns: { account: 'text', cents: 'integer' } });

function run(...args: string[]) {
  // process.execPath: the Node 26 that runs the tests, which strips the script's types.
  const result = spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A database with two evidence tables of three rows each; the store stays open unless closed. */
async function evidenceDb(t: TestContext, options: { close: boolean } = { close: true }) {
  const path = join(tempDir(t), 'svc.sqlite');
  const store = openDatabase(path, { evidenceTables: [RECEIPTS, LEDGER] });
  for (let n = 1; n <= 3; n++) {
    await store.append(RECEIPTS, { subject: `case-${n}`, kind: 'opened', payload: { n } });
    await store.append(LEDGER, { account: 'a', cents: n * 100, payload: { n } });
  }
  if (options.close) await store.close();
  else t.after(() => store.close());
  return { path, store };
}

test('verify_evidence_chain exits 0 and reports every table when all chains verify', async (t) => {
  const { path } = await evidenceDb(t);
  const { code, stdout, stderr } = run('--db', path);
  assert.equal(code, 0, stderr);
  const lines = stdout.trim().split('\n');
  assert.equal(lines.length, 2);
  assert.match(lines[0] ?? '', /^ledger: ok, 3 rows, head [0-9a-f]{64}$/);
  assert.match(lines[1] ?? '', /^receipts: ok, 3 rows, head [0-9a-f]{64}$/);
});

test('verify_evidence_chain --json prints one document with each table', async (t) => {
  const { path } = await evidenceDb(t);
  const { code, stdout } = run('--db', path, '--json');
  assert.equal(code, 0);
  const report = JSON.parse(stdout);
  assert.equal(report.ok, true);
  assert.equal(report.db, path);
  assert.deepEqual(report.tables.map((table: { table: string; rows: number }) => [table.table, table.rows]), [['ledger', 3], ['receipts', 3]]);
});

test('verify_evidence_chain exits 1 naming the row changed behind the triggers', async (t) => {
  const { path, store } = await evidenceDb(t, { close: false });
  tamper(store.sqlite, 'receipts', `UPDATE receipts SET payload = '{"n":20}' WHERE seq = 2`);
  const text = run('--db', path);
  assert.equal(text.code, 1);
  assert.match(text.stdout, /^receipts: broken at seq 2: sha256 does not match the row's canonical JSON$/m);
  assert.match(text.stdout, /^ledger: ok, 3 rows/m);
  const json = run('--db', path, '--json');
  assert.equal(json.code, 1);
  const report = JSON.parse(json.stdout);
  assert.equal(report.ok, false);
  assert.deepEqual(report.tables.find((table: { table: string }) => table.table === 'receipts'), {
    ok: false,
    table: 'receipts',
    seq: 2,
    reason: "sha256 does not match the row's canonical JSON",
  });
});

test('verify_evidence_chain --table verifies only that table', async (t) => {
  const { path, store } = await evidenceDb(t, { close: false });
  tamper(store.sqlite, 'receipts', 'DELETE FROM receipts WHERE seq = 1');
  const ledger = run('--db', path, '--table', 'ledger');
  assert.equal(ledger.code, 0);
  assert.match(ledger.stdout, /^ledger: ok, 3 rows, head [0-9a-f]{64}\n$/);
  const receipts = run('--db', path, '--table', 'receipts');
  assert.equal(receipts.code, 1);
  assert.equal(receipts.stdout, 'receipts: broken at seq 2: expected seq 1: rows are missing or out of order\n');
});

test('verify_evidence_chain reads a database a live writer holds open in WAL mode', async (t) => {
  const { path } = await evidenceDb(t, { close: false });
  assert.ok(existsSync(`${path}-wal`));
  assert.equal(run('--db', path).code, 0);
});

const ENVIRONMENT_ERRORS: Array<[string, (dir: string) => string[], RegExp]> = [
  ['a missing file', (dir) => ['--db', join(dir, 'absent.sqlite')], /Cannot open database ".*absent\.sqlite": file does not exist/],
  [
    'a file that is not a database',
    (dir) => {
      writeFileSync(join(dir, 'notes.txt'), 'plain text, not a database\n'.repeat(50));
      return ['--db', join(dir, 'notes.txt')];
    },
    /Cannot open database ".*notes\.txt": file is not a database/,
  ],
  [
    'a database without evidence tables',
    (dir) => {
      writeFileSync(join(dir, 'empty.sqlite'), '');
      return ['--db', join(dir, 'empty.sqlite')];
    },
    /Cannot verify ".*empty\.sqlite": the database has no evidence tables/,
  ],
  ['no --db', () => [], /Missing --db FILE/],
  ['an unknown option', () => ['--db', 'x', '--fast'], /Unknown option '--fast'/],
];

for (const [label, args, message] of ENVIRONMENT_ERRORS) {
  test(`verify_evidence_chain exits 2 for ${label}`, (t) => {
    const { code, stderr } = run(...args(tempDir(t)));
    assert.equal(code, 2);
    assert.match(stderr, message);
  });
}

test('verify_evidence_chain exits 2 for a table the database does not have', async (t) => {
  const { path } = await evidenceDb(t);
  const { code, stderr } = run('--db', path, '--table', 'orders');
  assert.equal(code, 2);
  assert.match(stderr, /Unknown evidence table "orders" in ".*svc\.sqlite": choose from ledger, receipts/);
});

test('verify_evidence_chain does not create the file it was asked to verify', (t) => {
  const path = join(tempDir(t), 'absent.sqlite');
  run('--db', path);
  assert.equal(existsSync(path), false);
});

test('verify_evidence_chain --help explains the check and the exit codes', () => {
  const { code, stdout } = run('--help');
  assert.equal(code, 0);
  assert.match(stdout, /--db FILE/);
  assert.match(stdout, /RFC 8785 canonical JSON/);
  assert.match(stdout, /Exit codes: 0 every check passed, 1 a check failed, 2 usage or environment error/);
});

test('verify_evidence_chain --threads takes a whole number of at least 1 (exit 2 otherwise)', async (t) => {
  const { path } = await evidenceDb(t);
  assert.equal(run('--db', path, '--threads', '1').code, 0);
  for (const bad of ['0', 'two', '-1']) {
    const { code, stderr } = run('--db', path, '--threads', bad);
    assert.equal(code, 2, bad);
    assert.match(stderr, /--threads/);
  }
});
