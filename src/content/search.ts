// Full-text search over name, metadata and text content (FTS5), as Alfresco's search API:
// POST .../search/versions/1/search with {"query":{"query","language"},"paging"}. The query
// and each filter query are AFTS (afts-parse.ts), answered in SQL (afts-sql.ts).

import { statement } from '../kernel/index.ts';
import type { ReadPool } from '../kernel/index.ts';
import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import { parseAfts } from './afts-parse.ts';
import type { AftsNode } from './afts-parse.ts';
import { compileAfts, registerAftsMatch, unindexedPrefixes } from './afts-sql.ts';
import type { PrefixExpansions } from './afts-sql.ts';
import type { NodeRow } from './node-entry.ts';
import { prefixWordsOf, prefixWordsQuery } from './search-prefixes.ts';
import type { PrefixWords } from './search-prefixes.ts';

/** Alfresco's sort member: by score (the default) or by one node field. */
export interface SearchSort {
  type: 'SCORE' | 'FIELD';
  field?: string;
  ascending?: boolean;
}

export interface SearchRequest {
  query: string;
  paging: { skipCount: number; maxItems: number };
  /** Alfresco's filterQueries: AFTS queries every hit must match too (`+TYPE:"cm:content"`, `-ASPECT:"sys:hidden"`). */
  filterQueries?: readonly string[];
  sort?: readonly SearchSort[];
  /** Hits the caller may read (permissions.ts readableBy); every hit when absent. */
  readable?: (node: NodeRow) => boolean;
}

/** The node fields a FIELD sort may name, by their Alfresco names, and the column each orders by. */
export const SORT_FIELDS: Readonly<Record<string, string>> = {
  'cm:name': 'n.name', 'name': 'n.name',
  'cm:created': 'n.created_at', 'createdAt': 'n.created_at',
  'cm:modified': 'n.modified_at', 'modifiedAt': 'n.modified_at',
};

/**
 * Candidates one query ranks: the newest index rows (highest rowid, i.e. the latest created
 * nodes) that hold the query's words, combined by AND and OR as the query combines them when the
 * index answers its words exactly (afts-sql.ts), else holding any of them. A word in a million documents costs this many rows, not a
 * million (issue 24), as Alfresco bounds a query's permission checks
 * (system.acl.maxPermissionChecks): ranking, filters and the read check apply inside the window,
 * and a query that fills it answers without totalItems.
 */
export const SEARCH_WINDOW = 1000;

/**
 * The most documents a search's words may be in, together, for its score to be bm25's. FTS5's
 * bm25 counts the documents holding each phrase of the query on every search (about 55 ns a
 * document on the test machine: 55 ms for a word in a million), so past this many the score is
 * the weights of the fields the query matches in, asked of the window's rows alone.
 */
export const BM25_DOCUMENTS = 5000;

/** bm25's weights of the index's columns (node_id, name, metadata, body), and of the fields' score. */
const FIELD_WEIGHTS = { name: 10, metadata: 3, body: 1 } as const;

/** The query of one search: the hits' read-check fields and scores, in the requested order. */
interface SearchPlan {
  sql: string;
  params: SQLInputValue[];
  /** False when a prefix stood for only some of its words. */
  complete: boolean;
  /**
   * How many candidates the window holds: the hits' rows carry it (`candidates`), so it is asked
   * only of a search without hits (whose window may be full of older documents' non-hits).
   */
  window: { sql: string; params: SQLInputValue[] };
}

/** The request's query and filter queries as one AFTS query. */
function queryOf(request: SearchRequest): AftsNode {
  const query = [request.query, ...(request.filterQueries ?? [])].map(parseAfts);
  return query.length === 1 ? query[0]! : { kind: 'and', nodes: query };
}

/**
 * Whether the phrases are rare enough for bm25, as one SQL condition: each phrase's documents
 * are counted up to its share of BM25_DOCUMENTS and no further, so asking costs at most that
 * many rows however common the words are. The phrases are one JSON parameter, not one condition
 * each: SQLite refuses an expression deeper than 1,000, and a query may hold 2,048 phrases
 * (LONG_PREFIXES_PER_QUERY prefixes of PREFIX_WORDS words).
 */
function rareEnough(phrases: readonly string[]): { sql: string; params: SQLInputValue[] } {
  if (phrases.length === 0) return { sql: '0', params: [] };
  const share = Math.floor(BM25_DOCUMENTS / phrases.length);
  return {
    sql: `NOT EXISTS (SELECT 1 FROM json_each(?) AS p WHERE (SELECT count(*) FROM (SELECT 1 FROM search_index WHERE search_index MATCH p.value LIMIT ?)) > ?)`,
    params: [JSON.stringify(phrases), share + 1, share],
  };
}

function planSearch(query: AftsNode, expansions: PrefixExpansions, request: SearchRequest): SearchPlan {
  const compiled = compileAfts(query, expansions);
  // Sort columns come from the fixed table above, never from the request's text. Equal scores
  // (common with the fields' score) go newest first.
  const order = [
    ...(request.sort ?? []).map((sort) => `${sort.type === 'SCORE' ? 'score' : SORT_FIELDS[sort.field ?? '']} ${sort.ascending === true ? 'ASC' : 'DESC'}`),
    'score DESC',
    'c.fts_rowid DESC',
  ].join(', ');
  const rare = rareEnough(compiled.phrases);
  // The candidates are the newest SEARCH_WINDOW rows the index finds for the positive words;
  // the whole query then decides which of them are hits. Their score is bm25's when the words
  // are rare enough; otherwise the weights of the fields holding any of the query's words (a
  // name holding one of two words ANDed counts, as bm25 would count it), each field's matches
  // found among the candidates from the window's oldest on (at most the window: a row there
  // holding the words is in it).
  // SQLite evaluates a CASE's branches and an IN's list only when reached: a search pays for one
  // score. Only what the read check needs for every hit; the page's whole rows are read afterwards.
  const inField = (field: keyof typeof FIELD_WEIGHTS) =>
    `${FIELD_WEIGHTS[field]}.0 * (c.fts_rowid IN (SELECT rowid FROM search_index WHERE search_index MATCH ? AND rowid >= (SELECT min(fts_rowid) FROM c)))`;
  const sql = `WITH c AS MATERIALIZED (SELECT rowid AS fts_rowid, CASE WHEN ${rare.sql} THEN -bm25(search_index, 0, ${FIELD_WEIGHTS.name}.0, ${FIELD_WEIGHTS.metadata}.0, ${FIELD_WEIGHTS.body}.0) END AS bm25 FROM search_index WHERE search_index MATCH ? ORDER BY rowid DESC LIMIT ?)
    SELECT n.id, n.parent_id, n.owner, n.inherit_permissions, CASE WHEN c.bm25 IS NOT NULL THEN c.bm25 ELSE ${inField('name')} + ${inField('metadata')} + ${inField('body')} END AS score, (SELECT count(*) FROM c) AS candidates
    FROM c JOIN search_rows r ON r.fts_rowid = c.fts_rowid JOIN nodes n ON n.id = r.node_id
    WHERE n.archived_at IS NULL AND ${compiled.where} ORDER BY ${order}`;
  const anyPhrase = compiled.phrases.map((phrase) => `(${phrase})`).join(' OR ');
  const inColumn = (field: keyof typeof FIELD_WEIGHTS) => `(${field} : (${anyPhrase})) AND (${compiled.candidates})`;
  return {
    sql,
    params: [...rare.params, compiled.candidates, SEARCH_WINDOW, inColumn('name'), inColumn('metadata'), inColumn('body'), ...compiled.args],
    complete: compiled.complete,
    // No candidates at all (TAG:): the expression is empty, and FTS5 would refuse it.
    window: compiled.candidates === ''
      ? { sql: 'SELECT 0 AS candidates', params: [] }
      : { sql: 'SELECT count(*) AS candidates FROM (SELECT 1 FROM search_index WHERE search_index MATCH ? ORDER BY rowid DESC LIMIT ?)', params: [compiled.candidates, SEARCH_WINDOW] },
  };
}

type SearchAnswer = { rows: { node: NodeRow; score: number }[]; total: number; exact: boolean };

/** The answer from the hits; `window` counts the candidates of a complete plan when there is no hit to carry the count. */
function answerOf(sqlite: DatabaseSync, hits: Iterable<Record<string, unknown>>, plan: SearchPlan, request: SearchRequest, window: () => number): SearchAnswer {
  const page = pageOfReadable(hits, request);
  const exact = plan.complete && (page.candidates ?? window()) < SEARCH_WINDOW;
  const full = statement(sqlite, 'SELECT * FROM nodes WHERE id = ?');
  return { total: page.total, exact, rows: page.rows.map(({ node, score }) => ({ node: full.get(node.id) as unknown as NodeRow, score })) };
}

/** One page of matching nodes with their scores (higher is better: bm25, or the fields matched, see BM25_DOCUMENTS), the total within the window, and whether it is exact. */
export function searchNodes(sqlite: DatabaseSync, request: SearchRequest): SearchAnswer {
  const query = queryOf(request);
  const expansions = new Map(unindexedPrefixes(query).map((prefix) => {
    const lookup = prefixWordsQuery(prefix);
    return [prefix.text, prefixWordsOf(statement(sqlite, lookup.sql).all(...lookup.params))] as const;
  }));
  const plan = planSearch(query, expansions, request);
  registerAftsMatch(sqlite);
  const hits = statement(sqlite, plan.sql).iterate(...plan.params) as Iterable<Record<string, unknown>>;
  return answerOf(sqlite, hits, plan, request, () => Number(statement(sqlite, plan.window.sql).get(...plan.window.params)!['candidates']));
}

/**
 * searchNodes() with its query on the service's read pool, off the event loop (issue 24): the
 * same hits in the same order, then the same read check and page on this thread. The pool's
 * connections have afts_match() (an inner wildcard, a cm:title/cm:description field): the
 * service creates its pool with it (service.ts).
 */
export async function searchNodesOnPool(reads: ReadPool, sqlite: DatabaseSync, request: SearchRequest): Promise<SearchAnswer> {
  const query = queryOf(request);
  // A prefix longer than the indexed ones is expanded to its words on the pool too: one seek a
  // word. One prefix after another, so a search holds at most one place in the pool's queue
  // (32 asked at once by two searches would fill it: a 503 for everyone).
  const expansions = new Map<string, PrefixWords>();
  for (const prefix of unindexedPrefixes(query)) {
    const lookup = prefixWordsQuery(prefix);
    expansions.set(prefix.text, prefixWordsOf((await reads.query(lookup.sql, lookup.params)).rows));
  }
  const plan = planSearch(query, expansions, request);
  const { rows } = await reads.query(plan.sql, plan.params);
  // The window is counted on the pool too (one more read, bounded by the window) when no row carries it.
  const window = rows.length > 0 || !plan.complete ? undefined : Number((await reads.query(plan.window.sql, plan.window.params)).rows[0]!['candidates']);
  return answerOf(sqlite, rows, plan, request, () => window!);
}

/** Hits the caller may not read are skipped, not counted. `candidates` is the window's size, which only a hit carries. */
function pageOfReadable(hits: Iterable<Record<string, unknown>>, request: SearchRequest): { rows: { node: NodeRow; score: number }[]; total: number; candidates: number | undefined } {
  const { skipCount, maxItems } = request.paging;
  const rows: { node: NodeRow; score: number }[] = [];
  let total = 0;
  let candidates: number | undefined;
  for (const { score, candidates: inWindow, ...row } of hits) {
    candidates = Number(inWindow);
    // The hit's id, parent_id, owner and inherit_permissions: all the read check looks at.
    const node = row as unknown as NodeRow;
    if (request.readable && !request.readable(node)) continue;
    if (total >= skipCount && rows.length < maxItems) rows.push({ node, score: Number(score) });
    total += 1;
  }
  return { rows, total, candidates };
}

/** Readiness of search: the index answers a query. */
export function searchReady(sqlite: DatabaseSync): { ok: true } | { ok: false; reason: string } {
  try {
    statement(sqlite, `SELECT count(*) FROM search_index WHERE search_index MATCH '"readiness"'`).get();
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: `search index not answering: ${(error as Error).message}` };
  }
}
