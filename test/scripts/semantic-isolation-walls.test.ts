import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openDatabase } from '../../src/kernel/index.ts';
import { CONTROL_EVIDENCE_TABLES, CONTROL_MIGRATIONS, enqueueRecords, openControlDatabase, readCompartment, reconcileOnce } from '../../src/semantic/index.ts';
import type { CompartmentRead } from '../../src/semantic/index.ts';
import { verifyIsolationWalls } from '../../scripts/_semantic/isolation-walls.ts';
import type { CompartmentReader } from '../../scripts/_semantic/isolation-walls.ts';
import { runScript, tempDir } from './fixtures/semantic-root.ts';

/** The control migrations with every isolation_domain_ref CHECK constraint cut out. */
const UNCHECKED_MIGRATIONS = [{
  name: CONTROL_MIGRATIONS[0]!.name,
  up: String(CONTROL_MIGRATIONS[0]!.up).replace(/CHECK \(isolation_domain_ref (?:IS NULL OR isolation_domain_ref )?IN \([^)]*\)\)/g, ''),
}, ...CONTROL_MIGRATIONS.slice(1)];

function failing(checks: { name: string; ok: boolean; reasons: string[] }[]): Record<string, string[]> {
  return Object.fromEntries(checks.filter((c) => !c.ok).map((c) => [c.name, c.reasons]));
}

test('verify_isolation_domain_walls --check passes on the service code and reports what it built', () => {
  const result = runScript('verify_isolation_domain_walls', ['--check', '--json']);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  const report = result.json() as { ok: boolean; checks: { name: string; ok: boolean }[]; counts: { check: Record<string, number> } };
  assert.equal(report.ok, true);
  assert.deepEqual(report.checks.map((c) => c.name), [
    'ingest_quarantine', 'worker_persists_declared_domain', 'check_constraint', 'compartment_reads', 'wall_drops_planted_crossings', 'unknown_compartment_reads_nothing',
  ]);
  // 2 tenants x 16 domains; per compartment 1 inner edge, 15 cross-domain and 1 cross-tenant edge.
  assert.deepEqual(report.counts.check, {
    domains: 16, tenants: 2, compartments: 32, records: 643, reconciliation_runs: 1, nodes: 96, edges: 544, hidden_edges: 512, quarantined: 3,
  });
  const text = runScript('verify_isolation_domain_walls', ['--check']);
  assert.match(text.stdout, /^all 6 checks passed$/m);
});

test('verifyIsolationWalls() fails compartment reads when the reader ignores the domain', async (t) => {
  const leaky: CompartmentReader = (sqlite, { tenantHash }) => {
    const nodes = sqlite.prepare('SELECT node_id FROM graph_nodes WHERE tenant_hash = ?').all(tenantHash).map((r) => ({ node_id: String(r['node_id']), label: '', properties: {} }));
    const edges = sqlite.prepare('SELECT edge_id, from_node, to_node FROM graph_edges WHERE tenant_hash = ?').all(tenantHash)
      .map((r) => ({ edge_id: String(r['edge_id']), from: String(r['from_node']), to: String(r['to_node']), relation: '', properties: {} }));
    return { nodes, edges, trace: [{ step: 'isolation_domain_wall' }] };
  };
  const { checks } = await verifyIsolationWalls(join(tempDir(t), 'semantic.sqlite'), { read: leaky });
  const failed = failing(checks);
  assert.deepEqual(Object.keys(failed), ['compartment_reads', 'wall_drops_planted_crossings', 'unknown_compartment_reads_nothing']);
  assert.ok(failed['compartment_reads']!.some((r) => /^read of wall-tenant-a\/identity_access returned edges .*cross-identity_access-to-payments/.test(r)));
  assert.ok(failed['wall_drops_planted_crossings']!.includes('read of wall-tenant-a/identity_access returned the planted crossing edge "planted-cross-domain"'));
});

test('verifyIsolationWalls() fails when a read records no isolation_domain_wall step', async (t) => {
  const untraced: CompartmentReader = (sqlite, request) => {
    const read: CompartmentRead = readCompartment(sqlite, request);
    return { ...read, trace: read.trace.filter((s) => s.step !== 'isolation_domain_wall') };
  };
  const { checks } = await verifyIsolationWalls(join(tempDir(t), 'semantic.sqlite'), { read: untraced });
  const failed = failing(checks);
  assert.ok(failed['compartment_reads']!.includes('read of wall-tenant-b/customer_relationship: the explanation trace has no isolation_domain_wall step'));
});

test('verifyIsolationWalls() fails the CHECK constraint check on a schema without it', async (t) => {
  const open = (path: string) => openDatabase(path, { migrations: UNCHECKED_MIGRATIONS, evidenceTables: CONTROL_EVIDENCE_TABLES });
  const { checks } = await verifyIsolationWalls(join(tempDir(t), 'semantic.sqlite'), { open });
  const failed = failing(checks);
  assert.deepEqual(Object.keys(failed), ['check_constraint']);
  assert.deepEqual(failed['check_constraint']!.slice(0, 3), [
    'graph_nodes accepted isolation_domain_ref "not_a_listed_domain": no CHECK constraint refused it',
    'graph_edges accepted isolation_domain_ref "not_a_listed_domain": no CHECK constraint refused it',
    'ingest_outcomes accepted isolation_domain_ref "not_a_listed_domain": no CHECK constraint refused it',
  ]);
});

async function reconciledDatabase(path: string, migrations = CONTROL_MIGRATIONS): Promise<void> {
  const store = migrations === CONTROL_MIGRATIONS
    ? openControlDatabase(path)
    : openDatabase(path, { migrations, evidenceTables: CONTROL_EVIDENCE_TABLES });
  const record = (domain: string, extra: Record<string, unknown>) => JSON.stringify({ record_id: `r-${domain}-${String(extra['node_id'] ?? extra['edge_id'])}`, tenant_id: 't', isolation_domain_ref: domain, ...extra });
  await enqueueRecords(store, [
    record('payments', { kind: 'node', node_id: 'a', label: 'X' }),
    record('payments', { kind: 'node', node_id: 'b', label: 'X' }),
    record('payments', { kind: 'edge', edge_id: 'ab', from: 'a', to: 'b', relation: 'r' }),
    // Held hidden: "z" is in no compartment; the wall drops it from the payments read.
    record('payments', { kind: 'edge', edge_id: 'az', from: 'a', to: 'z', relation: 'r' }),
    record('payroll', { kind: 'edge', edge_id: 'cross', from: 'c', to: 'a', relation: 'r' }),
  ], { source: 'test' });
  await reconcileOnce(store, { batchSize: 10, skipIntegrityCheck: migrations !== CONTROL_MIGRATIONS });
  await store.close();
}

test('verify_isolation_domain_walls --db audits an existing database read-only, and fails one without CHECK constraints', async (t) => {
  const dir = tempDir(t);
  const good = join(dir, 'good.sqlite');
  await reconciledDatabase(good);
  const ok = runScript('verify_isolation_domain_walls', ['--db', good, '--json']);
  assert.equal(ok.code, 0, ok.stdout + ok.stderr);
  assert.deepEqual((ok.json()['counts'] as Record<string, unknown>)['db'], { compartments: 2, edges_dropped_by_wall: 1 });
  const bad = join(dir, 'bad.sqlite');
  await reconciledDatabase(bad, UNCHECKED_MIGRATIONS);
  const failed = runScript('verify_isolation_domain_walls', ['--db', bad]);
  assert.equal(failed.code, 1);
  assert.match(failed.stdout, /^FAIL db:check_constraint$/m);
  assert.match(failed.stdout, /the isolation_domain_ref CHECK constraints do not match the isolation-domains contract/);
});

test('verify_isolation_domain_walls exits 2 without a mode or with a missing database', (t) => {
  const none = runScript('verify_isolation_domain_walls', []);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /Nothing to verify: give --check, --db FILE, or both/);
  const missing = runScript('verify_isolation_domain_walls', ['--db', join(tempDir(t), 'absent.sqlite')]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /file does not exist/);
  assert.equal(runScript('verify_isolation_domain_walls', ['--help']).code, 0);
});
