// Full-text search over name, metadata and text content (FTS5), as Alfresco's search API:
// POST .../search/versions/1/search with {"query":{"query","language"},"paging"}. The query
// is AFTS-like: words must all match (a trailing * is a prefix), "quoted phrases" match as
// phrases, and name:, cm:name:, TEXT: or cm:content: restrict a word to one column.

import { statement } from '../kernel/index.ts';
import type { DatabaseSync } from 'node:sqlite';
import type { NodeRow } from './node-entry.ts';

/** Alfresco's sort member: by score (the default) or by one node field. */
export interface SearchSort {
  type: 'SCORE' | 'FIELD';
  field?: string;
  ascending?: boolean;
}

export interface SearchRequest {
  query: string;
  paging: { skipCount: number; maxItems: number };
  /** Node types every hit must have (Alfresco's filterQueries `TYPE:"cm:content"`), empty for any. */
  types?: readonly string[];
  /** Node types no hit may have (`-TYPE:"cm:thumbnail"`). */
  excludedTypes?: readonly string[];
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

const FILTER = /^\s*([+-]?)TYPE:"?([A-Za-z]+:[A-Za-z]+)"?\s*$/;

/**
 * One of Alfresco's filterQueries, understood when it is a node-type filter (`TYPE:"cm:content"`,
 * `+TYPE:…`, `-TYPE:…`); anything else is undefined so the caller refuses it rather than guess.
 */
export function parseTypeFilter(query: string): { type: string; exclude: boolean } | undefined {
  const match = FILTER.exec(query);
  return match ? { type: match[2]!, exclude: match[1] === '-' } : undefined;
}

const COLUMNS: Record<string, string> = { 'name': 'name', 'cm:name': 'name', 'text': 'body', 'cm:content': 'body', 'cm:title': 'metadata', 'cm:description': 'metadata' };
const TERM = /(?:([A-Za-z]+(?::[A-Za-z]+)?):)?(?:"([^"]*)"|([^\s"]+))/g;

/** The FTS5 expression for an AFTS-like query; undefined when it has no searchable word. */
export function ftsExpression(query: string): string | undefined {
  const terms: string[] = [];
  for (const match of query.matchAll(TERM)) {
    const field = match[1]?.toLowerCase();
    const column = field === undefined ? undefined : COLUMNS[field];
    const phrase = match[2];
    const word = match[3];
    const text = phrase ?? (field !== undefined && column === undefined ? `${match[1]}:${word}` : word) ?? '';
    const prefix = phrase === undefined && text.endsWith('*');
    const words = text.replace(/\*+$/, '').match(/[\p{L}\p{N}]+/gu);
    if (!words) continue;
    const quoted = `"${words.join(' ')}"${prefix ? ' *' : ''}`;
    terms.push(column ? `${column} : ${quoted}` : quoted);
  }
  return terms.length === 0 ? undefined : terms.join(' AND ');
}

/** One page of matching nodes with their scores (bm25, higher is better), and the total. */
export function searchNodes(sqlite: DatabaseSync, request: SearchRequest): { rows: { node: NodeRow; score: number }[]; total: number } {
  const expression = ftsExpression(request.query);
  if (expression === undefined) return { rows: [], total: 0 };
  const types = request.types ?? [];
  const excluded = request.excludedTypes ?? [];
  // Type filters and sort columns come from fixed tables above, never from the request's text.
  const where = [
    'search_index MATCH ?',
    'n.archived_at IS NULL',
    ...(types.length > 0 ? [`n.node_type IN (${types.map(() => '?').join(', ')})`] : []),
    ...(excluded.length > 0 ? [`n.node_type NOT IN (${excluded.map(() => '?').join(', ')})`] : []),
  ].join(' AND ');
  const args = [expression, ...types, ...excluded];
  const from = 'FROM search_index s JOIN nodes n ON n.id = s.node_id';
  const order = [
    ...(request.sort ?? []).map((sort) => `${sort.type === 'SCORE' ? 'score' : SORT_FIELDS[sort.field ?? '']} ${sort.ascending === true ? 'ASC' : 'DESC'}`),
    'score DESC',
    's.node_id',
  ].join(', ');
  // The page's node rows come with the hits (the join), not from one more read per hit.
  const hits = statement(sqlite, `SELECT n.*, -bm25(search_index, 0, 10.0, 3.0, 1.0) AS score ${from} WHERE ${where} ORDER BY ${order}`).iterate(...args);
  return pageOfReadable(hits as Iterable<Record<string, unknown>>, request);
}

/**
 * Hits the caller may not read are skipped, not counted. Counting stops MAX_COUNTED_HITS hits
 * past the page, so one query never walks an unbounded result set; the total is then a lower
 * bound and hasMoreItems stays true (Alfresco's totals are estimates too).
 */
export const MAX_COUNTED_HITS = 10_000;

function pageOfReadable(hits: Iterable<Record<string, unknown>>, request: SearchRequest): { rows: { node: NodeRow; score: number }[]; total: number } {
  const { skipCount, maxItems } = request.paging;
  const rows: { node: NodeRow; score: number }[] = [];
  let total = 0;
  let scanned = 0;
  for (const { score, ...row } of hits) {
    const node = row as unknown as NodeRow;
    if (request.readable && !request.readable(node)) continue;
    if (total >= skipCount && rows.length < maxItems) rows.push({ node, score: Number(score) });
    total += 1;
    if (rows.length === maxItems && ++scanned > MAX_COUNTED_HITS) break;
  }
  return { rows, total };
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
