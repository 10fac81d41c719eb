// Alfresco's trashcan: deleting a node (a folder with everything below it) archives it, where
// its deleter can list it, restore it to where it was, or purge it. A purge removes the rows and
// then the blobs no remaining version names. A blob leaves its place inside the purge's write
// unit (renamed into tmp/), so a version committed after it cannot name a blob that is gone; the
// file itself is removed after the commit, or put back if the unit rolled back.

import { statement } from '../kernel/index.ts';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import type { Store, Transaction } from '../kernel/index.ts';
import type { BlobStore } from './blob-store.ts';
import { boundedTotal } from './bounded-total.ts';
import type { BoundedTotal } from './bounded-total.ts';
import { CONTENT_EVENTS } from './database.ts';
import { userJson } from './node-entry.ts';
import { nodeRows } from './event-state.ts';
import type { NodeRow } from './node-entry.ts';
import { RepositoryError } from './repository-error.ts';
import { childNamed, getNode, requireNode, systemFolderProblem } from './repository.ts';
import type { Actor } from './repository.ts';

/** The live node `id` and every live node below it, parents before children. */
function subtree(sqlite: DatabaseSync, id: string): NodeRow[] {
  return statement(sqlite, `WITH RECURSIVE below(id, depth) AS (SELECT ?, 0 UNION ALL SELECT n.id, below.depth + 1 FROM nodes n JOIN below ON n.parent_id = below.id WHERE n.archived_at IS NULL)
    SELECT nodes.* FROM nodes JOIN below USING (id) ORDER BY below.depth`).all(id) as unknown as NodeRow[];
}

/** DELETE nodes/{id}: archives the node and everything below it (the actor needs delete on each). */
export function archiveNode(sqlite: DatabaseSync, tx: Transaction, options: { nodeId: string; actor: Actor }): number {
  const node = requireNode(sqlite, options.nodeId);
  // Permission first: the system-folder refusal names the folder, which only its readers may learn.
  options.actor.require(sqlite, node, 'delete');
  const problem = systemFolderProblem(sqlite, node);
  if (problem) throw new RepositoryError(403, `Cannot delete: ${problem}`);
  const nodes = subtree(sqlite, node.id);
  for (const each of nodes) options.actor.require(sqlite, each, 'delete');
  const at = new Date().toISOString();
  const archive = statement(sqlite, 'UPDATE nodes SET archived_at = ?, archived_by = ?, archiver = ?, archive_root = ? WHERE id = ?');
  for (const each of nodes) archive.run(at, userJson(options.actor), options.actor.id, node.id, each.id);
  tx.append(CONTENT_EVENTS, { node_id: node.id, action: 'deleted', payload: { actor: options.actor.id, parent_id: node.parent_id, name: node.name, nodes: nodes.length, state: { nodes: nodeRows(sqlite, nodes.map((each) => each.id)) } } });
  return nodes.length;
}

/** An archived node the actor deleted (Alfresco shows a user the items they deleted); 404 otherwise. */
export function requireArchived(sqlite: DatabaseSync, id: string, actor: Actor): NodeRow {
  const node = statement(sqlite, 'SELECT * FROM nodes WHERE id = ? AND archive_root = id AND archiver = ?').get(id, actor.id) as NodeRow | undefined;
  if (!node) throw new RepositoryError(404, `The deleted node "${id}" was not found in your trashcan`);
  return node;
}

export function listArchived(sqlite: DatabaseSync, actor: Actor, paging: { skipCount: number; maxItems: number }): { rows: NodeRow[] } & BoundedTotal {
  const where = 'archive_root = id AND archiver = ?';
  const { total, exact } = boundedTotal(sqlite, `FROM nodes WHERE ${where}`, [actor.id], paging);
  const rows = statement(sqlite, `SELECT * FROM nodes WHERE ${where} ORDER BY archived_at DESC, id LIMIT ? OFFSET ?`).all(actor.id, paging.maxItems, paging.skipCount) as unknown as NodeRow[];
  return { rows, total, exact };
}

/** POST deleted-nodes/{id}/restore: back where it was, unless that folder is gone (404), the actor may not add to it now (403) or the name is taken there now (409). */
export function restoreNode(sqlite: DatabaseSync, tx: Transaction, options: { nodeId: string; actor: Actor }): void {
  const node = requireArchived(sqlite, options.nodeId, options.actor);
  const parent = node.parent_id === null ? undefined : getNode(sqlite, node.parent_id);
  if (!parent) throw new RepositoryError(404, `Cannot restore "${node.name}": its folder "${node.parent_id ?? ''}" no longer exists (restore that first)`);
  // As Alfresco's restore: the deleter needs create on the folder now, not when they deleted.
  options.actor.require(sqlite, parent, 'create');
  if (childNamed(sqlite, parent.id, node.name)) throw new RepositoryError(409, `Cannot restore "${node.name}": its folder now holds a node of that name (rename or delete it first)`);
  const ids = (statement(sqlite, 'SELECT id FROM nodes WHERE archive_root = ?').all(node.id) as { id: string }[]).map((row) => row.id);
  const { changes } = statement(sqlite, 'UPDATE nodes SET archived_at = NULL, archived_by = NULL, archiver = NULL, archive_root = NULL WHERE archive_root = ?').run(node.id);
  tx.append(CONTENT_EVENTS, { node_id: node.id, action: 'restored', payload: { actor: options.actor.id, parent_id: parent.id, name: node.name, nodes: Number(changes), state: { nodes: nodeRows(sqlite, ids) } } });
}

/** Removes a node's renditions, versions, grants and index row (its row goes after, with its subtree's); the versions removed. */
export function deleteNodeRows(sqlite: DatabaseSync, id: string): number {
  statement(sqlite, 'DELETE FROM renditions WHERE node_id = ?').run(id);
  const versions = Number(statement(sqlite, 'DELETE FROM versions WHERE node_id = ?').run(id).changes);
  statement(sqlite, 'DELETE FROM permissions WHERE node_id = ?').run(id);
  const row = statement(sqlite, 'SELECT fts_rowid FROM search_rows WHERE node_id = ?').get(id);
  if (row) statement(sqlite, 'DELETE FROM search_index WHERE rowid = ?').run(row['fts_rowid'] as number);
  statement(sqlite, 'DELETE FROM search_rows WHERE node_id = ?').run(id);
  return versions;
}

/**
 * DELETE deleted-nodes/{id}: removes the archived node, everything below it, their versions,
 * renditions, grants and index rows, then the blobs no remaining version names. Returns those
 * blobs' digests; their files are already moved aside (see the file header).
 */
export function purgeRows(sqlite: DatabaseSync, tx: Transaction, options: { nodeId: string; actor: Actor; blobs: BlobStore }): string[] {
  const node = requireArchived(sqlite, options.nodeId, options.actor);
  const ids = (statement(sqlite, 'SELECT id FROM nodes WHERE archive_root = ?').all(node.id) as { id: string }[]).map((row) => row.id);
  const digests = new Set<string>();
  for (const id of ids) for (const row of statement(sqlite, 'SELECT sha256 FROM versions WHERE node_id = ?').all(id)) digests.add(String(row['sha256']));
  let versions = 0;
  for (const id of ids) versions += deleteNodeRows(sqlite, id);
  statement(sqlite, 'DELETE FROM nodes WHERE archive_root = ?').run(node.id);
  const unused = [...digests].filter((sha) => statement(sqlite, 'SELECT 1 FROM versions WHERE sha256 = ? LIMIT 1').get(sha) === undefined).sort();
  tx.append(CONTENT_EVENTS, { node_id: node.id, action: 'purged', payload: { actor: options.actor.id, name: node.name, nodes: ids.length, versions, blobs_removed: unused, state: { removed: ids } } });
  // Last, so a failure above leaves every blob where it was; a rollback after this puts them back (purgeNode).
  const moved: string[] = [];
  try {
    for (const sha of unused) {
      moveAside(options.blobs, sha);
      moved.push(sha);
    }
  } catch (error) {
    for (const sha of moved) restoreBlob(options.blobs, sha);
    throw error;
  }
  return unused;
}

function moveAside(blobs: BlobStore, sha256: string): void {
  const from = blobs.path(sha256);
  if (existsSync(from)) renameSync(from, blobs.asidePath(sha256));
}

/** Purges an archived node (purgeRows) and then deletes the blob files it freed. */
export async function purgeNode(store: Store, blobs: BlobStore, options: { nodeId: string; actor: Actor }): Promise<string[]> {
  let moved: string[] = [];
  try {
    moved = await store.write((sqlite, tx) => {
      moved = purgeRows(sqlite, tx, { ...options, blobs });
      return moved;
    });
  } catch (error) {
    // The rows are back: so must be their blobs.
    for (const sha of moved) restoreBlob(blobs, sha);
    throw error;
  }
  for (const sha of moved) rmSync(blobs.asidePath(sha), { force: true });
  return moved;
}

/** Puts a blob moved aside by a purge back in its place. */
export function restoreBlob(blobs: BlobStore, sha256: string): void {
  const aside = blobs.asidePath(sha256);
  if (!existsSync(aside)) return;
  mkdirSync(dirname(blobs.path(sha256)), { recursive: true, mode: 0o700 });
  renameSync(aside, blobs.path(sha256));
}
