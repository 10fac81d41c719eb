import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readCompartment } from '../../src/semantic/graph-read.ts';
import { enqueueRecords } from '../../src/semantic/ingest-inbox.ts';
import { reconcileOnce } from '../../src/semantic/reconcile.ts';
import { tenantHash } from '../../src/semantic/tenant-hash.ts';
import { edgeRecord, lines, nodeRecord, testStore } from './fixtures/semantic-fixtures.ts';
import type { TestContext } from 'node:test';

// Two tenants and two domains sharing node ids; edges inside, across and dangling.
async function seeded(t: TestContext) {
  const store = testStore(t);
  await enqueueRecords(store, lines(
    nodeRecord({ record_id: 'a1', node_id: 'n1' }),
    nodeRecord({ record_id: 'a2', node_id: 'n2' }),
    edgeRecord({ record_id: 'ae1', edge_id: 'inside', from: 'n1', to: 'n2' }),
    edgeRecord({ record_id: 'ae2', edge_id: 'to-other-domain', from: 'n1', to: 'n9' }),
    nodeRecord({ record_id: 'p9', node_id: 'n9', isolation_domain_ref: 'procurement' }),
    nodeRecord({ record_id: 'b1', node_id: 'n1', tenant_id: 'tenant-b', properties: { secret: 'tenant-b only' } }),
    edgeRecord({ record_id: 'be1', edge_id: 'other-tenant', tenant_id: 'tenant-b', from: 'n1', to: 'n1' }),
  ), { source: 'test' });
  await reconcileOnce(store, { batchSize: 100 });
  return store;
}

test('readCompartment() returns only the bound compartment and records the isolation_domain_wall step', async (t) => {
  const store = await seeded(t);
  const read = readCompartment(store.sqlite, { tenantHash: tenantHash('tenant-a'), domain: 'payments' });
  assert.deepEqual(read.nodes.map((n) => n.node_id), ['n1', 'n2']);
  assert.deepEqual(read.edges.map((e) => e.edge_id), ['inside']);
  assert.deepEqual(read.trace.map((s) => s.step), ['bind_compartment', 'select_candidates', 'isolation_domain_wall']);
  const wall = read.trace[2]!;
  assert.deepEqual([wall['admitted'], wall['dropped_nodes'], wall['dropped_edges']], [true, 0, 1], 'the edge to n9 of procurement is dropped');
  assert.ok(!JSON.stringify(read).includes('tenant-b only'));
});

test('readCompartment() drops an edge whose far end exists only in another compartment, even when it is marked visible', async (t) => {
  const store = await seeded(t);
  // As if a bug or a hand edit had flagged the dangling edge visible: the wall still drops it.
  store.sqlite.exec("UPDATE graph_edges SET visible = 1 WHERE edge_id = 'to-other-domain'");
  const read = readCompartment(store.sqlite, { tenantHash: tenantHash('tenant-a'), domain: 'payments', nodeIds: ['n1'] });
  assert.deepEqual(read.nodes.map((n) => n.node_id), ['n1']);
  assert.deepEqual(read.edges.map((e) => e.edge_id), ['inside'], 'n2 is in the compartment, n9 is not');
  assert.equal(read.trace[1]!['edges'], 2, 'both edges were candidates');
  assert.equal(read.trace[2]!['dropped_edges'], 1);
});

test('readCompartment() keeps tenants apart with the same node ids', async (t) => {
  const store = await seeded(t);
  const read = readCompartment(store.sqlite, { tenantHash: tenantHash('tenant-b'), domain: 'payments' });
  assert.deepEqual(read.nodes.map((n) => [n.node_id, n.properties]), [['n1', { secret: 'tenant-b only' }]]);
  assert.deepEqual(read.edges.map((e) => e.edge_id), ['other-tenant']);
});

test('readCompartment() fails closed for an unknown domain or a malformed tenant hash', async (t) => {
  const store = await seeded(t);
  for (const request of [{ tenantHash: tenantHash('tenant-a'), domain: 'everything' }, { tenantHash: 'tenant-a', domain: 'payments' }]) {
    const read = readCompartment(store.sqlite, request);
    assert.deepEqual([read.nodes, read.edges], [[], []]);
    assert.equal(read.trace.at(-1)?.step, 'isolation_domain_wall');
    assert.equal(read.trace.at(-1)?.['admitted'], false);
  }
});
