// Issue 24: a search's score costs the same however many documents hold its words. FTS5's bm25
// counts every document holding each phrase of the query on each search, so a word in most of a
// million documents cost 60 to 100 ms whatever the window; past BM25_DOCUMENTS the score is the
// weights of the fields the words are in, asked of the window's rows alone. The cost is inside
// FTS5, where SQLite's step counter does not look, so the test counts the pages a search reads
// from the database file (test/helpers/sqlite-page-reads.ts) at two sizes of the index.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { createReadPool } from '../../src/kernel/index.ts';
import type { Store } from '../../src/kernel/index.ts';
import { LONG_PREFIXES_PER_QUERY, PREFIX_WORDS } from '../../src/content/search-prefixes.ts';
import { BM25_DOCUMENTS, SEARCH_WINDOW, searchNodes, searchNodesOnPool } from '../../src/content/search.ts';
import { aftsMatch } from '../../src/content/afts-sql.ts';
import type { SearchRequest } from '../../src/content/search.ts';
import { pageReads } from '../helpers/sqlite-page-reads.ts';
import { openIndexedFolder } from './fixtures/indexed-folder.ts';
import type { IndexedFolder } from './fixtures/indexed-folder.ts';

let folder: IndexedFolder;
let store: Store;
let path: string;
let grown = 0;

/**
 * Files up to `to`, each with "common" in its text; every 100th also has it in its name, and
 * every 10th has "tenth" in its text twice, or once, in turn.
 */
function growTo(to: number): void {
  folder.add(grown, to, (i) => {
    const tenth = i % 10 !== 0 ? '' : i % 20 === 0 ? ' tenth report tenth' : ' tenth report';
    return { name: i % 100 === 0 ? `common-${i}.txt` : `doc-${i}.txt`, body: `common words solo${i}${tenth}` };
  });
  grown = to;
}

test.before(async () => {
  folder = await openIndexedFolder('score');
  ({ store, path } = folder);
});
test.after(() => folder.close());

function search(query: string, reader: DatabaseSync = store.sqlite): ReturnType<typeof searchNodes> {
  const request: SearchRequest = { query, paging: { skipCount: 0, maxItems: 25 } };
  return searchNodes(reader, request);
}

/** The pages one search reads, on a connection of its own (an empty page cache). */
function pagesRead(query: string): number {
  const reader = new DatabaseSync(path, { readOnly: true });
  try {
    // The schema is read once per connection, whatever the query.
    reader.prepare('SELECT count(*) FROM sqlite_schema').get();
    return pageReads(() => search(query, reader)).reads;
  } finally {
    reader.close();
  }
}

test('words in few documents are ranked by bm25: a word twice in a document ranks it above one with the word once', () => {
  growTo(2000);
  const { rows, total, exact } = search('tenth');
  assert.deepEqual([total, exact], [200, true]);
  // Twice in a text of the same length scores higher; among equals, the newest first.
  assert.equal(rows[0]!.node.name, 'doc-1980.txt');
  assert.ok(rows.slice(0, 10).every(({ node }) => Number(/\d+/.exec(node.name)![0]) % 20 === 0), 'the ten documents with the word twice come first');
  assert.ok(!Number.isInteger(rows[0]!.score), `a bm25 score, not a field weight: ${rows[0]!.score}`);
});

test(`past ${BM25_DOCUMENTS} documents the score is the fields' weights: a name match first, then the newest`, () => {
  growTo(BM25_DOCUMENTS + 1000);
  const { rows, total, exact } = search('common');
  assert.deepEqual([total, exact], [SEARCH_WINDOW, false]);
  // Name (10) and text (1) for every 100th document, text alone for the others.
  assert.deepEqual(rows.slice(0, 10).map(({ node, score }) => [node.name, score]), [5900, 5800, 5700, 5600, 5500, 5400, 5300, 5200, 5100, 5000].map((i) => [`common-${i}.txt`, 11]));
  assert.deepEqual(rows.slice(10, 13).map(({ node, score }) => [node.name, score]), [['doc-5999.txt', 1], ['doc-5998.txt', 1], ['doc-5997.txt', 1]]);
  // Only the window's documents are ranked: an older name match is not among them.
  assert.ok(!rows.some(({ node }) => node.name === 'common-4900.txt'));
});

test('the fields\' score adds the fields holding any of the query\'s words: a name holding one of two words ranks first', () => {
  growTo(BM25_DOCUMENTS + 1000);
  // Every 100th document is named after "common" and holds "tenth" (and "common") in its text;
  // the others of the 600 with "tenth" hold both words in their text only. Before, a field
  // counted only when it held both words: every hit scored 1, newest first.
  const { rows, total } = search('common AND tenth');
  assert.equal(total, 600);
  // The 60 named ones (name 10, text 1) first, newest first; then text alone (1).
  assert.deepEqual(rows.map(({ node, score }) => [node.name, score]), Array.from({ length: 25 }, (_, k) => [`common-${5900 - 100 * k}.txt`, 11]));
});

test('a search whose full window holds no hit answers without a total: older documents may match', async (t) => {
  growTo(BM25_DOCUMENTS + 1000);
  // The service's searches run on the read pool, which counts the window with a read of its own.
  const reads = createReadPool(path, { threads: 1, functions: { afts_match: aftsMatch } });
  t.after(() => reads.close());
  // doc-0 .. doc-59 were created in the first minute, long before the window's newest 1,000;
  // solo1 (so?o1) is doc-1's word. Before, an answer without hits said "exactly none".
  for (const query of ['common AND cm:created:[MIN TO 2026-01-01T00:00:59Z]', 'so?o1', 'common -words']) {
    const { rows, total, exact } = search(query);
    assert.deepEqual([rows.length, total, exact], [0, 0, false], query);
    const pooled = await searchNodesOnPool(reads, store.sqlite, { query, paging: { skipCount: 0, maxItems: 25 } });
    assert.deepEqual([pooled.rows.length, pooled.total, pooled.exact], [0, 0, false], `${query} on the pool`);
  }
  // A window that is not full is answered in full, also when nothing in it is a hit.
  assert.deepEqual(search('tenth AND cm:created:[MIN TO 2026-01-01T00:00:05Z]').exact, true);
});

test(`a query of ${LONG_PREFIXES_PER_QUERY} longer prefixes of ${PREFIX_WORDS} words each, the most one may hold, is answered: its phrases' counts are one condition however many they are`, () => {
  growTo(BM25_DOCUMENTS + 1000);
  // solo10* .. solo41*: each stands for solo10, solo100 .. solo109, solo1000 .. (more than 64 words).
  const prefixes = Array.from({ length: LONG_PREFIXES_PER_QUERY }, (_, i) => `solo${10 + i}*`);
  // 2,048 phrases, each in one document: bm25's score. Before, SQLite refused the condition
  // (2,048 ANDs: "Expression tree is too large (maximum depth 1000)") from 16 such prefixes on.
  const rare = search(prefixes.join(' OR '));
  assert.equal(rare.exact, false, 'more than 64 words start with each prefix');
  assert.ok(rare.rows.length > 0 && rare.rows.every(({ node }) => /^(doc|common)-[1-4]\d{1,3}\.txt$/.test(node.name)), rare.rows.map(({ node }) => node.name).join());
  assert.ok(!Number.isInteger(rare.rows[0]!.score), `bm25: ${rare.rows[0]!.score}`);
  // With a word in every document besides: the fields' score.
  const common = search(`common AND (${prefixes.slice(0, LONG_PREFIXES_PER_QUERY - 1).join(' OR ')})`);
  assert.ok(common.rows.length > 0 && common.rows.every(({ score }) => Number.isInteger(score)), common.rows.map(({ score }) => score).join());
});

test('a search of a word in every document reads about as many pages at four times the documents', () => {
  growTo(2 * BM25_DOCUMENTS);
  const small = pagesRead('common');
  growTo(8 * BM25_DOCUMENTS);
  const large = pagesRead('common');
  // The window's part of the word's list of documents and its first BM25_DOCUMENTS, in each of
  // the index's segments, whose number grows with the log of the documents, as the B-trees'
  // levels do: 79 pages, then 99. With bm25 counting the word's whole list: 88, then 141.
  assert.ok(large <= small + 30, `${small} pages read at ${2 * BM25_DOCUMENTS} documents, ${large} at ${8 * BM25_DOCUMENTS}`);
});
