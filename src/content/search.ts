// Full-text search over name, metadata and text content (FTS5), as Alfresco's search API:
// POST .../search/versions/1/search with {"query":{"query","language"},"paging"}. The query
// is AFTS-like: words must all match (a trailing * is a prefix), "quoted phrases" match as
// phrases, and name:, cm:name:, TEXT: or cm:content: restrict a word to one column.

import { statement } from '../kernel/index.ts';
import type { DatabaseSync } from 'node:sqlite';
import type { NodeRow } from './node-entry.ts';

export interface SearchRequest {
  query: string;
  paging: { skipCount: number; maxItems: number };
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
  const total = Number(statement(sqlite, 'SELECT count(*) AS n FROM search_index WHERE search_index MATCH ?').get(expression)?.['n']);
  const hits = statement(sqlite, 'SELECT node_id, -bm25(search_index, 0, 10.0, 3.0, 1.0) AS score FROM search_index WHERE search_index MATCH ? ORDER BY score DESC, node_id LIMIT ? OFFSET ?')
    .all(expression, request.paging.maxItems, request.paging.skipCount);
  const byId = statement(sqlite, 'SELECT * FROM nodes WHERE id = ?');
  const rows = hits.flatMap((hit) => {
    const node = byId.get(String(hit['node_id'])) as NodeRow | undefined;
    return node ? [{ node, score: Number(hit['score']) }] : [];
  });
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
