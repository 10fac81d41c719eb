import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import type { JsonValue } from '../../src/kernel/store/canonical-json.ts';
import { defineEvidenceTable } from '../../src/kernel/store/evidence-table.ts';
import { openDatabase } from '../../src/kernel/store/open-database.ts';
import { createChainWatch, verifyAllChains, verifyChain, verifyChainParallel } from '../../src/kernel/store/verify-chain.ts';
import { RECEIPTS, steppingClock, tamper, tempDir } from './fixtures/store-fixtures.ts';

const COUNTS = defineEvidenceTable({ name: 'counts', columns: { n: 'integer' } });

async function fiveRows(t: TestContext) {
  const store = openDatabase(join(tempDir(t), 'a.sqlite'), { evidenceTables: [RECEIPTS, COUNTS], now: steppingClock() });
  t.after(() => store.close());
  for (let n = 1; n <= 5; n++) {
    await store.append(RECEIPTS, { subject: `case-${n}`, kind: 'opened', payload: { n, note: 'a b' } });
    await store.append(COUNTS, { n, payload: [n] });
  }
  return store;
}

test('verifyAllChains() reports every registered table with its row count and head', async (t) => {
  const store = await fiveRows(t);
  const head = (table: string) => store.sqlite.prepare(`SELECT sha256 FROM ${table} WHERE seq = 5`).get()?.['sha256'];
  assert.deepEqual(verifyAllChains(store.sqlite), [
    { ok: true, table: 'counts', rows: 5, head: head('counts') },
    { ok: true, table: 'receipts', rows: 5, head: head('receipts') },
  ]);
});

test('verifyChain() accepts an empty table', async (t) => {
  const store = openDatabase(join(tempDir(t), 'a.sqlite'), { evidenceTables: [RECEIPTS] });
  t.after(() => store.close());
  assert.deepEqual(verifyChain(store.sqlite, RECEIPTS), { ok: true, table: 'receipts', rows: 0, head: '0'.repeat(64) });
});

const TAMPERING: Array<[string, string, number | null, RegExp]> = [
  ['a changed payload value', `UPDATE receipts SET payload = '{"n":3,"note":"a c"}' WHERE seq = 3`, 3, /sha256 does not match the row's canonical JSON/],
  ['a payload with added whitespace', `UPDATE receipts SET payload = '{"n": 3,"note":"a b"}' WHERE seq = 3`, 3, /payload is not canonical JSON/],
  ['a payload that is not JSON', `UPDATE receipts SET payload = '{n:3}' WHERE seq = 3`, 3, /payload is not canonical JSON/],
  ['a payload with an escaped lone surrogate', `UPDATE receipts SET payload = '"\\ud800"' WHERE seq = 3`, 3, /payload is not canonical JSON/],
  ['a payload number not in its shortest form', `UPDATE receipts SET payload = '{"n":3.0,"note":"a b"}' WHERE seq = 3`, 3, /payload is not canonical JSON/],
  ['a payload with keys out of order', `UPDATE receipts SET payload = '{"note":"a b","n":3}' WHERE seq = 3`, 3, /payload is not canonical JSON/],
  ['a payload with a duplicate key', `UPDATE receipts SET payload = '{"n":3,"n":3,"note":"a b"}' WHERE seq = 3`, 3, /payload is not canonical JSON/],
  ['a payload with an escape JCS does not use', `UPDATE receipts SET payload = '{"n":3,"note":"a\\/b"}' WHERE seq = 3`, 3, /payload is not canonical JSON/],
  ['a payload with a \\u escape of a printable character', `UPDATE receipts SET payload = '{"n":3,"note":"\\u0041"}' WHERE seq = 3`, 3, /payload is not canonical JSON/],
  ['a payload with an uppercase \\u escape', `UPDATE receipts SET payload = '{"n":3,"note":"\\u001F"}' WHERE seq = 3`, 3, /payload is not canonical JSON/],
  ['a payload with a \\u escape of a character that has a short one', `UPDATE receipts SET payload = '{"n":3,"note":"\\u000a"}' WHERE seq = 3`, 3, /payload is not canonical JSON/],
  ['a payload with trailing text', `UPDATE receipts SET payload = '{"n":3,"note":"a b"}x' WHERE seq = 3`, 3, /payload is not canonical JSON/],
  // What the scan of text without any backslash must still refuse (it finds strings by their closing quote).
  ['a payload with a raw control character in a string', `UPDATE receipts SET payload = '{"n":3,"note":"a' || char(9) || 'b"}' WHERE seq = 3`, 3, /payload is not canonical JSON/],
  ['a payload that continues the row after its value', `UPDATE receipts SET payload = '3,"payloadz":1' WHERE seq = 3`, 3, /payload is not canonical JSON/],
  ['a payload number with a leading zero', `UPDATE receipts SET payload = '{"n":03,"note":"a b"}' WHERE seq = 3`, 3, /payload is not canonical JSON/],
  ['a payload number -0', `UPDATE receipts SET payload = '{"n":-0,"note":"a b"}' WHERE seq = 3`, 3, /payload is not canonical JSON/],
  ['a payload whose longer key sorts before its prefix', `UPDATE receipts SET payload = '{"nn":3,"n":1}' WHERE seq = 3`, 3, /payload is not canonical JSON/],
  ['a payload with an unclosed string', `UPDATE receipts SET payload = '{"n":3,"note":"a b}' WHERE seq = 3`, 3, /payload is not canonical JSON/],
  ['a changed declared column', `UPDATE receipts SET kind = 'closed' WHERE seq = 2`, 2, /sha256 does not match/],
  ['a changed recorded_at', `UPDATE receipts SET recorded_at = '2020-01-01T00:00:00.000Z' WHERE seq = 4`, 4, /sha256 does not match/],
  ['a recomputed-looking sha256', `UPDATE receipts SET sha256 = printf('%064d', 0) WHERE seq = 4`, 4, /sha256 does not match/],
  ['a deleted middle row', 'DELETE FROM receipts WHERE seq = 3', 4, /expected seq 3: rows are missing or out of order/],
  ['a deleted first row', 'DELETE FROM receipts WHERE seq = 1', 2, /expected seq 1/],
  ['a renumbered row', 'UPDATE receipts SET seq = 10 WHERE seq = 5', 10, /expected seq 5/],
  ['a row re-pointed to another predecessor', `UPDATE receipts SET prev_sha256 = printf('%064d', 0) WHERE seq = 2`, 2, /prev_sha256 does not match the sha256 of seq 1/],
  ['a dropped table', 'DROP TABLE receipts', null, /table is registered but missing/],
];

for (const [label, sql, seq, reason] of TAMPERING) {
  test(`verifyChain() finds ${label}`, async (t) => {
    const store = await fiveRows(t);
    tamper(store.sqlite, 'receipts', sql);
    const result = verifyChain(store.sqlite, RECEIPTS);
    assert.equal(result.ok, false);
    assert.equal(result.ok === false && result.seq, seq);
    assert.match(result.ok === false ? result.reason : '', reason);
    // The other chain in the same file is unaffected.
    assert.equal(verifyChain(store.sqlite, COUNTS).ok, true);
  });
}

// The same findings when the rows are hashed in seq ranges on worker threads and joined: with 2
// and 3 threads the five rows are cut into ranges whose starts (seq 4; seq 3 and 5) are tampered above.
for (const threads of [2, 3]) {
  for (const [label, sql, seq, reason] of TAMPERING) {
    test(`verifyChainParallel() with ${threads} threads finds ${label}, as verifyChain() does`, async (t) => {
      const store = await fiveRows(t);
      tamper(store.sqlite, 'receipts', sql);
      const result = await verifyChainParallel(store.sqlite, RECEIPTS, { path: store.path, threads, parallelFromRows: 2 });
      assert.deepEqual(result, verifyChain(store.sqlite, RECEIPTS));
      assert.equal(result.ok === false && result.seq, seq);
      assert.match(result.ok === false ? result.reason : '', reason);
    });
  }
}

// The fast check scans the row's whole hashed text (its members around the stored payload text)
// at once. A payload that is not one JSON value can still make that text valid JSON, so these
// rows carry a sha256 recomputed over exactly that text: each must still fail as not canonical.
const SPLICED_PAYLOADS: Array<[string, string]> = [
  ['adds a member of the row after its value', '3,"pb":1'],
  ['repeats the member after it', '3,"prev_sha256":"x"'],
  ['leaves an object open', '{"n":3'],
  ['closes the row early', '3}'],
  ['leaves a string open', '"a b'],
  ['is empty', ''],
];
for (const [label, text] of SPLICED_PAYLOADS) {
  test(`verifyChain() refuses a payload that ${label}, with the sha256 recomputed over the row's text`, async (t) => {
    const store = await fiveRows(t);
    const row = store.sqlite.prepare('SELECT * FROM receipts WHERE seq = 3').get()!;
    const members: Record<string, string> = {
      kind: JSON.stringify(row['kind']), payload: text, prev_sha256: JSON.stringify(row['prev_sha256']),
      recorded_at: JSON.stringify(row['recorded_at']), seq: '3', subject: JSON.stringify(row['subject']),
    };
    const hashed = `{${Object.keys(members).sort().map((name) => `"${name}":${members[name]}`).join(',')}}`;
    const sha256 = createHash('sha256').update(hashed).digest('hex');
    tamper(store.sqlite, 'receipts', `UPDATE receipts SET payload = '${text.replaceAll("'", "''")}', sha256 = '${sha256}' WHERE seq = 3; UPDATE receipts SET prev_sha256 = '${sha256}' WHERE seq = 4`);
    assert.deepEqual(verifyChain(store.sqlite, RECEIPTS), { ok: false, table: 'receipts', seq: 3, reason: 'payload is not canonical JSON' });
    assert.deepEqual(await verifyChainParallel(store.sqlite, RECEIPTS, { path: store.path, threads: 2, parallelFromRows: 2 }), verifyChain(store.sqlite, RECEIPTS));
  });
}

test('verifyChainParallel() accepts an intact chain split across threads with the head verifyChain() finds', async (t) => {
  const store = await fiveRows(t);
  const result = await verifyChainParallel(store.sqlite, RECEIPTS, { path: store.path, threads: 2, parallelFromRows: 2 });
  assert.deepEqual(result, verifyChain(store.sqlite, RECEIPTS));
  assert.equal(result.ok && result.rows, 5);
});

test('verifyChain() gives a payload the fast check cannot confirm (integer-like keys) the exact check', async (t) => {
  const store = openDatabase(join(tempDir(t), 'a.sqlite'), { evidenceTables: [RECEIPTS], now: steppingClock() });
  t.after(() => store.close());
  // JCS sorts "10" before "9"; a parsed object lists integer-like keys in numeric order, so JSON.stringify differs.
  for (let n = 1; n <= 4; n++) await store.append(RECEIPTS, { subject: `s${n}`, kind: 'k', payload: { '10': n, '9': 'x', a: [{ '2': 1, '11': 2 }] } });
  assert.deepEqual(verifyChain(store.sqlite, RECEIPTS), { ok: true, table: 'receipts', rows: 4, head: String(store.sqlite.prepare('SELECT sha256 FROM receipts WHERE seq = 4').get()!['sha256']) });
  tamper(store.sqlite, 'receipts', `UPDATE receipts SET payload = '{"9":"x","10":3,"a":[{"11":2,"2":1}]}' WHERE seq = 3`);
  assert.deepEqual(verifyChain(store.sqlite, RECEIPTS), { ok: false, table: 'receipts', seq: 3, reason: 'payload is not canonical JSON' });
  assert.deepEqual(await verifyChainParallel(store.sqlite, RECEIPTS, { path: store.path, threads: 2, parallelFromRows: 2 }), verifyChain(store.sqlite, RECEIPTS));
});

test('verifyChain() accepts canonical payloads the fast scan leaves to the exact check (\\u escapes, escaped keys) and numbers in every JCS form', async (t) => {
  const store = openDatabase(join(tempDir(t), 'a.sqlite'), { evidenceTables: [RECEIPTS], now: steppingClock() });
  t.after(() => store.close());
  const payloads: JsonValue[] = [{ c: '\u0001\n"\\', 'k"ey': true }, { n: [1e21, -0.5, 1e-7, 0, -3, 123456789012345678], s: 'é\u2028😀', z: null }, [], {}, 'text', 42];
  // Nesting deeper than the plain scan follows, keys that are prefixes of the next, a key sorting by UTF-16 code units.
  let deep: JsonValue = { a: 1, ab: [2], b: -0.25 };
  for (let level = 0; level < 70; level++) deep = level % 2 === 0 ? [deep] : { d: deep };
  payloads.push(deep, { '': 0, a: { '\uffff': 1, '😀': 2 } });
  for (const payload of payloads) await store.append(RECEIPTS, { subject: 's', kind: 'k', payload });
  const head = String(store.sqlite.prepare(`SELECT sha256 FROM receipts WHERE seq = ${payloads.length}`).get()!['sha256']);
  assert.deepEqual(verifyChain(store.sqlite, RECEIPTS), { ok: true, table: 'receipts', rows: payloads.length, head });
  assert.deepEqual(await verifyChainParallel(store.sqlite, RECEIPTS, { path: store.path, threads: 2, parallelFromRows: 2 }), verifyChain(store.sqlite, RECEIPTS));
});

test('verifyChain() reports an integer column changed out of the safe range', async (t) => {
  const store = await fiveRows(t);
  tamper(store.sqlite, 'counts', 'UPDATE counts SET n = 9007199254740993 WHERE seq = 2');
  assert.deepEqual(verifyChain(store.sqlite, COUNTS), { ok: false, table: 'counts', seq: 2, reason: 'column "n" holds an integer out of range' });
});

test('verifyChain() finds a changed integer column', async (t) => {
  const store = await fiveRows(t);
  tamper(store.sqlite, 'counts', 'UPDATE counts SET n = 7 WHERE seq = 5');
  assert.deepEqual(verifyChain(store.sqlite, COUNTS), { ok: false, table: 'counts', seq: 5, reason: "sha256 does not match the row's canonical JSON" });
});

test('createChainWatch() verifies each row once: new rows are checked and linked, rows verified before are not read again', async (t) => {
  const store = await fiveRows(t);
  const watch = createChainWatch(store.sqlite);
  assert.deepEqual(watch.verifyAll(), verifyAllChains(store.sqlite));
  for (let n = 6; n <= 8; n++) await store.append(RECEIPTS, { subject: `case-${n}`, kind: 'opened', payload: { n, note: 'a b' } });
  const second = watch.verifyAll();
  assert.deepEqual(second, verifyAllChains(store.sqlite));
  assert.equal(second[1]!.ok && second[1]!.rows, 8);
  // A row verified before is not read again (the offline verifier still finds it) ...
  tamper(store.sqlite, 'receipts', `UPDATE receipts SET payload = '{"n":3,"note":"a c"}' WHERE seq = 3`);
  assert.equal(watch.verifyAll()[1]!.ok, true);
  assert.equal(verifyChain(store.sqlite, RECEIPTS).ok, false);
  // ... a new row is, and a broken chain stays reported broken.
  store.sqlite.exec(`INSERT INTO receipts (seq, recorded_at, subject, kind, payload, sha256, prev_sha256) VALUES (9, '2026-01-01T00:00:00.000Z', 's', 'k', '{}', '${'0'.repeat(64)}', '${'0'.repeat(64)}')`);
  const broken = { ok: false, table: 'receipts', seq: 9, reason: 'prev_sha256 does not match the sha256 of seq 8' };
  assert.deepEqual(watch.verifyAll()[1], broken);
  assert.deepEqual(watch.verifyAll()[1], broken);
  assert.equal(watch.verifyAll()[0]!.ok, true);
});

test('createChainWatch({ tables }) verifies only the chains named, and reads no other', async (t) => {
  const store = await fiveRows(t);
  const watch = createChainWatch(store.sqlite, { tables: ['receipts'] });
  // A broken chain it does not watch is neither read nor reported.
  tamper(store.sqlite, 'counts', 'UPDATE counts SET n = 7 WHERE seq = 5');
  const results = watch.verifyAll();
  assert.deepEqual(results.map((r) => r.table), ['receipts']);
  assert.deepEqual(results, verifyAllChains(store.sqlite).filter((r) => r.table === 'receipts'));
  assert.equal(createChainWatch(store.sqlite).verifyAll().find((r) => r.table === 'counts')!.ok, false);
});
