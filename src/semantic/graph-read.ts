// Compartmented graph reads. A read binds the tenant hash and the isolation domain in SQL, then
// passes every candidate row through the isolation-domain wall, which drops any node of another
// compartment and any edge that is hidden or whose ends are not both nodes of the requested
// compartment. The explanation trace records each step, the wall as `isolation_domain_wall`.

import type { DatabaseSync } from 'node:sqlite';
import { isIsolationDomain } from './isolation-domains.ts';

export interface GraphNode {
  node_id: string;
  label: string;
  properties: Record<string, unknown>;
}

export interface GraphEdge {
  edge_id: string;
  from: string;
  to: string;
  relation: string;
  properties: Record<string, unknown>;
}

export interface TraceStep {
  step: 'bind_compartment' | 'select_candidates' | 'isolation_domain_wall';
  [detail: string]: unknown;
}

export interface CompartmentRead {
  nodes: GraphNode[];
  edges: GraphEdge[];
  trace: TraceStep[];
}

/** Most nodes one read returns. */
export const MAX_READ_NODES = 1000;

/**
 * Reads one compartment, or the given nodes of it and the edges touching them.
 *
 * @example
 * const { nodes, edges, trace } = readCompartment(store.sqlite, { tenantHash: tenantHash('t1'), domain: 'payments' });
 */
export function readCompartment(
  sqlite: DatabaseSync,
  request: { tenantHash: string; domain: string; nodeIds?: readonly string[]; limit?: number },
): CompartmentRead {
  const { tenantHash, domain } = request;
  const trace: TraceStep[] = [{ step: 'bind_compartment', tenant_hash: tenantHash, isolation_domain_ref: domain }];
  if (!isIsolationDomain(domain) || !/^[0-9a-f]{64}$/.test(tenantHash)) {
    // Fail closed: an unknown compartment reads nothing, and the wall says why.
    trace.push({ step: 'isolation_domain_wall', admitted: false, reason: 'unknown isolation domain or malformed tenant hash', dropped_nodes: 0, dropped_edges: 0 });
    return { nodes: [], edges: [], trace };
  }
  const limit = Math.min(request.limit ?? MAX_READ_NODES, MAX_READ_NODES);
  const ids = request.nodeIds;
  const nodeRows = ids === undefined
    ? sqlite.prepare('SELECT * FROM graph_nodes WHERE tenant_hash = ? AND isolation_domain_ref = ? ORDER BY node_id LIMIT ?').all(tenantHash, domain, limit)
    : sqlite
      .prepare(`SELECT * FROM graph_nodes WHERE tenant_hash = ? AND isolation_domain_ref = ? AND node_id IN (SELECT value FROM json_each(?)) ORDER BY node_id LIMIT ?`)
      .all(tenantHash, domain, JSON.stringify(ids), limit);
  const wanted = JSON.stringify(nodeRows.map((row) => row['node_id']));
  const edgeRows = sqlite
    .prepare(`SELECT * FROM graph_edges WHERE tenant_hash = ? AND isolation_domain_ref = ?
      AND (from_node IN (SELECT value FROM json_each(?)) OR to_node IN (SELECT value FROM json_each(?))) ORDER BY edge_id`)
    .all(tenantHash, domain, wanted, wanted);
  trace.push({ step: 'select_candidates', nodes: nodeRows.length, edges: edgeRows.length });

  const inside = (row: Record<string, unknown>) => row['tenant_hash'] === tenantHash && row['isolation_domain_ref'] === domain;
  const nodes = nodeRows.filter(inside);
  const compartmentNode = sqlite.prepare('SELECT 1 FROM graph_nodes WHERE tenant_hash = ? AND isolation_domain_ref = ? AND node_id = ?');
  const edges = edgeRows.filter((row) =>
    inside(row) &&
    row['visible'] === 1 &&
    compartmentNode.get(tenantHash, domain, String(row['from_node'])) !== undefined &&
    compartmentNode.get(tenantHash, domain, String(row['to_node'])) !== undefined,
  );
  trace.push({
    step: 'isolation_domain_wall',
    admitted: true,
    tenant_hash: tenantHash,
    isolation_domain_ref: domain,
    dropped_nodes: nodeRows.length - nodes.length,
    dropped_edges: edgeRows.length - edges.length,
  });
  return {
    nodes: nodes.map((row) => ({ node_id: String(row['node_id']), label: String(row['label']), properties: JSON.parse(String(row['properties'])) as Record<string, unknown> })),
    edges: edges.map((row) => ({
      edge_id: String(row['edge_id']),
      from: String(row['from_node']),
      to: String(row['to_node']),
      relation: String(row['relation']),
      properties: JSON.parse(String(row['properties'])) as Record<string, unknown>,
    })),
    trace,
  };
}
