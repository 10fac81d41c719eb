import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { openDatabase } from '../../src/kernel/store/open-database.ts';
import { RECEIPTS, tempDir } from './fixtures/store-fixtures.ts';

const HISTORY: Array<[string, string]> = [
  ['case-1', 'opened'],
  ['case-2', 'opened'],
  ['case-1', 'assigned'],
  ['case-2', 'closed'],
  ['case-1', 'closed'],
  ['case-1', 'reopened'],
];

async function seeded(t: TestContext) {
  const store = openDatabase(join(tempDir(t), 'a.sqlite'), { evidenceTables: [RECEIPTS] });
  t.after(() => store.close());
  await Promise.all(HISTORY.map(([subject, kind], index) => store.append(RECEIPTS, { subject, kind, payload: { index } })));
  return store;
}

const READS: Array<[string, Parameters<ReturnType<typeof openDatabase>['readRows']>[1], number[]]> = [
  ['every row in seq order', {}, [1, 2, 3, 4, 5, 6]],
  ['rows of one subject', { where: { subject: 'case-1' } }, [1, 3, 5, 6]],
  ['rows matching two columns', { where: { subject: 'case-1', kind: 'closed' } }, [5]],
  ['rows after a seq', { afterSeq: 4 }, [5, 6]],
  ['a page', { where: { subject: 'case-1' }, afterSeq: 1, limit: 2 }, [3, 5]],
  ['nothing for an unknown subject', { where: { subject: 'case-9' } }, []],
];

for (const [label, options, expected] of READS) {
  test(`Store.readRows() returns ${label}`, async (t) => {
    const store = await seeded(t);
    assert.deepEqual(store.readRows(RECEIPTS, options).map((row) => row.seq), expected);
  });
}

test('Store.readRows() returns parsed payloads with the chain columns', async (t) => {
  const store = await seeded(t);
  const [row] = store.readRows(RECEIPTS, { limit: 1 });
  assert.deepEqual(Object.keys(row ?? {}).sort(), ['kind', 'payload', 'prev_sha256', 'recorded_at', 'seq', 'sha256', 'subject']);
  assert.deepEqual(row?.payload, { index: 0 });
});

test('Store.readRows() rejects a filter on an undeclared column', async (t) => {
  const store = await seeded(t);
  assert.throws(() => store.readRows(RECEIPTS, { where: { payload: 'x' } as never }), /"payload" is not a declared column$/);
});

test('Store.project() folds rows into the current state of each subject', async (t) => {
  const store = await seeded(t);
  const status = store.project(RECEIPTS, {
    initial: {} as Record<string, string>,
    reduce: (state, row) => ({ ...state, [row.subject]: row.kind }),
  });
  assert.deepEqual(status, { 'case-1': 'reopened', 'case-2': 'closed' });
  const case1 = store.project(RECEIPTS, { where: { subject: 'case-1' }, initial: [] as string[], reduce: (kinds, row) => [...kinds, row.kind] });
  assert.deepEqual(case1, ['opened', 'assigned', 'closed', 'reopened']);
});

test('Store.project() lets a reducer read rows while it iterates', async (t) => {
  const store = await seeded(t);
  // The inner read has the same SQL as the projection's own query: a shared statement would be reset by it.
  const seen = store.project(RECEIPTS, {
    initial: [] as Array<[number, number]>,
    reduce: (out, row) => [...out, [row.seq, store.readRows(RECEIPTS).length] as [number, number]],
  });
  assert.deepEqual(seen, [1, 2, 3, 4, 5, 6].map((seq) => [seq, 6]));
});
