// Keeping the full-text index (the FTS5 table search_index) in step with the nodes. FTS5 cannot
// index its node_id column, so `WHERE node_id = ?` on it reads every row: each node's index row
// is found by its rowid instead, which search_rows keeps by node id.

import type { DatabaseSync } from 'node:sqlite';
import { statement } from '../kernel/index.ts';

/** The migration that adds search_rows to a database made before it, from the rows it has. */
export const SEARCH_ROWS_MIGRATION = `
  CREATE TABLE search_rows (node_id TEXT PRIMARY KEY REFERENCES nodes (id), fts_rowid INTEGER NOT NULL UNIQUE) STRICT;
  INSERT INTO search_rows (node_id, fts_rowid) SELECT node_id, rowid FROM search_index;
`;

/** Adds a new node's index row. Inside a store.write unit. */
export function indexNode(sqlite: DatabaseSync, row: { nodeId: string; name: string; metadata: string; body: string }): void {
  const { lastInsertRowid } = statement(sqlite, 'INSERT INTO search_index (node_id, name, metadata, body) VALUES (?, ?, ?, ?)').run(row.nodeId, row.name, row.metadata, row.body);
  statement(sqlite, 'INSERT INTO search_rows (node_id, fts_rowid) VALUES (?, ?)').run(row.nodeId, lastInsertRowid);
}

/** Replaces the indexed text content of a node (its current version's text). */
export function reindexBody(sqlite: DatabaseSync, nodeId: string, body: string): void {
  statement(sqlite, 'UPDATE search_index SET body = ? WHERE rowid = ?').run(body, indexRowid(sqlite, nodeId));
}

/** Replaces the indexed name and metadata of a node. */
export function reindexNameAndMetadata(sqlite: DatabaseSync, nodeId: string, name: string, metadata: string): void {
  statement(sqlite, 'UPDATE search_index SET name = ?, metadata = ? WHERE rowid = ?').run(name, metadata, indexRowid(sqlite, nodeId));
}

function indexRowid(sqlite: DatabaseSync, nodeId: string): number | bigint {
  const row = statement(sqlite, 'SELECT fts_rowid FROM search_rows WHERE node_id = ?').get(nodeId);
  // Every node is indexed in the unit that creates it: a node without a row is a broken database.
  if (row === undefined) throw new Error(`Node "${nodeId}" has no row in the search index`);
  return row['fts_rowid'] as number;
}
