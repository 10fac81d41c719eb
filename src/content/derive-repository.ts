// The repository derived from its evidence after a restore (evidence_restore rebuilds only the
// evidence tables and fetches the blobs, docs/replication.md). Each content_events row carries the
// rows its change left (`state`, event-state.ts); replayed in seq order they give back the nodes
// (with their permissions, owners and trashcan state), the versions, the local grants and the
// renditions; the full-text index is rebuilt from the node rows and each current version's blob,
// and each rendition is rendered again from its version, as when it was made. Sessions are not
// derived: users sign in again. Runs only on a database whose evidence holds changes and whose
// nodes table is empty, which only a restore produces (a node and its event commit together).

import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import { statement } from '../kernel/index.ts';
import type { BlobStore } from './blob-store.ts';
import { CONTENT_EVENTS } from './database.ts';
import type { EventState } from './event-state.ts';
import type { NodeRow, VersionRow } from './node-entry.ts';
import { indexedText, renderRendition } from './renditions.ts';
import type { RenditionId } from './renditions.ts';
import { metadataText } from './repository.ts';
import { indexNode, reindexBody, reindexNameAndMetadata } from './search-index.ts';
import { deleteNodeRows } from './trashcan.ts';

export interface DeriveOptions {
  blobs: BlobStore;
  /** Bytes of text content indexed (CONTENT_INDEX_TEXT_BYTES). */
  indexTextBytes: number;
}

/** Derives the repository when a restore left it empty; the number of events replayed (0 otherwise). */
export async function deriveRepositoryFromEvidence(sqlite: DatabaseSync, options: DeriveOptions): Promise<number> {
  if (statement(sqlite, 'SELECT 1 FROM nodes LIMIT 1').get() !== undefined) return 0;
  if (statement(sqlite, `SELECT 1 FROM ${CONTENT_EVENTS.name} LIMIT 1`).get() === undefined) return 0;
  // Nothing else uses the connection while the service opens: the awaits (blob reads) inside
  // the transaction cannot interleave another write.
  sqlite.exec('BEGIN IMMEDIATE');
  try {
    let replayed = 0;
    for (const row of sqlite.prepare(`SELECT node_id, payload FROM ${CONTENT_EVENTS.name} ORDER BY seq`).all()) {
      const state = (JSON.parse(String(row['payload'])) as { state?: EventState }).state;
      if (state === undefined) continue;
      await applyState(sqlite, { nodeId: String(row['node_id']), state }, options);
      replayed++;
    }
    sqlite.exec('COMMIT');
    return replayed;
  } catch (error) {
    if (sqlite.isTransaction) sqlite.exec('ROLLBACK');
    throw error;
  }
}

async function applyState(sqlite: DatabaseSync, event: { nodeId: string; state: EventState }, options: DeriveOptions): Promise<void> {
  const { state } = event;
  for (const node of state.nodes ?? []) upsertNode(sqlite, node as unknown as NodeRow);
  for (const [nodeId, grants] of Object.entries(state.grants ?? {})) {
    statement(sqlite, 'DELETE FROM permissions WHERE node_id = ?').run(nodeId);
    for (const [authority, role] of grants) statement(sqlite, 'INSERT INTO permissions (node_id, authority, role) VALUES (?, ?, ?)').run(nodeId, authority, role);
  }
  if (state.version) {
    const version = state.version as unknown as VersionRow;
    insertRow(sqlite, 'versions', state.version);
    const text = (await options.blobs.has(version.sha256)) ? await indexedText(options.blobs, version.sha256, version.mime_type, options.indexTextBytes) : '';
    reindexBody(sqlite, version.node_id, text);
  }
  if (state.rendition) await storeRendition(sqlite, { nodeId: event.nodeId, rendition: state.rendition }, options);
  if (state.removed && state.removed.length > 0) {
    for (const id of state.removed) deleteNodeRows(sqlite, id);
    sqlite.prepare(`DELETE FROM nodes WHERE id IN (${state.removed.map(() => '?').join(', ')})`).run(...state.removed);
  }
}

function upsertNode(sqlite: DatabaseSync, node: NodeRow): void {
  const columns = Object.keys(node);
  const known = statement(sqlite, 'SELECT 1 FROM nodes WHERE id = ?').get(node.id) !== undefined;
  sqlite.prepare(`INSERT INTO nodes (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})
    ON CONFLICT (id) DO UPDATE SET ${columns.filter((c) => c !== 'id').map((c) => `${c} = excluded.${c}`).join(', ')}`)
    .run(...columns.map((c) => (node as unknown as Record<string, SQLInputValue>)[c]!));
  const metadata = metadataText(JSON.parse(node.properties) as Record<string, string>);
  if (known) reindexNameAndMetadata(sqlite, node.id, node.name, metadata);
  else indexNode(sqlite, { nodeId: node.id, name: node.name, metadata, body: '' });
}

function insertRow(sqlite: DatabaseSync, table: string, row: Record<string, unknown>): void {
  const columns = Object.keys(row);
  sqlite.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`).run(...columns.map((c) => row[c] as SQLInputValue));
}

/** A rendition's bytes are a function of its version (and the node's name then): rendered again, as storeRenditions did. */
async function storeRendition(sqlite: DatabaseSync, event: { nodeId: string; rendition: NonNullable<EventState['rendition']> }, options: DeriveOptions): Promise<void> {
  const { rendition } = event;
  const node = statement(sqlite, 'SELECT * FROM nodes WHERE id = ?').get(event.nodeId) as NodeRow | undefined;
  if (node === undefined) return;
  const version = statement(sqlite, 'SELECT * FROM versions WHERE node_id = ? AND label = ?').get(node.id, rendition.version_label) as VersionRow | undefined;
  if (version === undefined || !(await options.blobs.has(version.sha256))) return;
  const bytes = await renderRendition(rendition.rendition_id as RenditionId, node, version, { blobPath: options.blobs.path(version.sha256), textLimit: options.indexTextBytes });
  statement(sqlite, 'INSERT OR REPLACE INTO renditions (node_id, rendition_id, version_label, mime_type, body, created_at) VALUES (?, ?, ?, ?, ?, ?)')
    .run(node.id, rendition.rendition_id, rendition.version_label, rendition.mime_type, bytes, rendition.created_at);
}
