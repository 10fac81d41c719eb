import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { compileSchema, exposedSurfaces } from '../../src/kernel/index.ts';
import type { Transaction } from '../../src/kernel/index.ts';
import { send } from '../helpers/http.ts';
import { CDC_CONTRACT, checkCdcMatrix } from '../../src/semantic/cdc-matrix.ts';
import { ASYNCAPI_CONTRACT, contractChannels, recordEvent } from '../../src/semantic/event-outbox.ts';
import { manifest } from '../../src/semantic/manifest.ts';
import { TOPOLOGY_PATH } from '../../src/semantic/routes.ts';
import { TOPOLOGY_METRICS } from '../../src/semantic/topology-metrics.ts';
import { ENDPOINTS } from './fixtures/endpoints.ts';
import { testStore } from './fixtures/semantic-fixtures.ts';
import { startTestService } from './fixtures/semantic-service.ts';

const root = new URL('../../', import.meta.url);
const readJson = (path: string) => JSON.parse(readFileSync(new URL(path, root), 'utf8')) as Record<string, any>;

/** The seed's Endpoints table, as method and path. */
const SEED_ENDPOINTS = [
  'GET /healthz', 'GET /readyz', 'GET /api/v1/semantic/runtime/status', 'GET /api/v1/semantic/context/readback',
  'GET /api/v1/semantic/topology/metrics/readback', 'POST /api/v1/semantic/projection-verification/runs',
  'POST /api/v1/semantic/fixtures/deletion-restore', 'POST /api/v1/semantic/fixtures/temporal-ontology', 'POST /api/v1/semantic/fixtures/entity-conflict',
  'POST /api/v1/semantic/fixtures/retrieval-gate', 'POST /api/v1/semantic/fixtures/context-security', 'POST /api/v1/semantic/fixtures/poison-mutation',
  'POST /api/v1/semantic/fixtures/canary-activation',
];

test('the route table serves exactly the seed endpoints, and the manifest exposes exactly the route table', () => {
  // Beside the seed's endpoints, the service serves its own OpenAPI export (issue 29): the seed's file contract, over HTTP.
  assert.deepEqual(manifest.routes.map((r) => `${r.method} ${r.path}`).sort(), [...SEED_ENDPOINTS, 'GET /openapi.json'].sort());
  const committed = readJson('governance-manifest.json')['services'].find((s: { service: string }) => s.service === 'semantic');
  assert.deepEqual(committed.exposed_surfaces, exposedSurfaces(manifest));
  assert.deepEqual(committed.consumed_surfaces.map((c: { owner: string }) => c.owner).sort(), manifest.consumed.map((c) => c.owner).sort());
  const stack = readJson('configs/stack-contract.json')['services'].find((s: { service: string }) => s.service === 'semantic');
  assert.deepEqual(stack.executables.map((e: { name: string; source: string }) => [e.name, e.source]), [['semantic-api', 'src/semantic/main.ts'], ['semantic-worker', 'src/semantic/main-worker.ts']]);
});

test('every answer of the running service matches its route\'s declared response schema', async (t) => {
  const s = await startTestService(t);
  const routes = new Map(s.service.routes.map((r) => [`${r.method} ${r.path}`, r]));
  for (const endpoint of [...ENDPOINTS, { method: 'GET', path: '/healthz', auth: 'operator' }, { method: 'GET', path: '/readyz', auth: 'operator' }] as const) {
    const route = routes.get(`${endpoint.method} ${endpoint.path}`)!;
    const body = 'body' in endpoint && endpoint.body !== undefined ? JSON.stringify(endpoint.body) : undefined;
    const res = await send(`${s.url}${endpoint.path}`, {
      method: endpoint.method,
      headers: { ...(endpoint.auth === 'consumer' ? s.consumer() : s.operator), ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body }),
    });
    const declared = route.responses?.find((r) => r.status === res.status);
    assert.ok(declared?.schema, `${endpoint.path} answered ${res.status}, which its route does not declare`);
    const { valid, errors } = compileSchema(declared.schema, { formats: 'assert' }).validate(res.json());
    assert.ok(valid, `${endpoint.path}: ${JSON.stringify(errors.slice(0, 3))}`);
  }
});

test('the OpenAPI export lists the six topology metrics and the consumer, operator and projection schemes', () => {
  const openapi = readJson('contracts/api/semantic_openapi_v1.json');
  assert.equal(openapi['openapi'], '3.1.0');
  const metrics = openapi['paths'][TOPOLOGY_PATH]['get']['responses']['200']['content']['application/json']['schema']['properties']['metrics'];
  assert.deepEqual(Object.keys(metrics.properties), [...TOPOLOGY_METRICS]);
  assert.deepEqual(metrics.required, [...TOPOLOGY_METRICS]);
  assert.equal(metrics.additionalProperties, false);
  assert.deepEqual(Object.keys(openapi['components']['securitySchemes']).sort(), ['consumer', 'operator', 'projection']);
  assert.equal(openapi['components']['securitySchemes']['operator']['name'], 'X-Semantic-Operator-Token');
});

test('the CDC matrix admits only surfaces the route table serves', () => {
  assert.deepEqual(checkCdcMatrix(CDC_CONTRACT, manifest.routes), { ok: true, reasons: [] });
});

test('the AsyncAPI contract is 3.0 with current channels that have send operations and reserved ones that have none', (t) => {
  const doc = ASYNCAPI_CONTRACT as Record<string, any>;
  assert.equal(doc['asyncapi'], '3.0.0');
  const channels = [...contractChannels().values()];
  assert.deepEqual(channels.filter((c) => c.status === 'current').map((c) => c.address), [
    'semantic.reconciliation.run_completed', 'semantic.ingest.record_quarantined', 'semantic.projection_verification.recorded',
  ]);
  assert.deepEqual(channels.filter((c) => c.status === 'reserved').map((c) => c.address), [
    'semantic.graph.projection_applied', 'semantic.retrieval.gate_evaluated', 'semantic.activation.stage_changed',
  ]);
  const sent = Object.values(doc['operations']).map((o: any) => o.channel.$ref.replace('#/channels/', ''));
  assert.deepEqual(sent.map((key: string) => doc['channels'][key].address), channels.filter((c) => c.status === 'current').map((c) => c.address));
  const store = testStore(t);
  // Both events are refused before anything is written.
  const tx = { append: () => assert.fail('a refused event appends no evidence') } as unknown as Transaction;
  assert.throws(() => recordEvent(store.sqlite, 'semantic.graph.projection_applied', { tx, key: [1], at: '2026-01-01T00:00:00.000Z', data: {} }), /not a current channel/);
  assert.throws(
    () => recordEvent(store.sqlite, 'semantic.reconciliation.run_completed', { tx, key: [1], at: '2026-01-01T00:00:00.000Z', data: { run_id: 'r' } }),
    /breaks its AsyncAPI schema/,
  );
});
