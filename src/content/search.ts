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

/** The query of one search: the hits' read-check fields and scores, in the requested order. */
interface SearchPlan {
  sql: string;
  params: SQLInputValue[];
  /** False when a prefix stood for only some of its words. */
  complete: boolean;
}

/** The request's query and filter queries as one AFTS query. */
function queryOf(request: SearchRequest): AftsNode {
  const query = [request.query, ...(request.filterQueries ?? [])].map(parseAfts);
  return query.length === 1 ? query[0]! : { kind: 'and', nodes: query };
}

function planSearch(query: AftsNode, expansions: PrefixExpansions, request: SearchRequest): SearchPlan {
  const compiled = compileAfts(query, expansions);
  // Sort columns come from the fixed table above, never from the request's text.
  const order = [
    ...(request.sort ?? []).map((sort) => `${sort.type === 'SCORE' ? 'score' : SORT_FIELDS[sort.field ?? '']} ${sort.ascending === true ? 'ASC' : 'DESC'}`),
    'score DESC',
    'n.id',
  ].join(', ');
  // The candidates are the newest SEARCH_WINDOW rows the index finds for the positive words
  // (with their bm25 score); the whole query then decides which of them are hits. Only what the
  // read check needs for every hit; the page's whole rows are read afterwards.
  const sql = `WITH c AS MATERIALIZED (SELECT rowid AS fts_rowid, -bm25(search_index, 0, 10.0, 3.0, 1.0) AS score FROM search_index WHERE search_index MATCH ? ORDER BY rowid DESC LIMIT ?)
    SELECT n.id, n.parent_id, n.owner, n.inherit_permissions, c.score AS score, (SELECT count(*) FROM c) AS candidates
    FROM c JOIN search_rows r ON r.fts_rowid = c.fts_rowid JOIN nodes n ON n.id = r.node_id
    WHERE n.archived_at IS NULL AND ${compiled.where} ORDER BY ${order}`;
  return { sql, params: [compiled.candidates, SEARCH_WINDOW, ...compiled.args], complete: compiled.complete };
}

type SearchAnswer = { rows: { node: NodeRow; score: number }[]; total: number; exact: boolean };

function answerOf(sqlite: DatabaseSync, hits: Iterable<Record<string, unknown>>, plan: SearchPlan, request: SearchRequest): SearchAnswer {
  const page = pageOfReadable(hits, request);
  const full = statement(sqlite, 'SELECT * FROM nodes WHERE id = ?');
  return { total: page.total, exact: page.candidates < SEARCH_WINDOW && plan.complete, rows: page.rows.map(({ node, score }) => ({ node: full.get(node.id) as unknown as NodeRow, score })) };
}

/** One page of matching nodes with their scores (bm25, higher is better), the total within the window, and whether it is exact. */
export function searchNodes(sqlite: DatabaseSync, request: SearchRequest): SearchAnswer {
  const query = queryOf(request);
  const expansions = new Map(unindexedPrefixes(query).map((prefix) => {
    const lookup = prefixWordsQuery(prefix);
    return [prefix, prefixWordsOf(statement(sqlite, lookup.sql).all(...lookup.params))] as const;
  }));
  const plan = planSearch(query, expansions, request);
  registerAftsMatch(sqlite);
  return answerOf(sqlite, statement(sqlite, plan.sql).iterate(...plan.params) as Iterable<Record<string, unknown>>, plan, request);
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
    expansions.set(prefix, prefixWordsOf((await reads.query(lookup.sql, lookup.params)).rows));
  }
  const plan = planSearch(query, expansions, request);
  const { rows } = await reads.query(plan.sql, plan.params);
  return answerOf(sqlite, rows, plan, request);
}

/** Hits the caller may not read are skipped, not counted. */
function pageOfReadable(hits: Iterable<Record<string, unknown>>, request: SearchRequest): { rows: { node: NodeRow; score: number }[]; total: number; candidates: number } {
  const { skipCount, maxItems } = request.paging;
  const rows: { node: NodeRow; score: number }[] = [];
  let total = 0;
  let candidates = 0;
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
