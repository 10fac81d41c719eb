import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { send } from '../helpers/http.ts';
import { strongEtag } from '../../src/kernel/index.ts';
import { enqueueRecords } from '../../src/semantic/ingest-inbox.ts';
import { reconcileOnce } from '../../src/semantic/reconcile.ts';
import { CONTEXT_PATH, STATUS_PATH, TOPOLOGY_PATH } from '../../src/semantic/routes.ts';
import { TOPOLOGY_METRICS } from '../../src/semantic/topology-metrics.ts';
import { edgeRecord, lines, nodeRecord } from './fixtures/semantic-fixtures.ts';
import { SAMPLE_ARTIFACT, startTestService } from './fixtures/semantic-service.ts';
import type { TestService } from './fixtures/semantic-service.ts';

type Body = Record<string, any>;

async function status(s: TestService, headers: Record<string, string> = {}) {
  return send(`${s.url}${STATUS_PATH}`, { headers: { ...s.consumer(), ...headers } });
}

/** Ingests and reconciles through a second connection, as semantic-ingest and the worker do. */
async function workerRun(s: TestService, records: Record<string, unknown>[]): Promise<void> {
  const worker = s.otherConnection();
  await enqueueRecords(worker, lines(...records), { source: 'test' });
  await reconcileOnce(worker, { batchSize: 100 });
}

test('status readback carries every field of the seed table', async (t) => {
  const s = await startTestService(t);
  const body = (await status(s)).json() as Body;
  assert.deepEqual(Object.keys(body), [
    'service', 'version', 'activation_stage', 'monitoring_profile', 'canary_tenant_id', 'declared_foundations', 'control_db_discovery',
    'graph_store_loopback_ports', 'graph_memory_runtime_profile', 'graph_search_lane_posture', 'schema_integrity_receipt',
    'reconciliation_worker_snapshot', 'repair_receipts',
  ]);
  assert.equal(body.activation_stage, 'S0');
  assert.equal(body.canary_tenant_id, 'canary-tenant-1');
  assert.equal(body.graph_memory_runtime_profile.base_url, s.url);
  assert.deepEqual(body.graph_store_loopback_ports, [{ name: 'semantic-api', host: '127.0.0.1', port: Number(new URL(s.url).port), loopback: true }]);
  assert.equal(body.schema_integrity_receipt.status, 'pass');
  assert.deepEqual(body.reconciliation_worker_snapshot, { status: 'unavailable', reason: 'projection_reconciliation_readback holds no run yet' });
  assert.deepEqual(body.repair_receipts, []);
  assert.deepEqual(body.declared_foundations.map((f: Body) => [f.name, f.configured]), [
    ['control_database', true], ['model_runtime', false], ['vector_store', false], ['governance', false], ['runtime_owner_artifact', true],
  ]);
  assert.equal(body.graph_search_lane_posture.lanes.graph.admitted, false, 'S0 admits no runtime lane');
});

test('status readback reads the worker snapshot and repair receipts from their tables', async (t) => {
  const s = await startTestService(t);
  await workerRun(s, [nodeRecord(), edgeRecord(), nodeRecord({ record_id: 'q', isolation_domain_ref: 'nowhere' })]);
  const body = (await status(s)).json() as Body;
  const snapshot = body.reconciliation_worker_snapshot;
  assert.deepEqual([snapshot.status, snapshot.run_id, snapshot.taken, snapshot.merged, snapshot.quarantined, snapshot.edges_hidden, snapshot.seq], ['available', 'recon-1-3', 3, 2, 1, 1, 1]);
  assert.match(snapshot.sha256, /^[0-9a-f]{64}$/);
  assert.deepEqual(body.repair_receipts.map((r: Body) => [r.seq, r.kind, r.counts]), [
    [2, 'visibility_repair', { hidden: 1, restored: 0 }],
    [1, 'admission', { taken: 3, merged: 2, quarantined: 1 }],
  ]);
  assert.deepEqual(body.control_db_discovery.inbox, { records: 3, undecided: 0, merged: 2, quarantined: 1 });
});

test('status readback answers If-None-Match with 304 until the worker writes, then with a new ETag', async (t) => {
  const s = await startTestService(t);
  const first = await status(s);
  const etag = String(first.headers['etag']);
  assert.match(etag, /^"[A-Za-z0-9_-]{43}"$/);
  s.advance(3_600_000);
  const same = await status(s, { 'if-none-match': etag });
  assert.equal(same.status, 304);
  assert.equal(same.text, '');
  assert.equal((await send(`${s.url}${STATUS_PATH}`, { method: 'HEAD', headers: s.consumer() })).headers['etag'], etag);
  await workerRun(s, [nodeRecord()]);
  const changed = await status(s, { 'if-none-match': etag });
  assert.equal(changed.status, 200);
  assert.notEqual(changed.headers['etag'], etag);
  // The tag is cached with the bytes (not hashed per request): it must still be the bytes' own.
  assert.equal(changed.headers['etag'], strongEtag(changed.text), 'the ETag is the SHA-256 of the body sent');
  assert.equal((changed.json() as Body).reconciliation_worker_snapshot.run_id, 'recon-1-1');
  assert.equal((await status(s, { 'if-none-match': String(changed.headers['etag']) })).status, 304);
});

test('a tampered graph schema fails the integrity receipt, readiness (503) and degrades the context readback', async (t) => {
  const s = await startTestService(t);
  assert.equal((await send(`${s.url}/readyz`)).status, 200);
  s.otherConnection().sqlite.exec('DROP INDEX graph_edges_to_node');
  const body = (await status(s)).json() as Body;
  assert.equal(body.schema_integrity_receipt.status, 'fail');
  assert.ok(body.schema_integrity_receipt.reasons.includes('schema object "graph_edges_to_node" is missing'));
  const ready = await send(`${s.url}/readyz`);
  assert.equal(ready.status, 503);
  const checks = (ready.json() as Body).checks;
  assert.equal(checks['control_database:schema_integrity'][0].status, 'fail');
  const context = (await send(`${s.url}${CONTEXT_PATH}`, { headers: s.consumer() })).json() as Body;
  assert.equal(context.degradation.state, 'degraded');
});

test('readiness reports each dependency, probing upstream /readyz', async (t) => {
  const upstream = createServer((req, res) => res.writeHead(req.url === '/readyz' ? 200 : 404).end());
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  t.after(() => upstream.close());
  const s = await startTestService(t, {
    SEMANTIC_MODEL_RUNTIME_URL: `http://127.0.0.1:${(upstream.address() as { port: number }).port}`,
    SEMANTIC_VECTOR_STORE_URL: 'http://127.0.0.1:9',
    SEMANTIC_PROJECTION_CASE_ALLOWLIST: undefined,
  });
  const ready = await send(`${s.url}/readyz`);
  assert.equal(ready.status, 200);
  assert.equal(ready.headers['content-type'], 'application/health+json');
  const body = ready.json() as Body;
  assert.equal(body.status, 'warn');
  assert.deepEqual(Object.keys(body.checks), [
    'control_database:migration', 'control_database:schema_integrity', 'reconciliation_worker:snapshot', 'projection_verification:allowlist',
    'consumers:tokens', 'runtime_owner_artifact:readable', 'model_runtime:readyz', 'vector_store:readyz', 'governance:health',
  ]);
  assert.equal(body.checks['control_database:migration'][0].status, 'pass');
  assert.equal(body.checks['model_runtime:readyz'][0].status, 'pass');
  assert.match(body.checks['vector_store:readyz'][0].output, /^unreachable: ECONNREFUSED/);
  assert.equal(body.checks['governance:health'][0].output, 'not configured (SEMANTIC_GOVERNANCE_URL)');
  assert.match(body.checks['projection_verification:allowlist'][0].output, /answers 503/);
});

test('context readback returns only service-owned provenance, freshness, degradation and all-false authority flags', async (t) => {
  const s = await startTestService(t);
  const empty = (await send(`${s.url}${CONTEXT_PATH}`, { headers: s.consumer() })).json() as Body;
  assert.deepEqual(Object.keys(empty), ['provenance', 'freshness', 'degradation', 'authority_boundary']);
  assert.equal(empty.freshness.state, 'unavailable');
  assert.equal(empty.authority_boundary.policy_owner, 'governance');
  assert.ok(Object.values(empty.authority_boundary.flags).length >= 5);
  for (const [flag, value] of Object.entries(empty.authority_boundary.flags)) assert.equal(value, false, flag);
  const worker = s.otherConnection();
  await enqueueRecords(worker, lines(nodeRecord(), nodeRecord({ record_id: 'r2', node_id: 'n2' })), { source: 'test' });
  await reconcileOnce(worker, { batchSize: 1 });
  const lagging = (await send(`${s.url}${CONTEXT_PATH}`, { headers: s.consumer() })).json() as Body;
  assert.deepEqual([lagging.freshness.state, lagging.freshness.undecided_records, lagging.freshness.last_run_id], ['lagging', 1, 'recon-1-1']);
  await reconcileOnce(worker, { batchSize: 1 });
  const current = (await send(`${s.url}${CONTEXT_PATH}`, { headers: s.consumer() })).json() as Body;
  assert.deepEqual([current.freshness.state, current.freshness.undecided_records], ['current', 0]);
});

test('context and status readback never contain caller input or stored record content', async (t) => {
  const s = await startTestService(t);
  const marker = 'zq9MARKERq7x';
  await workerRun(s, [
    nodeRecord({ record_id: `${marker}-1`, tenant_id: `${marker}-tenant`, node_id: `${marker}-node`, label: `L${marker}`, properties: { note: marker } }),
    edgeRecord({ record_id: `${marker}-2`, edge_id: `${marker}-edge`, from: `${marker}-node`, to: 'absent', relation: 'x' }),
    nodeRecord({ record_id: `${marker}-3`, isolation_domain_ref: marker }),
    edgeRecord({ record_id: `${marker}-4`, relation: `${marker} bad` }),
  ]);
  const headers = { ...s.consumer(), 'x-request-id': marker, 'x-context': marker, 'user-agent': marker, 'accept-language': marker };
  for (const path of [CONTEXT_PATH, STATUS_PATH]) {
    const res = await send(`${s.url}${path}`, { headers });
    assert.equal(res.status, 200);
    assert.ok(!res.text.includes(marker), `${path} leaked: ${res.text}`);
    assert.ok(!res.text.toLowerCase().includes('marker'));
  }
});

test('topology readback returns exactly the six allowlisted metrics, ignoring anything else in the artifact', async (t) => {
  const s = await startTestService(t);
  const res = await send(`${s.url}${TOPOLOGY_PATH}`, { headers: s.operator });
  const body = res.json() as Body;
  assert.deepEqual(Object.keys(body.metrics), [...TOPOLOGY_METRICS]);
  assert.equal(TOPOLOGY_METRICS.length, 6);
  assert.deepEqual(body.metrics.graph_nodes_total, { status: 'available', value: 120 });
  assert.deepEqual(body.metrics.hidden_edges_total, { status: 'available', value: 0 }, 'a real zero stays zero');
  assert.deepEqual(body.metrics.projection_lag_seconds, { status: 'unavailable', reason: 'metric "projection_lag_seconds" is absent from the runtime-owner artifact' });
  assert.ok(!res.text.includes('debug_dump') && !res.text.includes('must never be returned') && !res.text.includes(s.dir));
  assert.equal(body.source.status, 'available');
  assert.equal(body.source.runtime_owner, 'runtime-team');
});

test('topology readback marks missing or bad evidence unavailable, never zero', async (t) => {
  const s = await startTestService(t);
  const artifact = join(s.dir, 'runtime-owner.json');
  const read = async () => (await send(`${s.url}${TOPOLOGY_PATH}`, { headers: s.operator })).json() as Body;
  writeFileSync(artifact, JSON.stringify({ ...SAMPLE_ARTIFACT, topology_metrics: { graph_nodes_total: -1, graph_edges_total: '300', hidden_edges_total: null, isolation_domains_active: 1e400 } }));
  const bad = await read();
  for (const name of ['graph_nodes_total', 'graph_edges_total', 'hidden_edges_total', 'isolation_domains_active']) {
    assert.deepEqual(bad.metrics[name], { status: 'unavailable', reason: `metric "${name}" is not a finite non-negative number in the runtime-owner artifact` });
  }
  writeFileSync(artifact, '{"topology_metrics": ');
  const malformed = await read();
  assert.deepEqual(malformed.source, { status: 'unavailable', reason: 'runtime-owner artifact is not JSON' });
  rmSync(artifact);
  const missing = await read();
  assert.deepEqual(missing.source, { status: 'unavailable', reason: 'runtime-owner artifact cannot be read: ENOENT' });
  for (const name of TOPOLOGY_METRICS) assert.deepEqual(missing.metrics[name], { status: 'unavailable', reason: 'runtime-owner artifact cannot be read: ENOENT' });
  assert.ok(!JSON.stringify(missing).includes(s.dir), 'no host path in the answer');
  writeFileSync(artifact, JSON.stringify({ ...SAMPLE_ARTIFACT, topology_metrics: { ...SAMPLE_ARTIFACT.topology_metrics, graph_nodes_total: 3.5, projection_lag_seconds: 2.5 } }));
  const fractional = await read();
  assert.deepEqual(fractional.metrics['graph_nodes_total'], { status: 'unavailable', reason: 'metric "graph_nodes_total" is a count, and 3.5 is not a whole number in the runtime-owner artifact' });
  assert.deepEqual(fractional.metrics['projection_lag_seconds'], { status: 'available', value: 2.5 }, 'a duration may be fractional');
  const identities: [Record<string, unknown>, string][] = [
    [{ ...SAMPLE_ARTIFACT, artifact: 'semantic_other_artifact' }, 'runtime-owner artifact does not name itself "semantic_runtime_owner" (member "artifact")'],
    [{ ...SAMPLE_ARTIFACT, artifact: undefined }, 'runtime-owner artifact does not name itself "semantic_runtime_owner" (member "artifact")'],
    [{ ...SAMPLE_ARTIFACT, version: 2 }, 'runtime-owner artifact version is not 1 (member "version")'],
    [{ ...SAMPLE_ARTIFACT, version: '1' }, 'runtime-owner artifact version is not 1 (member "version")'],
    [{ ...SAMPLE_ARTIFACT, version: undefined }, 'runtime-owner artifact version is not 1 (member "version")'],
  ];
  for (const [doc, reason] of identities) {
    writeFileSync(artifact, JSON.stringify(doc));
    const other = await read();
    assert.deepEqual(other.source, { status: 'unavailable', reason });
    for (const name of TOPOLOGY_METRICS) assert.deepEqual(other.metrics[name], { status: 'unavailable', reason });
  }
  const unset = await startTestService(t, { SEMANTIC_RUNTIME_OWNER_ARTIFACT: undefined });
  const none = (await send(`${unset.url}${TOPOLOGY_PATH}`, { headers: unset.operator })).json() as Body;
  assert.equal(none.metrics.graph_nodes_total.reason, 'SEMANTIC_RUNTIME_OWNER_ARTIFACT is not set');
});
