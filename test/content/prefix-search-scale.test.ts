// Issue 24: a prefix search (`solo*`, ADF's `cm:name:"doc-7*"`) costs the same however many
// documents and distinct words share the prefix. Without a prefix index FTS5 answers `p*` by
// merging the doclist of every word of the index that starts with p; that work is inside FTS5,
// where SQLite's step counter does not look. So the test counts, at two sizes of the index, for
// each search: the index words its full-text expression makes FTS5 read (a word or a prefix an
// index holds: one; any other prefix: every word that starts with it), and the pages it reads
// from the database file on a connection of its own (test/helpers/sqlite-page-reads.ts).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import type { SQLInputValue } from 'node:sqlite';
import type { Store } from '../../src/kernel/index.ts';
import { PREFIX_WORDS } from '../../src/content/search-prefixes.ts';
import { SEARCH_WINDOW, searchNodes } from '../../src/content/search.ts';
import { pageReads } from '../helpers/sqlite-page-reads.ts';
import { openIndexedFolder } from './fixtures/indexed-folder.ts';
import type { IndexedFolder } from './fixtures/indexed-folder.ts';

// Both sizes hold more than the window of names starting doc-7 (doc-7 to doc-7999).
const SIZE = 8000;

let folder: IndexedFolder;
let store: Store;
let path: string;

/** Files `from` .. `to` - 1, named doc-<i>.txt, each indexed with "common words" and its own word "solo<i>". */
function grow(from: number, to: number): void {
  folder.add(from, to, (i) => ({ name: `doc-${i}.txt`, body: `common words solo${i}` }));
}

test.before(async () => {
  folder = await openIndexedFolder('prefix');
  ({ store, path } = folder);
});
test.after(() => folder.close());

const QUERIES = {
  // One word in every document, no prefix: what any search of the window reads.
  word: 'common',
  // 4 characters, every document: the prefix index of that length.
  indexed: 'solo*',
  // ADF's name query: the phrase "doc" followed by a word starting with 7 (1 character, indexed).
  adf: 'cm:name:"doc-7*"',
  // 5 characters: 1,111 words start with solo1 at 8,000 documents and 7,111 at 16,000.
  expanded: 'solo1*',
  // 6 characters of one word in every document.
  oneCommonWord: 'common*',
} as const;
type QueryName = keyof typeof QUERIES;

interface Measured {
  result: ReturnType<typeof searchNodes>;
  /** Pages read from the database file. */
  reads: number;
  /** Index words the search's full-text expression makes FTS5 read. */
  words: number;
}

/** The full-text expression a search gives FTS5: the first parameter of its window query. */
function capturingExpression(reader: DatabaseSync): { expression?: string } {
  const seen: { expression?: string } = {};
  const prepare = reader.prepare.bind(reader);
  reader.prepare = (sql: string) => {
    const made = prepare(sql);
    if (!sql.includes('WITH c AS MATERIALIZED')) return made;
    const iterate = made.iterate.bind(made) as (...params: SQLInputValue[]) => ReturnType<typeof made.iterate>;
    (made as { iterate: typeof iterate }).iterate = (...params) => {
      seen.expression = String(params[params.indexOf(SEARCH_WINDOW) - 1]);
      return iterate(...params);
    };
    return made;
  };
  return seen;
}

/** The index words FTS5 reads for an expression: one per word or indexed prefix, every word starting with any other prefix. */
function indexWordsRead(reader: DatabaseSync, expression: string): number {
  const schema = String(reader.prepare(`SELECT sql FROM sqlite_schema WHERE name = 'search_index'`).get()!['sql']);
  const indexed = (/prefix = '([\d ]+)'/.exec(schema)?.[1] ?? '').split(' ').filter(Boolean).map(Number);
  reader.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocabulary USING fts5vocab (main, search_index, 'row')`);
  const sharing = reader.prepare('SELECT count(*) AS n FROM temp.vocabulary WHERE term >= ? AND term < ?');
  let words = 0;
  for (const [, phrase, star] of expression.matchAll(/"([^"]*)"( \*)?/g)) {
    const parts = phrase!.split(' ');
    const last = parts.at(-1)!;
    words += parts.length - 1;
    words += star === undefined || indexed.includes([...last].length) ? 1 : Number(sharing.get(last, `${last}\u{10FFFF}`)!['n']);
  }
  return words;
}

/** Each query's answer, pages read and index words read, on a connection of its own (an empty page cache). */
function measure(): Record<QueryName, Measured> {
  const out = {} as Record<QueryName, Measured>;
  for (const [name, query] of Object.entries(QUERIES) as [QueryName, string][]) {
    const reader = new DatabaseSync(path, { readOnly: true });
    try {
      const seen = capturingExpression(reader);
      // The schema is read once per connection, whatever the query.
      reader.prepare('SELECT count(*) FROM sqlite_schema').get();
      const { result, reads } = pageReads(() => searchNodes(reader, { query, paging: { skipCount: 0, maxItems: 25 }, sort: [{ type: 'FIELD', field: 'cm:created', ascending: false }] }));
      out[name] = { result, reads, words: indexWordsRead(reader, seen.expression!) };
    } finally {
      reader.close();
    }
  }
  return out;
}

test('a prefix search reads as many index words, and no more pages than a word does, at twice the documents and words sharing its prefix', () => {
  grow(0, SIZE);
  const small = measure();
  grow(SIZE, SIZE * 2);
  const large = measure();
  for (const name of Object.keys(QUERIES) as QueryName[]) {
    const report = `${QUERIES[name]}: ${small[name].words} index words and ${small[name].reads} pages read at ${SIZE} documents, ${large[name].words} and ${large[name].reads} at ${SIZE * 2}`;
    assert.equal(large[name].words, small[name].words, report);
    assert.ok(large[name].words <= PREFIX_WORDS + 1, report);
    // The pages any search reads grow a little with the index's levels; a prefix adds only its
    // walk of the vocabulary (a seek in each of the index's segments per word) to a word's.
    assert.ok(large[name].reads <= large.word.reads + 16, `${report}; the word alone ${large.word.reads}`);
  }
  // What they answer: the newest documents within the window, and whether that is every hit.
  assert.deepEqual([large.indexed.result.total, large.indexed.result.exact], [SEARCH_WINDOW, false]);
  assert.equal(large.indexed.result.rows[0]!.node.name, `doc-${SIZE * 2 - 1}.txt`);
  assert.deepEqual([large.adf.result.total, large.adf.result.exact], [SEARCH_WINDOW, false]);
  assert.equal(large.adf.result.rows[0]!.node.name, 'doc-7999.txt', 'the newest name starting doc-7');
  assert.deepEqual([large.oneCommonWord.result.total, large.oneCommonWord.result.exact], [SEARCH_WINDOW, false]);
  // solo1* stands for its first PREFIX_WORDS words in the index's (byte) order, each in one document.
  const first = Array.from({ length: SIZE * 2 }, (_, i) => `solo${i}`).filter((w) => w.startsWith('solo1')).sort().slice(0, PREFIX_WORDS);
  const newest = Math.max(...first.map((w) => Number(w.slice(4))));
  assert.deepEqual([large.expanded.result.total, large.expanded.result.exact], [PREFIX_WORDS, false], 'more words start with solo1 than a prefix stands for');
  assert.equal(large.expanded.result.rows[0]!.node.name, `doc-${newest}.txt`);
});

test('a longer prefix that few words share finds every document holding one of them, exactly', () => {
  const found = searchNodes(store.sqlite, { query: 'solo1523*', paging: { skipCount: 0, maxItems: 25 } });
  const eleven = ['doc-1523.txt', ...Array.from({ length: 10 }, (_, i) => `doc-1523${i}.txt`)];
  assert.deepEqual([found.total, found.exact], [11, true]);
  assert.deepEqual(found.rows.map((r) => r.node.name).sort(), eleven.sort());
  const none = searchNodes(store.sqlite, { query: 'zzzzz*', paging: { skipCount: 0, maxItems: 25 } });
  assert.deepEqual([none.rows, none.total, none.exact], [[], 0, true]);
  // Negated: the words of the prefix are excluded, each looked up per candidate.
  const negated = searchNodes(store.sqlite, { query: 'solo1523* AND NOT solo15235*', paging: { skipCount: 0, maxItems: 25 } });
  assert.deepEqual([negated.rows.map((r) => r.node.name).sort(), negated.exact], [eleven.filter((name) => name !== 'doc-15235.txt').sort(), true]);
});

test('a longer prefix ending in ? stands for the words of that length only, however many longer words share it', () => {
  // solo1 to solo1999 and solo10000 to solo15999: in the index's order solo1, solo10, solo100,
  // solo1000, ..., so the first 64 words starting with solo1 hold one of solo10 to solo19.
  const found = searchNodes(store.sqlite, { query: 'solo1?', paging: { skipCount: 0, maxItems: 25 } });
  const ten = Array.from({ length: 10 }, (_, i) => `doc-1${i}.txt`);
  assert.deepEqual([found.rows.map((r) => r.node.name).sort(), found.total, found.exact], [ten.sort(), 10, true]);
  // solo1530 to solo1539, each followed by ten longer words (solo15300 ...) that are skipped.
  const eight = searchNodes(store.sqlite, { query: 'solo153?', paging: { skipCount: 0, maxItems: 25 } });
  assert.deepEqual([eight.rows.map((r) => r.node.name).sort(), eight.total, eight.exact], [Array.from({ length: 10 }, (_, i) => `doc-153${i}.txt`).sort(), 10, true]);
  // A ? before the last character walks every shorter word: more than 64, so not exact.
  const inner = searchNodes(store.sqlite, { query: 'solo15?3?', paging: { skipCount: 0, maxItems: 200 } });
  assert.equal(inner.exact, false);
  assert.ok(inner.rows.length > 0 && inner.rows.every((r) => /^doc-15\d3\d\.txt$/.test(r.node.name)));
});
