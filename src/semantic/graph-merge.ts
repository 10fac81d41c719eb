// One admitted record written into the graph: an upsert of its node or edge, keyed by tenant
// hash, declared domain and id (a later record of an id replaces the earlier). The worker
// (reconcile.ts) and a restore's replay of its runs (derive-control-state.ts) write the same way.

import type { DatabaseSync } from 'node:sqlite';
import { statement } from '../kernel/index.ts';
import type { EdgeMerge, NodeMerge } from './ingest-record.ts';

const NODE_UPSERT = `INSERT INTO graph_nodes (tenant_hash, isolation_domain_ref, node_id, label, properties, source_record_id, inbox_seq)
    VALUES (?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (tenant_hash, isolation_domain_ref, node_id) DO UPDATE SET
      label = excluded.label, properties = excluded.properties, source_record_id = excluded.source_record_id, inbox_seq = excluded.inbox_seq`;
const EDGE_UPSERT = `INSERT INTO graph_edges (tenant_hash, isolation_domain_ref, edge_id, from_node, to_node, relation, properties, source_record_id, inbox_seq, visible)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (tenant_hash, isolation_domain_ref, edge_id) DO UPDATE SET
      from_node = excluded.from_node, to_node = excluded.to_node, relation = excluded.relation, properties = excluded.properties,
      source_record_id = excluded.source_record_id, inbox_seq = excluded.inbox_seq, visible = excluded.visible`;

/** Writes `merge` (from inbox record `inboxSeq`); `visible` is the edge's visibility (ignored for a node). */
export function mergeIntoGraph(sqlite: DatabaseSync, merge: NodeMerge | EdgeMerge, options: { inboxSeq: number; visible: boolean }): void {
  if (merge.kind === 'node') {
    statement(sqlite, NODE_UPSERT).run(merge.tenantHash, merge.domain, merge.nodeId, merge.label, merge.properties, merge.recordId, options.inboxSeq);
  } else {
    statement(sqlite, EDGE_UPSERT).run(merge.tenantHash, merge.domain, merge.edgeId, merge.from, merge.to, merge.relation, merge.properties, merge.recordId, options.inboxSeq, options.visible ? 1 : 0);
  }
}
