// The content repository's database: nodes, their versions and renditions as state tables, a
// full-text index (FTS5) over name, metadata and text content, sessions, and one append-only
// evidence table `content_events` that records every change with its actor (hash-chained).

import { defineEvidenceTable, openDatabase, statement } from '../kernel/index.ts';
import type { Migration, Store } from '../kernel/index.ts';
import type { DatabaseSync } from 'node:sqlite';
import { SEARCH_ROWS_MIGRATION, indexNode } from './search-index.ts';
import { nodeRows } from './event-state.ts';
import { SEARCH_PREFIX_MIGRATION } from './search-prefixes.ts';

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
  { name: 'permissions, owners, case-insensitive NFC names, session groups', up: permissionsMigration },
  {
    // The trashcan (trashcan.ts): archived nodes keep their rows until purged; archive_root is the node DELETE named.
    name: 'trashcan',
    up: `
      ALTER TABLE nodes ADD COLUMN archived_at TEXT;
      ALTER TABLE nodes ADD COLUMN archived_by TEXT;
      ALTER TABLE nodes ADD COLUMN archiver TEXT;
      ALTER TABLE nodes ADD COLUMN archive_root TEXT;
      CREATE INDEX nodes_archive_root ON nodes (archive_root) WHERE archive_root IS NOT NULL;
      CREATE INDEX nodes_archiver ON nodes (archiver, archived_at) WHERE archive_root = id;
      CREATE INDEX versions_sha256 ON versions (sha256);
    `,
  },
  {
    // Issue 24: a folder's page in its default order (folders first, by name) or by creation or
    // change time comes from an index, never from sorting every child; the transcript references
    // find their nodes by property, not by reading every node.
    name: 'listing and transcript indexes',
    up: `
      CREATE INDEX nodes_children_by_name ON nodes (parent_id, is_folder DESC, name COLLATE NOCASE, id) WHERE archived_at IS NULL;
      CREATE INDEX nodes_children_by_created ON nodes (parent_id, created_at, id) WHERE archived_at IS NULL;
      CREATE INDEX nodes_children_by_modified ON nodes (parent_id, modified_at, id) WHERE archived_at IS NULL;
      CREATE INDEX nodes_assistant_kind ON nodes (json_extract(properties, '$."assistant:kind"')) WHERE is_folder = 0 AND archived_at IS NULL;
    `,
  },
  // A file's versions page newest first from an index: its primary key orders labels as text ("10.0" before "2.0").
  { name: 'versions by number', up: 'CREATE INDEX versions_by_number ON versions (node_id, major, minor);' },
  // Issue 24: a prefix search costs the same whatever the index holds (search-prefixes.ts). Rebuilds the index once.
  { name: 'search prefix indexes and vocabulary', up: SEARCH_PREFIX_MIGRATION },
];

/**
 * Adds Alfresco's permission model to a database made before it: each node's owner (its
 * creator), an inheritance flag, local grants, and a name key (NFC, lower case) that makes
 * names unique in a folder as Alfresco's cm:name is. Homes made before keep their user alone.
 */
function permissionsMigration(sqlite: DatabaseSync): void {
  sqlite.exec(`
    ALTER TABLE nodes ADD COLUMN owner TEXT;
    ALTER TABLE nodes ADD COLUMN inherit_permissions INTEGER NOT NULL DEFAULT 1;
    ALTER TABLE nodes ADD COLUMN name_key TEXT;
    UPDATE nodes SET owner = json_extract(created_by, '$.id');
    UPDATE nodes SET owner = NULL WHERE owner = 'System';
    CREATE TABLE permissions (
      node_id TEXT NOT NULL REFERENCES nodes (id),
      authority TEXT NOT NULL,
      role TEXT NOT NULL,
      PRIMARY KEY (node_id, authority, role)
    ) STRICT;
    ALTER TABLE sessions ADD COLUMN groups TEXT NOT NULL DEFAULT '[]';
  `);
  const update = statement(sqlite, 'UPDATE nodes SET name_key = ? WHERE id = ?');
  for (const row of statement(sqlite, 'SELECT id, name FROM nodes').iterate()) update.run(String(row['name']).normalize('NFC').toLowerCase(), String(row['id']));
  // The old index made "Report.txt" and "report.txt" two names; the key makes them one (checked in each write unit).
  sqlite.exec(`DROP INDEX nodes_name_in_parent; CREATE INDEX nodes_name_key ON nodes (parent_id, name_key);`);
  const homes = statement(sqlite, `SELECT id FROM nodes WHERE parent_id = ? AND name = 'User Homes'`).get(ROOT_NODE_ID);
  if (homes) {
    const grant = statement(sqlite, 'INSERT OR IGNORE INTO permissions (node_id, authority, role) VALUES (?, ?, ?)');
    sqlite.prepare('UPDATE nodes SET inherit_permissions = 0 WHERE id = ? OR parent_id = ?').run(String(homes['id']), String(homes['id']));
    // Its first user made it: now nobody owns it, as nobody owns the folders the repository makes.
    sqlite.prepare('UPDATE nodes SET owner = NULL WHERE id = ?').run(String(homes['id']));
    grant.run(String(homes['id']), 'GROUP_EVERYONE', 'Consumer');
    for (const home of statement(sqlite, 'SELECT id, name FROM nodes WHERE parent_id = ?').all(String(homes['id']))) grant.run(String(home['id']), String(home['name']), 'Coordinator');
  }
}

/** Opens the database and makes sure the root folder ("Company Home") exists. */
export async function openContentDatabase(path: string, options: { now?: () => Date } = {}): Promise<Store> {
  const store = openContentStore(path, options);
  await ensureRootFolder(store);
  return store;
}

/** Opens the database as it is: a restored one derives its repository (derive-repository.ts) before ensureRootFolder(). */
export function openContentStore(path: string, options: { now?: () => Date } = {}): Store {
  return openDatabase(path, { migrations: MIGRATIONS, evidenceTables: [CONTENT_EVENTS], ...(options.now && { now: options.now }) });
}

/** Makes the root folder ("Company Home") on a new repository. */
export async function ensureRootFolder(store: Store): Promise<void> {
  const exists = statement(store.sqlite, 'SELECT 1 FROM nodes WHERE id = ?').get(ROOT_NODE_ID);
  if (exists === undefined) {
    await store.write((sqlite, tx) => {
      const at = store.now().toISOString();
      statement(sqlite, `INSERT INTO nodes (id, parent_id, name, name_key, node_type, is_folder, created_at, created_by, modified_at, modified_by, properties, owner) VALUES (?, NULL, 'Company Home', 'company home', 'cm:folder', 1, ?, ?, ?, ?, '{}', NULL)`)
        .run(ROOT_NODE_ID, at, SYSTEM_USER, at, SYSTEM_USER);
      indexNode(sqlite, { nodeId: ROOT_NODE_ID, name: 'Company Home', metadata: '', body: '' });
      tx.append(CONTENT_EVENTS, { node_id: ROOT_NODE_ID, action: 'created', payload: { actor: 'System', name: 'Company Home', node_type: 'cm:folder', state: { nodes: nodeRows(sqlite, [ROOT_NODE_ID]) } } });
    });
  }
}
