// Prefix searches (`quok*`, ADF's `cm:name:"doc-7*"`) at a bounded cost (issue 24). Without a
// prefix index FTS5 answers `p*` by reading and merging the whole doclist of every word that
// starts with p before it returns one row, so its cost grows with the documents and the distinct
// words sharing the prefix. Two bounds, chosen by the prefix's length:
// - 1 to 4 characters: the index keeps a prefix index of that length (FTS5 `prefix`), and the
//   prefix is looked up like one word, newest rows first, stopping at the search's window.
// - 5 characters or more: the prefix is expanded to the first PREFIX_WORDS words of the index
//   that start with it (one seek each in the vocabulary, search_words), each then looked up as a
//   word. Words past that many are left out, and the answer says it is not exact.

import type { SQLInputValue } from 'node:sqlite';

/** Prefix lengths, in characters, the index keeps (FTS5 counts characters too). */
export const INDEXED_PREFIX_LENGTHS: readonly number[] = [1, 2, 3, 4];

/** At most this many words stand for a prefix longer than the indexed ones. */
export const PREFIX_WORDS = 64;

/**
 * At most this many prefixes longer than the indexed ones in one query (with its filter
 * queries). ADF's search box sends each word as five field prefixes (cm:name, cm:title,
 * cm:description, TEXT, TAG), so six words fit.
 */
export const LONG_PREFIXES_PER_QUERY = 32;

/**
 * The migration that rebuilds the index with its prefix indexes (FTS5 takes them only when the
 * table is made), keeping every rowid so search_rows stays right, and adds the vocabulary.
 */
export const SEARCH_PREFIX_MIGRATION = `
  CREATE VIRTUAL TABLE search_index_prefixed USING fts5 (node_id UNINDEXED, name, metadata, body, tokenize = 'unicode61 remove_diacritics 2', prefix = '${INDEXED_PREFIX_LENGTHS.join(' ')}');
  INSERT INTO search_index_prefixed (rowid, node_id, name, metadata, body) SELECT rowid, node_id, name, metadata, body FROM search_index;
  DROP TABLE search_index;
  ALTER TABLE search_index_prefixed RENAME TO search_index;
  CREATE VIRTUAL TABLE search_words USING fts5vocab (search_index, 'instance');
`;

/** Whether FTS5 answers `prefix*` from one of the index's prefix indexes. */
export function indexedPrefix(prefix: string): boolean {
  return INDEXED_PREFIX_LENGTHS.includes([...prefix].length);
}

/** The words a prefix stands for, and whether they are all the words of the index that start with it. */
export interface PrefixWords {
  words: string[];
  complete: boolean;
}

/**
 * A prefix longer than the indexed ones, as a query needs it expanded: its text, and the most
 * characters a word it stands for may have when every term starting with it ends in `?`s
 * (`zulu1?`: 6), so that longer words are skipped; undefined when one may be any length (`zulu1*`).
 */
export interface UnindexedPrefix {
  text: string;
  longest: number | undefined;
}

// The vocabulary in the 'instance' form reads lazily: `term >= ?` seeks to a word and LIMIT 1
// stops at its first instance, where the 'row' form would count all of that word's documents.
// The next word is the first at or after the previous one followed by \x01, which no word holds;
// with a longest length, the first after every word sharing the previous one's first that many
// characters (U+10FFFF sorts after them all), so `zulu1?` walks zulu10, zulu11, ... and not
// zulu100 to zulu1099 between the first two.
const PREFIX_WORDS_SQL = `WITH RECURSIVE w(term, n) AS (
    SELECT (SELECT term FROM search_words WHERE term >= ?1 AND term < ?2 LIMIT 1), 1
    UNION ALL
    SELECT (SELECT term FROM search_words WHERE term >= (CASE WHEN ?4 IS NOT NULL AND length(w.term) >= ?4 THEN substr(w.term, 1, ?4) || char(1114111) ELSE w.term || char(1) END) AND term < ?2 LIMIT 1), n + 1 FROM w WHERE w.term IS NOT NULL AND n <= ?3
  )
  SELECT term FROM w WHERE term IS NOT NULL`;

/** The query that finds a prefix's first PREFIX_WORDS + 1 words, in the index's order (bytes). */
export function prefixWordsQuery(prefix: UnindexedPrefix): { sql: string; params: SQLInputValue[] } {
  // Every word that starts with the prefix sorts before the prefix followed by the last code point.
  return { sql: PREFIX_WORDS_SQL, params: [prefix.text, `${prefix.text}\u{10FFFF}`, PREFIX_WORDS, prefix.longest ?? null] };
}

/** A prefix's words from the rows of prefixWordsQuery(). */
export function prefixWordsOf(rows: readonly Record<string, unknown>[]): PrefixWords {
  const words = rows.map((row) => String(row['term']));
  return { words: words.slice(0, PREFIX_WORDS), complete: words.length <= PREFIX_WORDS };
}
