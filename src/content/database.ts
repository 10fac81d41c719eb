// The content repository's database: nodes, their versions and renditions as state tables, a
// full-text index (FTS5) over name, metadata and text content, sessions, and one append-only
// evidence table `content_events` that records every change with its actor (hash-chained).

import { defineEvidenceTable, openDatabase, statement } from '../kernel/index.ts';
import type { Migration, Store } from '../kernel/index.ts';
import { SEARCH_ROWS_MIGRATION, indexNode } from './search-index.ts';

export const ROOT_NODE_ID = 'company-home';
const SYSTEM_USER = JSON.stringify({ id: 'System', displayName: 'System' });

/** Every change: created, updated, content-updated, reverted, rendition-created, session-*. */
export const CONTENT_EVENTS = defineEvidenceTable({ name: 'content_events', columns: { node_id: 'text', action: 'text' } });

export const MIGRATIONS: readonly Migration[] = [
  {
    name: 'nodes, versions, renditions, search index, sessions',
    up: `
      CREATE TABLE nodes (
        id TEXT PRIMARY KEY,
        parent_id TEXT REFERENCES nodes (id),
        name TEXT NOT NULL,
        node_type TEXT NOT NULL,
        is_folder INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        created_by TEXT NOT NULL,
        modified_at TEXT NOT NULL,
        modified_by TEXT NOT NULL,
        properties TEXT NOT NULL,
        version_label TEXT
      ) STRICT;
      CREATE UNIQUE INDEX nodes_name_in_parent ON nodes (parent_id, name);
      CREATE TABLE versions (
        node_id TEXT NOT NULL REFERENCES nodes (id),
        label TEXT NOT NULL,
        major INTEGER NOT NULL,
        minor INTEGER NOT NULL,
        name TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        size INTEGER NOT NULL,
        mime_type TEXT NOT NULL,
        comment TEXT,
        created_at TEXT NOT NULL,
        created_by TEXT NOT NULL,
        PRIMARY KEY (node_id, label)
      ) STRICT;
      CREATE TABLE renditions (
        node_id TEXT NOT NULL REFERENCES nodes (id),
        rendition_id TEXT NOT NULL,
        version_label TEXT NOT NULL,
        mime_type TEXT NOT NULL,
        body BLOB NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (node_id, rendition_id)
      ) STRICT;
      CREATE VIRTUAL TABLE search_index USING fts5 (node_id UNINDEXED, name, metadata, body, tokenize = 'unicode61 remove_diacritics 2');
      CREATE TABLE sessions (
        id_hash TEXT PRIMARY KEY,
        subject TEXT NOT NULL,
        display_name TEXT NOT NULL,
        csrf TEXT NOT NULL,
        id_token TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      ) STRICT;
    `,
  },
  { name: 'search index rows by node id', up: SEARCH_ROWS_MIGRATION },
];

/** Opens the database and makes sure the root folder ("Company Home") exists. */
export async function openContentDatabase(path: string, options: { now?: () => Date } = {}): Promise<Store> {
  const store = openDatabase(path, { migrations: MIGRATIONS, evidenceTables: [CONTENT_EVENTS], ...(options.now && { now: options.now }) });
  const exists = statement(store.sqlite, 'SELECT 1 FROM nodes WHERE id = ?').get(ROOT_NODE_ID);
  if (exists === undefined) {
    await store.write((sqlite, tx) => {
      const at = store.now().toISOString();
      statement(sqlite, `INSERT INTO nodes (id, parent_id, name, node_type, is_folder, created_at, created_by, modified_at, modified_by, properties) VALUES (?, NULL, 'Company Home', 'cm:folder', 1, ?, ?, ?, ?, '{}')`)
        .run(ROOT_NODE_ID, at, SYSTEM_USER, at, SYSTEM_USER);
      indexNode(sqlite, { nodeId: ROOT_NODE_ID, name: 'Company Home', metadata: '', body: '' });
      tx.append(CONTENT_EVENTS, { node_id: ROOT_NODE_ID, action: 'created', payload: { actor: 'System', name: 'Company Home', node_type: 'cm:folder' } });
    });
  }
  return store;
}
