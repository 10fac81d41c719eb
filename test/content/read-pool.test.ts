// Issue 24, "reads never stall the service": searches and folder listings run on the content
// service's read pool (worker threads with read-only connections), so the readiness probe
// answers while they are in flight; their answers are those of the same queries on the writer's
// connection; and a spent read budget is Alfresco's error body with 503 and Retry-After.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import { createReadPool } from '../../src/kernel/index.ts';
import { ROOT_NODE_ID } from '../../src/content/database.ts';
import { listChildren, listChildrenOnPool } from '../../src/content/repository.ts';
import { indexNode } from '../../src/content/search-index.ts';
import { parseAfts } from '../../src/content/afts-parse.ts';
import { aftsMatch, unindexedPrefixes } from '../../src/content/afts-sql.ts';
import { searchNodes, searchNodesOnPool } from '../../src/content/search.ts';
import { send } from '../helpers/http.ts';
import { API, SEARCH, login, startContent } from './_service.ts';
import type { Harness } from './_service.ts';
import { users } from './_users.ts';

const FOLDER = 'folder-many';
const FILES = 5000;
const BASE = Date.UTC(2026, 0, 1);

let h: Harness;
const as = users(() => h);

/** A folder under Company Home with FILES files, each indexed with "common" and its own "solo<i>", written beside the running service (WAL). */
function grow(path: string): void {
  const sqlite = new DatabaseSync(path, { timeout: 5000 });
  try {
    sqlite.exec(`INSERT INTO nodes (id, parent_id, name, name_key, node_type, is_folder, created_at, created_by, modified_at, modified_by, properties, owner) VALUES ('${FOLDER}', '${ROOT_NODE_ID}', 'Many', 'many', 'cm:folder', 1, '2026-01-01T00:00:00.000Z', '{"id":"u"}', '2026-01-01T00:00:00.000Z', '{"id":"u"}', '{}', 'u')`);
    const insert = sqlite.prepare(`INSERT INTO nodes (id, parent_id, name, name_key, node_type, is_folder, created_at, created_by, modified_at, modified_by, properties, owner)
      VALUES (?, ?, ?, ?, 'cm:content', 0, ?, '{"id":"u"}', ?, '{}', '{}', 'u')`);
    sqlite.exec('BEGIN');
    for (let i = 0; i < FILES; i++) {
      const at = new Date(BASE + i * 1000).toISOString();
      insert.run(`node-${i}`, FOLDER, `doc-${i}.txt`, `doc-${i}.txt`, at, at);
      indexNode(sqlite, { nodeId: `node-${i}`, name: `doc-${i}.txt`, metadata: '', body: `common words solo${i} ${i % 3 === 0 ? 'third' : ''}` });
    }
    sqlite.exec('COMMIT');
  } finally {
    sqlite.close();
  }
}

before(async () => {
  h = await startContent();
  grow(join(h.dataDir, 'content.sqlite'));
});
after(() => h.close());

test('-ready- answers while the heaviest search is in flight on the read pool', async () => {
  const queriesBefore = h.service.reads.stats().queries;
  let searchesDone = 0;
  // A word in every file: each search ranks and permission-checks a full window of candidates.
  const searches = Array.from({ length: 8 }, () => as.call('ada', 'POST', SEARCH, { query: { query: 'common' }, paging: { maxItems: 25 } }).then((answer) => {
    searchesDone++;
    return answer;
  }));
  // The probe goes once every search has asked the pool (or after 5 s: on the event loop they never would, and are all answered by then).
  for (const start = Date.now(); h.service.reads.stats().queries - queriesBefore < searches.length && Date.now() - start < 5000;) await new Promise((resolve) => setTimeout(resolve, 2));
  const probe = await send(`${h.base}${API}/probes/-ready-`);
  const doneWhenProbed = searchesDone;
  assert.equal(probe.status, 200, probe.text);
  const answers = await Promise.all(searches);
  for (const answer of answers) {
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body?.['list']?.['entries']?.length, 25);
    assert.equal(answer.body?.['list']?.['pagination']?.['hasMoreItems'], true);
  }
  // Every answer is the same page.
  assert.equal(new Set(answers.map((answer) => JSON.stringify(answer.body?.['list']?.['entries']?.map((e: { entry: { id: string } }) => e.entry.id)))).size, 1);
  // On the event loop a search is answered before any request after it: none would be in flight.
  assert.ok(doneWhenProbed < searches.length, `the probe waited for all ${searches.length} searches to finish`);
  assert.ok(h.service.reads.stats().queries - queriesBefore >= 8, 'the searches did not run on the read pool');
});

test('a folder listing runs on the read pool and pages as before', async () => {
  const queriesBefore = h.service.reads.stats().queries;
  const page = await as.call('ada', 'GET', `${API}/nodes/${FOLDER}/children?skipCount=10&maxItems=5&orderBy=createdAt%20DESC`);
  assert.equal(page.status, 200, page.text);
  assert.deepEqual(page.body?.['list']?.['entries']?.map((e: { entry: { name: string } }) => e.entry.name), [4989, 4988, 4987, 4986, 4985].map((i) => `doc-${i}.txt`));
  assert.deepEqual(page.body?.['list']?.['pagination'], { count: 5, hasMoreItems: true, skipCount: 10, maxItems: 5 });
  assert.ok(h.service.reads.stats().queries - queriesBefore >= 2, 'the listing did not run on the read pool');
  // The share UI's folder page lists on the pool too: its first page, by name, and a next page.
  const { browser } = await login(h);
  const before = h.service.reads.stats().queries;
  const share = await browser.get(`${h.base}/share/folder/${FOLDER}`);
  assert.equal(share.status, 200);
  assert.match(share.text, />doc-0\.txt</);
  assert.match(share.text, /\?skip=50">Next page/);
  assert.ok(h.service.reads.stats().queries - before >= 2, 'the share folder page did not list on the read pool');
});

test('searches and listings on the pool answer exactly what the same queries answer on the writer\'s connection', async (t) => {
  const path = join(h.dataDir, 'content.sqlite');
  const sqlite = new DatabaseSync(path, { readOnly: true });
  const reads = createReadPool(path, { threads: 2, functions: { afts_match: aftsMatch } });
  t.after(async () => {
    await reads.close();
    sqlite.close();
  });
  // Permission filtering stays on this thread: a reader who may see every third file only.
  const readable = (node: { id: string }) => Number(node.id.slice('node-'.length)) % 3 === 0;
  const searches = [
    { query: 'common', paging: { skipCount: 0, maxItems: 10 } },
    { query: 'common', paging: { skipCount: 990, maxItems: 20 }, sort: [{ type: 'FIELD' as const, field: 'cm:name', ascending: true }] },
    { query: 'solo42 OR solo4999', paging: { skipCount: 0, maxItems: 10 } },
    { query: 'common -third', paging: { skipCount: 5, maxItems: 10 }, filterQueries: ['+TYPE:"cm:content"'] },
    { query: 'common', paging: { skipCount: 0, maxItems: 10 }, readable },
    // An inner wildcard calls afts_match(), which the pool's threads have too.
    { query: 'so?o4999', paging: { skipCount: 0, maxItems: 10 } },
    { query: 'com*n AND solo49*', paging: { skipCount: 0, maxItems: 10 } },
  ];
  for (const request of searches) {
    const asked = reads.stats().queries;
    const onPool = await searchNodesOnPool(reads, sqlite, request);
    // A prefix longer than the indexed ones is expanded to its words on the pool first: one query more.
    assert.equal(reads.stats().queries, asked + 1 + unindexedPrefixes(parseAfts(request.query)).length, `${request.query}: not asked of the pool`);
    assert.deepEqual(onPool, searchNodes(sqlite, request), request.query);
    assert.ok(onPool.rows.length > 0, request.query);
  }
  // A search expands its long prefixes one after another: it holds at most one place in the pool's queue.
  let inFlight = 0;
  let most = 0;
  const counted = { ...reads, query: async (...args: Parameters<typeof reads.query>) => {
    most = Math.max(most, ++inFlight);
    try {
      return await reads.query(...args);
    } finally {
      inFlight--;
    }
  } };
  const longPrefixes = { query: 'solo49* OR solo48* OR solo47* OR solo46*', paging: { skipCount: 0, maxItems: 10 } };
  assert.equal(unindexedPrefixes(parseAfts(longPrefixes.query)).length, 4);
  assert.deepEqual(await searchNodesOnPool(counted, sqlite, longPrefixes), searchNodes(sqlite, longPrefixes));
  assert.equal(most, 1, 'the prefixes were looked up at once');
  const listings = [
    { skipCount: 0, maxItems: 7 },
    { skipCount: 4995, maxItems: 10 },
    { skipCount: 100, maxItems: 10, orderBy: 'n.modified_at DESC' },
    { skipCount: 0, maxItems: 10, viewer: { id: 'nobody', authorities: ['GROUP_EVERYONE'], inheritsRead: false } },
    { skipCount: 0, maxItems: 10, where: { sql: 'n.is_folder = ?', args: [0] } },
  ];
  // Rows from a worker are plain objects, node:sqlite's have a null prototype: compared as the JSON they become.
  const json = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;
  for (const query of listings) assert.deepEqual(json(await listChildrenOnPool(reads, FOLDER, query)), json(listChildren(sqlite, FOLDER, query)), JSON.stringify(query));
});

test('a spent read budget is Alfresco\'s error body with 503 and Retry-After, for a search and a folder listing', async (t) => {
  // A budget shorter than a read thread takes to start: every pool read is refused.
  const spent = await startContent({}, { reads: { budgetMs: 1 } });
  const previous = h;
  h = spent;
  t.after(async () => {
    h = previous;
    await spent.close();
  });
  const answers = [
    await as.call('ada', 'POST', SEARCH, { query: { query: 'anything' } }),
    await as.call('ada', 'GET', `${API}/nodes/-root-/children`),
  ];
  for (const answer of answers) {
    assert.equal(answer.status, 503, answer.text);
    assert.equal(answer.headers['retry-after'], '1');
    assert.deepEqual(Object.keys(answer.body?.['error'] ?? {}).sort(), ['briefSummary', 'descriptionURL', 'errorKey', 'logId', 'stackTrace', 'statusCode']);
    assert.equal(answer.body?.['error']?.['statusCode'], 503);
    assert.match(String(answer.body?.['error']?.['briefSummary']), /budget/);
  }
  assert.equal((await send(`${spent.base}${API}/probes/-ready-`)).status, 200);
});
