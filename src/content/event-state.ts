// What each content_events row carries besides its summary, so that the repository is derivable
// from the evidence alone (derive-repository.ts): the rows the change left, as they are after it
// (`state`). Blob bytes are not in the evidence: they are replicated to the object store
// (blob-replication.ts) and fetched back by evidence_restore.

import type { DatabaseSync } from 'node:sqlite';
import { statement } from '../kernel/index.ts';
import type { JsonValue } from '../kernel/index.ts';

type Row = Record<string, JsonValue>;

export interface EventState {
  /** Node rows after the change, whole. */
  nodes?: Row[];
  /** Each named node's local grants after the change, as [authority, role]. */
  grants?: Record<string, [string, string][]>;
  /** The version row the change added. */
  version?: Row;
  /** The rendition the change stored (its bytes are rendered again from the version). */
  rendition?: { rendition_id: string; version_label: string; mime_type: string; created_at: string };
  /** Node ids the change removed for good (a purge). */
  removed?: string[];
}

/** The node rows `ids` as they are now, for an event's `state.nodes`. */
export function nodeRows(sqlite: DatabaseSync, ids: readonly string[]): Row[] {
  return ids.map((id) => statement(sqlite, 'SELECT * FROM nodes WHERE id = ?').get(id) as Row);
}

/** Node `id`'s local grants as they are now. */
export function grantRows(sqlite: DatabaseSync, id: string): [string, string][] {
  return statement(sqlite, 'SELECT authority, role FROM permissions WHERE node_id = ? ORDER BY authority, role').all(id).map((r) => [String(r['authority']), String(r['role'])]);
}

/** The state of a node after a change of its row and grants (isolation, permissions). */
export function nodeAndGrants(sqlite: DatabaseSync, id: string): EventState {
  return { nodes: nodeRows(sqlite, [id]), grants: { [id]: grantRows(sqlite, id) } };
}
