import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { isAirlockError } from '../../src/kernel/errors.ts';
import { defineEvidenceTable, listEvidenceTables } from '../../src/kernel/store/evidence-table.ts';
import { openDatabase } from '../../src/kernel/store/open-database.ts';
import { GENESIS_SHA256, rowHash, rowHasher } from '../../src/kernel/store/row-hash.ts';
import { canonicalJson } from '../../src/kernel/store/canonical-json.ts';
import { RECEIPTS, steppingClock, tempDir } from './fixtures/store-fixtures.ts';

const BAD_DECLARATIONS: Array<[string, { name: string; columns: Record<string, string> }, RegExp]> = [
  ['an upper-case name', { name: 'Receipts', columns: {} }, /^Invalid evidence table name "Receipts"/],
  ['a name with a quote', { name: 'r"; DROP', columns: {} }, /^Invalid evidence table name/],
  ['a name starting with _', { name: '_registry', columns: {} }, /^Invalid evidence table name/],
  ['a column with a space', { name: 'r', columns: { 'a b': 'text' } }, /^Invalid column "a b" in evidence table "r"/],
  ['the chain column seq', { name: 'r', columns: { seq: 'integer' } }, /^Invalid column "seq" in evidence table "r": the store adds it$/],
  ['the chain column payload', { name: 'r', columns: { payload: 'text' } }, /"payload".*the store adds it$/],
  ['a column type real', { name: 'r', columns: { amount: 'real' } }, /type "real" is not text or integer$/],
];

for (const [label, declaration, message] of BAD_DECLARATIONS) {
  test(`defineEvidenceTable() rejects ${label}`, () => {
    assert.throws(() => defineEvidenceTable(declaration as never), (error: unknown) => error instanceof TypeError && message.test(error.message));
  });
}

test('openDatabase() creates a declared table and records it in the registry', async (t) => {
  const store = openDatabase(join(tempDir(t), 'a.sqlite'), { evidenceTables: [RECEIPTS] });
  t.after(() => store.close());
  assert.deepEqual(listEvidenceTables(store.sqlite), [{ name: 'receipts', columns: { subject: 'text', kind: 'text' } }]);
  const indexes = store.sqlite.prepare(`SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'receipts' ORDER BY name`).all();
  assert.deepEqual(indexes.map((row) => row['name']), ['receipts_kind', 'receipts_subject']);
});

const REFUSED_CHANGES: Array<[string, string, RegExp]> = [
  ['UPDATE', `UPDATE receipts SET kind = 'forged'`, /Evidence table "receipts" is append-only: UPDATE refused$/],
  ['DELETE', 'DELETE FROM receipts WHERE seq = 1', /Evidence table "receipts" is append-only: DELETE refused$/],
  ['DELETE of every row', 'DELETE FROM receipts', /Evidence table "receipts" is append-only: DELETE refused$/],
  [
    'INSERT OR REPLACE of an existing seq',
    `INSERT OR REPLACE INTO receipts SELECT seq, recorded_at, 'x', 'y', payload, sha256, prev_sha256 FROM receipts WHERE seq = 1`,
    /Evidence table "receipts" is append-only: REPLACE refused$/,
  ],
  ['UPSERT', `INSERT INTO receipts SELECT * FROM receipts WHERE seq = 1 ON CONFLICT (seq) DO UPDATE SET kind = 'x'`, /append-only: (REPLACE|UPDATE) refused$/],
];

for (const [label, sql, message] of REFUSED_CHANGES) {
  test(`An evidence table refuses ${label} with a message naming the table`, async (t) => {
    const store = openDatabase(join(tempDir(t), 'a.sqlite'), { evidenceTables: [RECEIPTS] });
    t.after(() => store.close());
    await store.append(RECEIPTS, { subject: 's', kind: 'created', payload: { n: 1 } });
    assert.throws(() => store.sqlite.exec(sql), message);
    assert.deepEqual(store.readRows(RECEIPTS).map((row) => [row.seq, row.kind, row.subject]), [[1, 'created', 's']]);
  });
}

test('The evidence registry refuses UPDATE and DELETE', async (t) => {
  const store = openDatabase(join(tempDir(t), 'a.sqlite'), { evidenceTables: [RECEIPTS] });
  t.after(() => store.close());
  assert.throws(() => store.sqlite.exec(`DELETE FROM _evidence_tables`), /Evidence registry "_evidence_tables" is append-only: DELETE refused$/);
  assert.throws(() => store.sqlite.exec(`UPDATE _evidence_tables SET columns = '{}'`), /append-only: UPDATE refused$/);
});

test('openDatabase() refuses a declaration whose columns differ from the stored table', async (t) => {
  const path = join(tempDir(t), 'a.sqlite');
  await openDatabase(path, { evidenceTables: [RECEIPTS] }).close();
  const changed = defineEvidenceTable({ name: 'receipts', columns: { subject: 'text' } });
  assert.throws(
    () => openDatabase(path, { evidenceTables: [changed] }),
    (error: unknown) =>
      isAirlockError(error, 'store_version') &&
      /^Cannot open evidence table "receipts" in ".*": declared columns \{"subject":"text"\} differ from the database's \{"kind":"text","subject":"text"\}$/.test(error.message),
  );
});

test('openDatabase() accepts two equal declarations of one table and refuses two different ones', async (t) => {
  const twin = defineEvidenceTable({ name: 'receipts', columns: { kind: 'text', subject: 'text' } });
  const store = openDatabase(join(tempDir(t), 'a.sqlite'), { evidenceTables: [RECEIPTS, twin] });
  t.after(() => store.close());
  assert.equal((await store.append(twin, { subject: 's', kind: 'k', payload: 1 })).seq, 1);
  const other = defineEvidenceTable({ name: 'receipts', columns: { subject: 'text' } });
  assert.throws(() => openDatabase(join(tempDir(t), 'b.sqlite'), { evidenceTables: [RECEIPTS, other] }), /declared columns \{"subject":"text"\} differ/);
});

test('openDatabase() opens an existing evidence table again with the same declaration', async (t) => {
  const path = join(tempDir(t), 'a.sqlite');
  const first = openDatabase(path, { evidenceTables: [RECEIPTS] });
  await first.append(RECEIPTS, { subject: 's', kind: 'k', payload: 1 });
  await first.close();
  const again = openDatabase(path, { evidenceTables: [RECEIPTS] });
  t.after(() => again.close());
  const row = await again.append(RECEIPTS, { subject: 's', kind: 'k', payload: 2 });
  assert.equal(row.seq, 2);
});

test('defineEvidenceTable() with `indexed` indexes only those columns, and an older table loses its other indexes when opened again', async (t) => {
  const path = join(tempDir(t), 'a.sqlite');
  const indexesOf = (store: ReturnType<typeof openDatabase>) =>
    store.sqlite.prepare(`SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'receipts' ORDER BY name`).all().map((row) => row['name']);
  const first = openDatabase(path, { evidenceTables: [RECEIPTS] });
  await first.append(RECEIPTS, { subject: 's', kind: 'k', payload: 1 });
  assert.deepEqual(indexesOf(first), ['receipts_kind', 'receipts_subject']);
  await first.close();
  const lean = defineEvidenceTable({ name: 'receipts', columns: { subject: 'text', kind: 'text' }, indexed: ['subject'] });
  const again = openDatabase(path, { evidenceTables: [lean] });
  t.after(() => again.close());
  assert.deepEqual(indexesOf(again), ['receipts_subject']);
  assert.equal((await again.append(lean, { subject: 's', kind: 'k', payload: 2 })).seq, 2);
  const fresh = openDatabase(join(tempDir(t), 'b.sqlite'), { evidenceTables: [lean] });
  t.after(() => fresh.close());
  assert.deepEqual(indexesOf(fresh), ['receipts_subject']);
  assert.throws(() => defineEvidenceTable({ name: 'r', columns: { a: 'text' }, indexed: ['b' as 'a'] }), /^TypeError: Invalid index on "b" in evidence table "r": it is not a declared column$/);
});

test('Store.append() stores seq, recorded_at, the canonical payload and the chained hash', async (t) => {
  const now = steppingClock();
  const store = openDatabase(join(tempDir(t), 'a.sqlite'), { evidenceTables: [RECEIPTS], now });
  t.after(() => store.close());
  // The registry took the first tick of the clock.
  const first = await store.append(RECEIPTS, { subject: 'case-1', kind: 'created', payload: { z: 1, a: [true, null] } });
  const second = await store.append(RECEIPTS, { subject: 'case-1', kind: 'closed', payload: 'done' });
  assert.deepEqual(first, {
    subject: 'case-1',
    kind: 'created',
    seq: 1,
    recorded_at: '2026-01-01T00:00:01.000Z',
    prev_sha256: GENESIS_SHA256,
    payload: { a: [true, null], z: 1 },
    sha256: rowHash({ seq: 1, recorded_at: '2026-01-01T00:00:01.000Z', prev_sha256: GENESIS_SHA256, payload: { z: 1, a: [true, null] }, subject: 'case-1', kind: 'created' }),
  });
  assert.equal(second.prev_sha256, first.sha256);
  assert.match(second.sha256, /^[0-9a-f]{64}$/);
  const stored = store.sqlite.prepare('SELECT payload FROM receipts WHERE seq = 1').get();
  assert.equal(stored?.['payload'], '{"a":[true,null],"z":1}');
});

test('rowHash() is the SHA-256 of the canonical JSON of the row, independent of key order', () => {
  const fields = { seq: 1, recorded_at: '2026-01-01T00:00:00.000Z', prev_sha256: GENESIS_SHA256, payload: { b: 1, a: 2 }, subject: 's' };
  const canonical = `{"payload":{"a":2,"b":1},"prev_sha256":"${GENESIS_SHA256}","recorded_at":"2026-01-01T00:00:00.000Z","seq":1,"subject":"s"}`;
  assert.equal(rowHash(fields), createHash('sha256').update(canonical).digest('hex'));
  assert.equal(
    rowHash(fields),
    rowHash({ subject: 's', payload: { a: 2, b: 1 }, prev_sha256: GENESIS_SHA256, recorded_at: '2026-01-01T00:00:00.000Z', seq: 1 }),
  );
});

test('rowHasher() gives rowHash() of the same row, wherever the declared columns sort among the chain fields', () => {
  const columns = { amount: 1299, key: 'k-1', qq: 'between prev_sha256 and recorded_at', scope: 'erp POST /x', zeta: 'last \u00e9 "quoted"' };
  const chain = { seq: 42, recorded_at: '2026-01-01T00:00:00.000Z', prev_sha256: 'ab'.repeat(32) };
  const payload = { b: [1, 'two', null], a: { nested: true } };
  const hasher = rowHasher(Object.keys(columns));
  const texts = Object.values(columns).map((value) => canonicalJson(value));
  assert.equal(hasher({ columnTexts: texts, ...chain, payloadText: canonicalJson(payload) }), rowHash({ ...columns, ...chain, payload }));
  assert.equal(rowHasher([])({ columnTexts: [], ...chain, payloadText: '1' }), rowHash({ ...chain, payload: 1 }));
});

const BAD_INPUTS: Array<[string, Record<string, unknown>, RegExp]> = [
  ['a missing column', { subject: 's', payload: 1 }, /column "kind" must be a string$/],
  ['a number in a text column', { subject: 1, kind: 'k', payload: 1 }, /column "subject" must be a string$/],
  ['an undeclared column', { subject: 's', kind: 'k', extra: 1, payload: 1 }, /"extra" is not a declared column$/],
  ['a payload that is not JSON', { subject: 's', kind: 'k', payload: { at: new Date(0) } }, /a Date is not plain JSON data$/],
  ['a missing payload', { subject: 's', kind: 'k' }, /a undefined is not JSON$/],
  ['a lone surrogate in a column', { subject: '\ud800', kind: 'k', payload: 1 }, /lone surrogate$/],
];

for (const [label, input, message] of BAD_INPUTS) {
  test(`Store.append() rejects ${label} without touching the table`, async (t) => {
    const store = openDatabase(join(tempDir(t), 'a.sqlite'), { evidenceTables: [RECEIPTS] });
    t.after(() => store.close());
    await assert.rejects(store.append(RECEIPTS, input as never), (error: unknown) => error instanceof TypeError && message.test(error.message));
    assert.deepEqual(store.readRows(RECEIPTS), []);
  });
}

test('Store.append() checks integer columns and rejects a table it was not opened with', async (t) => {
  const amounts = defineEvidenceTable({ name: 'amounts', columns: { cents: 'integer' } });
  const store = openDatabase(join(tempDir(t), 'a.sqlite'), { evidenceTables: [amounts] });
  t.after(() => store.close());
  assert.equal((await store.append(amounts, { cents: -5, payload: null })).cents, -5);
  await assert.rejects(store.append(amounts, { cents: 1.5, payload: null }), /column "cents" must be a safe integer$/);
  await assert.rejects(store.append(amounts, { cents: 2 ** 53, payload: null }), /column "cents" must be a safe integer$/);
  await assert.rejects(
    store.append(RECEIPTS, { subject: 's', kind: 'k', payload: 1 }),
    /^TypeError: Cannot append to evidence table "receipts": it was not declared when ".*" was opened$/,
  );
});

test('the row append() returns has a plain payload: assignable, readable when frozen, a snapshot of the input', async (t) => {
  const store = openDatabase(join(tempDir(t), 'a.sqlite'), { evidenceTables: [RECEIPTS], now: steppingClock() });
  t.after(() => store.close());
  const input = { items: [1, { note: 'é😀' }] };
  const append = () => store.write((_sqlite, tx) => tx.append(RECEIPTS, { subject: 's', kind: 'k', payload: input }));
  const assigned = await append();
  (assigned as { payload: unknown }).payload = { replaced: true };
  assert.deepEqual(assigned.payload, { replaced: true });
  const frozen = Object.freeze(await append());
  assert.deepEqual(frozen.payload, input);
  assert.equal(frozen.payload, frozen.payload);
  const snapshot = await append();
  input.items.push(3);
  assert.deepEqual(snapshot.payload, { items: [1, { note: 'é😀' }] });
  assert.deepEqual(JSON.parse(JSON.stringify(snapshot)).payload, snapshot.payload);
  assert.deepEqual({ ...snapshot }, structuredClone(snapshot));
});
