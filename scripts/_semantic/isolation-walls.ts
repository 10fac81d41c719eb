// The checks of verify_isolation_domain_walls. `--check` builds, in a temporary control
// database, a graph with edges across every ordered pair of isolation domains and across tenants,
// reconciles it with the real worker code, then proves: each compartment read returns exactly its
// own nodes and edges, the wall also drops crossing edges planted behind the worker's back, the
// CHECK constraints refuse an unknown domain, a record with a missing or unknown domain is
// QUARANTINED, and every trace has isolation_domain_wall. `--db` audits an existing database.

import type { DatabaseSync } from 'node:sqlite';
import { openDatabase } from '../../src/kernel/index.ts';
import type { Store } from '../../src/kernel/index.ts';
import {
  CONTROL_EVIDENCE_TABLES, CONTROL_MIGRATIONS, ISOLATION_DOMAIN_REFS, checkSchemaIntegrity, enqueueRecords, readCompartment, reconcileOnce, tenantHash,
} from '../../src/semantic/index.ts';
import type { CompartmentRead } from '../../src/semantic/index.ts';
import { check } from './check-report.ts';
import type { Check } from './check-report.ts';

export type CompartmentReader = (sqlite: DatabaseSync, request: { tenantHash: string; domain: string }) => CompartmentRead;

export interface WallOptions {
  /** Opens the temporary control database; the service's migrations by default (tests swap them). */
  open?: (path: string) => Store;
  /** The graph read under test; readCompartment by default. */
  read?: CompartmentReader;
}

export const WALL_TENANTS = ['wall-tenant-a', 'wall-tenant-b'] as const;
const UNKNOWN_DOMAIN = 'not_a_listed_domain';
const BATCH = 1000;

interface Expected {
  nodes: string[];
  edges: string[];
}

/** The synthetic graph: per compartment a shared `hub`, its own node and a tenant mark; edges inside, across domains and across tenants. */
export function wallRecords(): { records: Record<string, unknown>[]; expected: Map<string, Expected> } {
  const records: Record<string, unknown>[] = [];
  const expected = new Map<string, Expected>();
  const node = (tenant: string, domain: string, id: string) =>
    records.push({ record_id: `${tenant}.${domain}.${id}`, tenant_id: tenant, isolation_domain_ref: domain, kind: 'node', node_id: id, label: 'WallProbe' });
  const edge = (tenant: string, domain: string, id: string, to: string) =>
    records.push({ record_id: `${tenant}.${domain}.${id}`, tenant_id: tenant, isolation_domain_ref: domain, kind: 'edge', edge_id: id, from: 'hub', to, relation: 'probe' });
  for (const tenant of WALL_TENANTS) {
    for (const domain of ISOLATION_DOMAIN_REFS) {
      // The same ids exist in every compartment, so only the binding can keep them apart.
      node(tenant, domain, 'hub');
      node(tenant, domain, `own-${domain}`);
      node(tenant, domain, `mark-${tenant}`);
      edge(tenant, domain, `inner-${domain}`, `own-${domain}`);
      for (const other of ISOLATION_DOMAIN_REFS) if (other !== domain) edge(tenant, domain, `cross-${domain}-to-${other}`, `own-${other}`);
      for (const otherTenant of WALL_TENANTS) if (otherTenant !== tenant) edge(tenant, domain, `cross-tenant-to-${otherTenant}`, `mark-${otherTenant}`);
      expected.set(compartment(tenant, domain), { nodes: ['hub', `mark-${tenant}`, `own-${domain}`].sort(), edges: [`inner-${domain}`] });
    }
  }
  return { records, expected };
}

/** Records the worker must quarantine, with the reason it must give. */
export const QUARANTINE_PROBES: readonly { record: Record<string, unknown>; reason: string }[] = [
  { record: { record_id: 'probe-missing-domain', tenant_id: 'wall-tenant-a', kind: 'node', node_id: 'probe-missing', label: 'Probe' }, reason: 'isolation_domain_ref_missing' },
  { record: { record_id: 'probe-empty-domain', tenant_id: 'wall-tenant-a', isolation_domain_ref: '', kind: 'node', node_id: 'probe-empty', label: 'Probe' }, reason: 'isolation_domain_ref_missing' },
  { record: { record_id: 'probe-unknown-domain', tenant_id: 'wall-tenant-a', isolation_domain_ref: UNKNOWN_DOMAIN, kind: 'node', node_id: 'probe-unknown', label: 'Probe' }, reason: 'isolation_domain_ref_unknown' },
];

function compartment(tenant: string, domain: string): string {
  return `${tenant}/${domain}`;
}

function openControl(path: string): Store {
  const start = Date.UTC(2026, 0, 1);
  let tick = 0;
  return openDatabase(path, { migrations: CONTROL_MIGRATIONS, evidenceTables: CONTROL_EVIDENCE_TABLES, now: () => new Date(start + 1000 * tick++) });
}

/** Runs the deterministic verification in a control database at `path` (a fresh file). */
export async function verifyIsolationWalls(path: string, options: WallOptions = {}): Promise<{ checks: Check[]; counts: Record<string, number> }> {
  const store = (options.open ?? openControl)(path);
  const read = options.read ?? readCompartment;
  try {
    const { records, expected } = wallRecords();
    const all = [...records, ...QUARANTINE_PROBES.map((p) => p.record)];
    await enqueueRecords(store, all.map((r) => JSON.stringify(r)), { source: 'verify_isolation_domain_walls' });
    let runs = 0;
    // The walls are audited below, constraint by constraint, so a schema without them is reconciled and reported, not refused.
    while ((await reconcileOnce(store, { batchSize: BATCH, skipIntegrityCheck: true })) !== undefined) runs++;
    const sqlite = store.sqlite;
    const count = (sql: string) => Number(sqlite.prepare(sql).get()?.['n'] ?? 0);
    const counts = {
      domains: ISOLATION_DOMAIN_REFS.length,
      tenants: WALL_TENANTS.length,
      compartments: expected.size,
      records: all.length,
      reconciliation_runs: runs,
      nodes: count('SELECT count(*) AS n FROM graph_nodes'),
      edges: count('SELECT count(*) AS n FROM graph_edges'),
      hidden_edges: count('SELECT count(*) AS n FROM graph_edges WHERE visible = 0'),
      quarantined: count("SELECT count(*) AS n FROM ingest_outcomes WHERE state = 'QUARANTINED'"),
    };
    const checks = [
      check('ingest_quarantine', quarantineReasons(sqlite)),
      check('worker_persists_declared_domain', declaredDomainReasons(sqlite)),
      check('check_constraint', checkConstraintReasons(sqlite)),
      check('compartment_reads', compartmentReadReasons(sqlite, read, expected)),
      check('wall_drops_planted_crossings', plantedCrossingReasons(sqlite, read)),
      check('unknown_compartment_reads_nothing', unknownCompartmentReasons(sqlite, read)),
    ];
    return { checks, counts };
  } finally {
    await store.close();
  }
}

function quarantineReasons(sqlite: DatabaseSync): string[] {
  const reasons: string[] = [];
  const outcome = sqlite.prepare('SELECT state, reason, isolation_domain_ref FROM ingest_outcomes WHERE record_id = ?');
  const graphRow = sqlite.prepare('SELECT 1 FROM graph_nodes WHERE node_id = ?');
  for (const { record, reason } of QUARANTINE_PROBES) {
    const id = String(record['record_id']);
    const row = outcome.get(id);
    if (row === undefined) reasons.push(`record "${id}" has no outcome`);
    else if (row['state'] !== 'QUARANTINED' || row['reason'] !== reason) {
      reasons.push(`record "${id}" is ${String(row['state'])} (${String(row['reason'])}), expected QUARANTINED (${reason})`);
    } else if (row['isolation_domain_ref'] !== null) reasons.push(`record "${id}" was quarantined with a domain applied: "${String(row['isolation_domain_ref'])}"`);
    if (graphRow.get(String(record['node_id'])) !== undefined) reasons.push(`record "${id}" reached the graph`);
  }
  return reasons;
}

function declaredDomainReasons(sqlite: DatabaseSync): string[] {
  const rows = sqlite.prepare(`SELECT o.record_id, o.isolation_domain_ref AS stored, json_extract(i.record, '$.isolation_domain_ref') AS declared
    FROM ingest_outcomes o JOIN ingest_inbox i ON i.seq = o.inbox_seq WHERE o.state = 'MERGED' AND (o.isolation_domain_ref IS NOT declared)`).all();
  const graph = sqlite.prepare(`SELECT count(*) AS n FROM ingest_outcomes o JOIN ingest_inbox i ON i.seq = o.inbox_seq
    WHERE o.state = 'MERGED' AND NOT EXISTS (
      SELECT 1 FROM graph_nodes g WHERE g.source_record_id = o.record_id AND g.isolation_domain_ref = o.isolation_domain_ref
      UNION ALL SELECT 1 FROM graph_edges e WHERE e.source_record_id = o.record_id AND e.isolation_domain_ref = o.isolation_domain_ref)`).get();
  const reasons = rows.map((r) => `record "${String(r['record_id'])}" declared "${String(r['declared'])}" but was merged into "${String(r['stored'])}"`);
  const missing = Number(graph?.['n'] ?? 0);
  if (missing > 0) reasons.push(`${missing} merged records have no graph row in their declared domain`);
  const merged = Number(sqlite.prepare("SELECT count(*) AS n FROM ingest_outcomes WHERE state = 'MERGED'").get()?.['n'] ?? 0);
  if (merged === 0) reasons.push('no record was merged: the worker admitted nothing');
  return reasons;
}

/** Inserts rows with an unknown domain into each constrained table; each must be refused by a CHECK constraint. */
export function checkConstraintReasons(sqlite: DatabaseSync): string[] {
  const reasons: string[] = [];
  const hash = tenantHash('wall-tenant-a');
  const attempts: [string, string, unknown[]][] = [
    ['graph_nodes', 'INSERT INTO graph_nodes (tenant_hash, isolation_domain_ref, node_id, label, properties, source_record_id, inbox_seq) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [hash, UNKNOWN_DOMAIN, 'check-probe', 'Probe', '{}', 'check-probe', 0]],
    ['graph_edges', 'INSERT INTO graph_edges (tenant_hash, isolation_domain_ref, edge_id, from_node, to_node, relation, properties, source_record_id, inbox_seq, visible) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [hash, UNKNOWN_DOMAIN, 'check-probe', 'a', 'b', 'probe', '{}', 'check-probe', 0, 1]],
    // The outcome needs an inbox row of its own (foreign key); both are rolled back.
    ['ingest_outcomes', "INSERT INTO ingest_outcomes (inbox_seq, record_id, state, reason, isolation_domain_ref, run_id) VALUES ((SELECT max(seq) FROM ingest_inbox), 'check-probe', 'MERGED', NULL, ?, 'check-probe')",
      [UNKNOWN_DOMAIN]],
  ];
  for (const [table, sql, params] of attempts) {
    sqlite.exec('SAVEPOINT check_probe');
    try {
      if (table === 'ingest_outcomes') sqlite.exec("INSERT INTO ingest_inbox (received_at, source, record) VALUES ('1970-01-01T00:00:00.000Z', 'check-probe', '{}')");
      sqlite.prepare(sql).run(...(params as never[]));
      reasons.push(`${table} accepted isolation_domain_ref "${UNKNOWN_DOMAIN}": no CHECK constraint refused it`);
    } catch (error) {
      const message = (error as Error).message;
      if (!/CHECK constraint failed/i.test(message)) reasons.push(`${table} refused the probe for another reason than its CHECK constraint: ${message}`);
    } finally {
      sqlite.exec('ROLLBACK TO check_probe; RELEASE check_probe');
    }
  }
  const receipt = checkSchemaIntegrity(sqlite);
  if (!receipt.isolation_domain_check.matches_contract) reasons.push('the schema-integrity receipt says the CHECK constraints do not match the isolation-domains contract');
  return reasons;
}

function traceReasons(where: string, read: CompartmentRead): string[] {
  return read.trace.some((step) => step.step === 'isolation_domain_wall') ? [] : [`${where}: the explanation trace has no isolation_domain_wall step`];
}

function same(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}

function compartmentReadReasons(sqlite: DatabaseSync, read: CompartmentReader, expected: Map<string, Expected>): string[] {
  const reasons: string[] = [];
  for (const tenant of WALL_TENANTS) {
    for (const domain of ISOLATION_DOMAIN_REFS) {
      const where = `read of ${compartment(tenant, domain)}`;
      const result = read(sqlite, { tenantHash: tenantHash(tenant), domain });
      const want = expected.get(compartment(tenant, domain))!;
      const nodes = result.nodes.map((n) => n.node_id).sort();
      const edges = result.edges.map((e) => e.edge_id).sort();
      if (!same(nodes, want.nodes)) reasons.push(`${where} returned nodes ${nodes.join(', ') || '(none)'}, expected ${want.nodes.join(', ')}`);
      if (!same(edges, want.edges)) reasons.push(`${where} returned edges ${edges.join(', ') || '(none)'}, expected ${want.edges.join(', ')}`);
      reasons.push(...traceReasons(where, result));
    }
  }
  return reasons;
}

/** A visible crossing edge written straight into the table, as a faulty writer could: the read must still drop it. */
function plantedCrossingReasons(sqlite: DatabaseSync, read: CompartmentReader): string[] {
  const [first, second] = [ISOLATION_DOMAIN_REFS[0]!, ISOLATION_DOMAIN_REFS[1]!];
  const [tenant, otherTenant] = WALL_TENANTS;
  const hash = tenantHash(tenant);
  const plant = sqlite.prepare(`INSERT INTO graph_edges (tenant_hash, isolation_domain_ref, edge_id, from_node, to_node, relation, properties, source_record_id, inbox_seq, visible)
    VALUES (?, ?, ?, 'hub', ?, 'planted', '{}', 'planted', 0, 1)`);
  plant.run(hash, first, 'planted-cross-domain', `own-${second}`);
  plant.run(hash, first, 'planted-cross-tenant', `mark-${otherTenant}`);
  const result = read(sqlite, { tenantHash: hash, domain: first });
  const leaked = result.edges.filter((e) => e.edge_id.startsWith('planted-')).map((e) => e.edge_id);
  const reasons = leaked.map((id) => `read of ${compartment(tenant, first)} returned the planted crossing edge "${id}"`);
  return [...reasons, ...traceReasons(`read of ${compartment(tenant, first)}`, result)];
}

function unknownCompartmentReasons(sqlite: DatabaseSync, read: CompartmentReader): string[] {
  const result = read(sqlite, { tenantHash: tenantHash(WALL_TENANTS[0]), domain: UNKNOWN_DOMAIN });
  const reasons = result.nodes.length + result.edges.length > 0 ? [`read of unknown domain "${UNKNOWN_DOMAIN}" returned ${result.nodes.length} nodes and ${result.edges.length} edges`] : [];
  return [...reasons, ...traceReasons(`read of unknown domain "${UNKNOWN_DOMAIN}"`, result)];
}

/**
 * Audits an existing control database, read-only: the CHECK constraints match the contract, and
 * every compartment read returns only nodes of the compartment and visible edges whose ends are both in it.
 */
export function auditIsolationWalls(sqlite: DatabaseSync, read: CompartmentReader = readCompartment): { checks: Check[]; counts: Record<string, number> } {
  const receipt = checkSchemaIntegrity(sqlite);
  const schema = receipt.isolation_domain_check.matches_contract ? [] : ['the isolation_domain_ref CHECK constraints do not match the isolation-domains contract', ...receipt.reasons];
  const compartments = sqlite
    .prepare('SELECT tenant_hash, isolation_domain_ref FROM graph_nodes UNION SELECT tenant_hash, isolation_domain_ref FROM graph_edges ORDER BY 1, 2')
    .all()
    .map((r) => ({ tenantHash: String(r['tenant_hash']), domain: String(r['isolation_domain_ref']) }));
  const nodeIn = sqlite.prepare('SELECT 1 FROM graph_nodes WHERE tenant_hash = ? AND isolation_domain_ref = ? AND node_id = ?');
  const edgeRow = sqlite.prepare('SELECT visible FROM graph_edges WHERE tenant_hash = ? AND isolation_domain_ref = ? AND edge_id = ?');
  const reasons: string[] = [];
  let crossing = 0;
  for (const c of compartments) {
    const where = `read of ${c.tenantHash.slice(0, 12)}…/${c.domain}`;
    const result = read(sqlite, c);
    for (const n of result.nodes) if (nodeIn.get(c.tenantHash, c.domain, n.node_id) === undefined) reasons.push(`${where} returned node "${n.node_id}" of another compartment`);
    for (const e of result.edges) {
      const row = edgeRow.get(c.tenantHash, c.domain, e.edge_id);
      const inside = nodeIn.get(c.tenantHash, c.domain, e.from) !== undefined && nodeIn.get(c.tenantHash, c.domain, e.to) !== undefined;
      if (row === undefined || row['visible'] !== 1 || !inside) reasons.push(`${where} returned edge "${e.edge_id}", which crosses the wall or is hidden`);
    }
    reasons.push(...traceReasons(where, result));
    const dropped = result.trace.find((s) => s.step === 'isolation_domain_wall')?.['dropped_edges'];
    crossing += typeof dropped === 'number' ? dropped : 0;
  }
  return {
    checks: [check('check_constraint', schema), check('compartment_reads', reasons)],
    counts: { compartments: compartments.length, edges_dropped_by_wall: crossing },
  };
}
