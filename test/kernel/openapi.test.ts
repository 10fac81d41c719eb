import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exportOpenApi, json } from '../../src/kernel/index.ts';
import type { Route } from '../../src/kernel/index.ts';

const handler = () => json({});
const ROUTES: Route[] = [
  { method: 'GET', path: '/health', auth: 'none', summary: 'Liveness', handler },
  { method: 'GET', path: '/api/v1/contracts/*', auth: 'none', summary: 'Contract catalog', members: ['registry', 'drift'], operationId: 'contracts', handler },
  {
    method: 'POST', path: '/api/v1/sessions/:session_id/owner-decision', auth: 'operator', summary: 'Record a decision', listener: 'worker',
    params: { session_id: { description: 'Planning session id', example: 'ps-0001' } },
    request: { schema: { type: 'object', required: ['decision'] } },
    responses: [{ status: 201, description: 'Recorded', schema: { type: 'object' } }],
    handler,
  },
  { method: 'GET', path: '/api/v1/items', auth: 'none', summary: 'Items', query: { tenant_id: { description: 'Tenant', required: true, example: 't-1' } }, handler },
];
const SCHEMES = { operator: { type: 'http', scheme: 'bearer' } };

test('exportOpenApi() lists every route, expanding families into their members', () => {
  const doc = exportOpenApi({ info: { title: 't', version: '1' }, routes: ROUTES, securitySchemes: SCHEMES }) as { openapi: string; paths: Record<string, Record<string, Record<string, unknown>>> };
  assert.equal(doc.openapi, '3.1.0');
  assert.deepEqual(Object.keys(doc.paths), [
    '/api/v1/contracts/drift', '/api/v1/contracts/registry', '/api/v1/items', '/api/v1/sessions/{session_id}/owner-decision', '/health',
  ]);
  assert.equal(doc.paths['/api/v1/contracts/drift']!['get']!['operationId'], 'contracts_drift');
  assert.equal(doc.paths['/health']!['get']!['operationId'], 'get_health');
});

test('exportOpenApi() describes parameters with examples, bodies, security and error responses', () => {
  const doc = exportOpenApi({ info: { title: 't', version: '1' }, routes: ROUTES, securitySchemes: SCHEMES }) as { paths: Record<string, Record<string, Record<string, unknown>>>; components: Record<string, unknown> };
  const post = doc.paths['/api/v1/sessions/{session_id}/owner-decision']!['post']!;
  assert.deepEqual(post['parameters'], [{ name: 'session_id', in: 'path', required: true, description: 'Planning session id', schema: { type: 'string' }, example: 'ps-0001' }]);
  assert.deepEqual(post['requestBody'], { required: true, content: { 'application/json': { schema: { type: 'object', required: ['decision'] } } } });
  assert.deepEqual(post['security'], [{ operator: [] }]);
  assert.deepEqual(post['x-airlock-listeners'], ['worker']);
  assert.deepEqual(Object.keys(post['responses'] as object).sort(), ['201', '400', '401', '403', '404', '413', '415', '422', 'default']);
  const items = doc.paths['/api/v1/items']!['get']!;
  assert.deepEqual(items['parameters'], [{ name: 'tenant_id', in: 'query', required: true, description: 'Tenant', schema: { type: 'string' }, example: 't-1' }]);
  assert.ok('304' in (items['responses'] as object));
  assert.deepEqual(doc.components['securitySchemes'], SCHEMES);
});

test('exportOpenApi() filters by listener', () => {
  const doc = exportOpenApi({ info: { title: 't', version: '1' }, routes: ROUTES, listeners: ['main'] }) as { paths: Record<string, unknown> };
  assert.ok(!('/api/v1/sessions/{session_id}/owner-decision' in doc.paths));
});

test('exportOpenApi() refuses a family without members, a path parameter without example, an undeclared scheme', () => {
  assert.throws(() => exportOpenApi({ info: { title: 't', version: '1' }, routes: [{ method: 'GET', path: '/a/*', auth: 'none', summary: 's', handler }] }), /lists no members/);
  assert.throws(() => exportOpenApi({ info: { title: 't', version: '1' }, routes: [{ method: 'GET', path: '/a/:id', auth: 'none', summary: 's', handler }] }), /Path parameter "id" has no example/);
  assert.throws(() => exportOpenApi({ info: { title: 't', version: '1' }, routes: [ROUTES[2]!] }), /Authenticator "operator" has no security scheme/);
});

test('exportOpenApi() names every listener that serves the same operation', () => {
  const both: Route[] = [
    { method: 'GET', path: '/health', auth: 'none', summary: 'Liveness', listener: 'platform', handler },
    { method: 'GET', path: '/health', auth: 'none', summary: 'Liveness', listener: 'worker', handler },
  ];
  const doc = exportOpenApi({ info: { title: 't', version: '1' }, routes: both }) as { paths: Record<string, Record<string, Record<string, unknown>>> };
  assert.deepEqual(doc.paths['/health']!['get']!['x-airlock-listeners'], ['platform', 'worker']);
});
