// Issue 24: a folder listing, its total, a search and the transcript references cost the same
// whatever the repository holds. Each test counts the SQLite steps of every statement a path
// runs at two sizes and requires them flat, instead of timing anything.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import type { Store } from '../../src/kernel/index.ts';
import { COUNT_WINDOW } from '../../src/content/bounded-total.ts';
import { listEnvelope } from '../../src/content/alfresco-shapes.ts';
import { ROOT_NODE_ID, openContentDatabase } from '../../src/content/database.ts';
import { readOrderBy } from '../../src/content/listing-query.ts';
import { permissionPolicy, readableBy } from '../../src/content/permissions.ts';
import { listChildren, listVersionPage } from '../../src/content/repository.ts';
import { indexNode } from '../../src/content/search-index.ts';
import { SEARCH_WINDOW, searchNodes } from '../../src/content/search.ts';
import { TAGGED_NODES_SQL } from '../../src/content/transcript-references.ts';
import { stepCounter } from '../helpers/sqlite-steps.ts';
import type { StepCounter } from '../helpers/sqlite-steps.ts';

let store: Store;
let steps: StepCounter;
const FOLDER = 'folder-inbox';
const BASE = Date.UTC(2026, 0, 1);

/** Files `from` .. `to` - 1 in one folder, each indexed with the word "common" and its own "solo<i>"; every tenth a transcript. */
function grow(from: number, to: number): void {
  const insert = store.sqlite.prepare(`INSERT INTO nodes (id, parent_id, name, name_key, node_type, is_folder, created_at, created_by, modified_at, modified_by, properties, owner)
    VALUES (?, ?, ?, ?, 'cm:content', 0, ?, '{"id":"u"}', ?, '{"id":"u"}', ?, 'u')`);
  store.sqlite.exec('BEGIN');
  for (let i = from; i < to; i++) {
    const at = new Date(BASE + i * 1000).toISOString();
    insert.run(`node-${i}`, FOLDER, `doc-${i}.txt`, `doc-${i}.txt`, at, at, i % 10 === 0 && i < 20 ? '{"assistant:kind":"transcript"}' : '{}');
    indexNode(store.sqlite, { nodeId: `node-${i}`, name: `doc-${i}.txt`, metadata: '', body: `common words solo${i}` });
  }
  store.sqlite.exec('COMMIT');
}

const dir = mkdtempSync(join(tmpdir(), 'airlock-content-listing-'));
test.before(async () => {
  store = await openContentDatabase(join(dir, 'content.sqlite'));
  store.sqlite.exec(`INSERT INTO nodes (id, parent_id, name, name_key, node_type, is_folder, created_at, created_by, modified_at, modified_by, properties) VALUES ('${FOLDER}', '${ROOT_NODE_ID}', 'Inbox', 'inbox', 'cm:folder', 1, '', '{}', '', '{}', '{}')`);
  steps = stepCounter(store.sqlite);
});
test.after(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const LARGE = COUNT_WINDOW * 5;

test('listChildren() takes as many steps at 10x the window as at 5x, in the default order and by time, and gives up the total beyond the window', () => {
  grow(0, 300);
  const orders = [undefined, readOrderBy('createdAt DESC'), readOrderBy('modifiedAt DESC')];
  const page = { skipCount: 0, maxItems: 25 };
  const small = orders.map((orderBy) => steps(() => listChildren(store.sqlite, FOLDER, { ...page, ...(orderBy && { orderBy }) })));
  assert.deepEqual(small.map((s) => [s.result.total, s.result.exact]), [[300, true], [300, true], [300, true]]);
  grow(300, LARGE);
  const large = orders.map((orderBy) => steps(() => listChildren(store.sqlite, FOLDER, { ...page, ...(orderBy && { orderBy }) })));
  for (const s of large) assert.deepEqual([s.result.total, s.result.exact], [COUNT_WINDOW + 25, false]);
  // The page comes from an index and the count walks at most COUNT_WINDOW entries past it: twice the children, the same steps.
  grow(LARGE, LARGE * 2);
  const larger = orders.map((orderBy) => steps(() => listChildren(store.sqlite, FOLDER, { ...page, ...(orderBy && { orderBy }) })));
  for (const [i, s] of larger.entries()) assert.equal(s.steps, large[i]!.steps, `order ${i}: ${large[i]!.steps} steps at ${LARGE} children, ${s.steps} at ${LARGE * 2}`);
  assert.deepEqual(large[1]!.result.rows.slice(0, 2).map((r) => r.name), [`doc-${LARGE - 1}.txt`, `doc-${LARGE - 2}.txt`], 'createdAt DESC: newest first');
  assert.deepEqual(larger[1]!.result.rows.slice(0, 1).map((r) => r.name), [`doc-${LARGE * 2 - 1}.txt`]);
  // Alfresco's envelope without totalItems, and hasMoreItems still true.
  const envelope = listEnvelope([], { paging: page, totalItems: large[0]!.result.total, totalExact: large[0]!.result.exact }) as { list: { pagination: Record<string, unknown> } };
  assert.deepEqual(envelope.list.pagination, { count: 0, hasMoreItems: true, skipCount: 0, maxItems: 25 });
});

test('searchNodes() for a word in every document, and a rare word beside a common one or a negated one, take the same steps at 2x the rows', () => {
  const queries = ['common', 'solo7 AND NOT common', 'common AND NOT solo7', 'words AND common', 'common AND solo7'];
  const run = () => queries.map((query) => steps(() => searchNodes(store.sqlite, { query, paging: { skipCount: 0, maxItems: 25 } })));
  const before = run();
  grow(LARGE * 2, LARGE * 4);
  const after = run();
  for (const [i, s] of after.entries()) {
    assert.ok(s.steps <= before[i]!.steps * 1.05 + 50, `"${queries[i]}": steps grew from ${before[i]!.steps} to ${s.steps}`);
  }
  assert.equal(after[0]!.result.exact, false);
  assert.equal(after[0]!.result.total, SEARCH_WINDOW);
  assert.equal(after[0]!.result.rows.length, 25);
  assert.equal(after[2]!.result.total, SEARCH_WINDOW, 'solo7 is not among the newest candidates');
  assert.deepEqual([after[1]!.result.total, after[1]!.result.exact], [0, true]);
  const rare = searchNodes(store.sqlite, { query: 'solo7', paging: { skipCount: 0, maxItems: 25 } });
  assert.deepEqual([rare.rows.map((r) => r.node.name), rare.total, rare.exact], [['doc-7.txt'], 1, true], 'an old document is found by its own word');
  // The window holds the rows with both words (FTS5's AND), not the newest rows with either.
  assert.deepEqual([after[4]!.result.rows.map((r) => r.node.name), after[4]!.result.total, after[4]!.result.exact], [['doc-7.txt'], 1, true], 'a common word and a rare one together: the old document');
});

test('the read check of a search by someone who owns none of its hits reads their folder once, not once a hit', () => {
  // A connection of its own, so that every statement the check prepares is counted.
  const sqlite = new DatabaseSync(join(dir, 'content.sqlite'), { readOnly: true });
  try {
    const counted = stepCounter(sqlite);
    const reader = readableBy(sqlite, permissionPolicy({ writersGroup: undefined, coordinatorsGroup: undefined }), { id: 'reader', groups: [] });
    const request = { query: 'common', paging: { skipCount: 0, maxItems: 25 } };
    const alone = counted(() => searchNodes(sqlite, request));
    const checked = counted(() => searchNodes(sqlite, { ...request, readable: reader }));
    // Everyone reads Company Home (the policy's root grant) and the folder inherits it.
    assert.deepEqual([checked.result.total, checked.result.rows.length], [SEARCH_WINDOW, 25]);
    assert.ok(checked.steps - alone.steps < 100, `the read check of ${SEARCH_WINDOW} hits in one folder took ${checked.steps - alone.steps} steps`);
  } finally {
    sqlite.close();
  }
});

test('the transcript references read their nodes through the assistant:kind index, in the same steps at any size', () => {
  const plan = store.sqlite.prepare(`EXPLAIN QUERY PLAN ${TAGGED_NODES_SQL}`).all().map((row) => String(row['detail'])).join('\n');
  assert.match(plan, /USING INDEX nodes_assistant_kind/, plan);
  const first = steps(() => store.sqlite.prepare(TAGGED_NODES_SQL).all());
  grow(LARGE * 4, LARGE * 5);
  const second = steps(() => store.sqlite.prepare(TAGGED_NODES_SQL).all());
  assert.equal(first.result.length, 2);
  assert.equal(second.steps, first.steps);
});

test('a file\'s versions page newest first from an index: the same steps at 5x and 10x the window of versions', () => {
  const insert = store.sqlite.prepare(`INSERT INTO versions (node_id, label, major, minor, name, sha256, size, mime_type, comment, created_at, created_by) VALUES ('node-0', ?, ?, ?, 'doc-0.txt', '${'0'.repeat(64)}', 1, 'text/plain', NULL, '', '{}')`);
  const add = (from: number, to: number) => {
    store.sqlite.exec('BEGIN');
    for (let i = from; i < to; i++) insert.run(`${Math.floor(i / 10) + 1}.${i % 10}`, Math.floor(i / 10) + 1, i % 10);
    store.sqlite.exec('COMMIT');
  };
  const page = () => steps(() => listVersionPage(store.sqlite, 'node-0', { skipCount: 0, maxItems: 25 }));
  add(0, LARGE);
  const first = page();
  add(LARGE, LARGE * 2);
  const second = page();
  assert.equal(second.steps, first.steps, `${first.steps} steps at ${LARGE} versions, ${second.steps} at ${LARGE * 2}`);
  assert.deepEqual([second.result.total, second.result.exact], [COUNT_WINDOW + 25, false]);
  assert.deepEqual(second.result.rows.slice(0, 2).map((v) => v.label), [`${LARGE / 5}.9`, `${LARGE / 5}.8`], 'newest first, by number not by text');
});
