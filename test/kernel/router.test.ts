import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRouter } from '../../src/kernel/http/router.ts';
import type { Route } from '../../src/kernel/http/route.ts';

function route(method: Route['method'], path: string): Route {
  return { method, path, auth: 'none', summary: `${method} ${path}`, handler: () => ({ status: 204 }) };
}

const ROUTES = [
  route('GET', '/health'),
  route('GET', '/api/v1/contracts/registry'),
  route('GET', '/api/v1/contracts/*'),
  route('GET', '/api/v1/planning/sessions/:session_id'),
  route('GET', '/api/v1/planning/sessions/:session_id/owner-decision'),
  route('POST', '/api/v1/planning/sessions/:session_id/owner-decision'),
  route('POST', '/api/v1/contracts/compatibility/check'),
  route('GET', '/'),
];

const router = createRouter(ROUTES);

test('createRouter() matches exact paths before params before families', () => {
  const table: [string, string, string, Record<string, string>][] = [
    ['GET', '/health', '/health', {}],
    ['GET', '/health/', '/health', {}],
    ['GET', '/', '/', {}],
    ['GET', '/api/v1/contracts/registry', '/api/v1/contracts/registry', {}],
    ['GET', '/api/v1/contracts/drift', '/api/v1/contracts/*', { '*': 'drift' }],
    ['GET', '/api/v1/contracts/assistant/readiness', '/api/v1/contracts/*', { '*': 'assistant/readiness' }],
    ['GET', '/api/v1/planning/sessions/ps-1', '/api/v1/planning/sessions/:session_id', { session_id: 'ps-1' }],
    ['GET', '/api/v1/planning/sessions/a%20b/owner-decision', '/api/v1/planning/sessions/:session_id/owner-decision', { session_id: 'a b' }],
    ['POST', '/api/v1/planning/sessions/x/owner-decision', '/api/v1/planning/sessions/:session_id/owner-decision', { session_id: 'x' }],
    ['POST', '/api/v1/contracts/compatibility/check', '/api/v1/contracts/compatibility/check', {}],
  ];
  for (const [method, path, pattern, params] of table) {
    const match = router.match(method as Route['method'], path);
    assert.equal(match.kind, 'found', `${method} ${path}`);
    if (match.kind !== 'found') continue;
    assert.equal(match.route.path, pattern, path);
    assert.equal(match.route.method, method);
    assert.deepEqual(match.params, params, path);
  }
});

test('createRouter() answers HEAD with the GET route', () => {
  const match = router.match('HEAD', '/health');
  assert.equal(match.kind, 'found');
});

test('createRouter() says not_found for unknown paths, a bare family root and bad escapes', () => {
  for (const path of ['/nope', '/api/v1/contracts', '/api/v1/planning/sessions/%E0%A4%A/owner-decision', '/api/v1/planning/sessions//owner-decision']) {
    assert.deepEqual(router.match('GET', path), { kind: 'not_found' }, path);
  }
});

test('createRouter() says method_not_allowed with every allowed method', () => {
  assert.deepEqual(router.match('DELETE', '/api/v1/planning/sessions/x/owner-decision'), { kind: 'method_not_allowed', allow: ['GET', 'HEAD', 'POST'] });
  assert.deepEqual(router.match('POST', '/health'), { kind: 'method_not_allowed', allow: ['GET', 'HEAD'] });
  assert.deepEqual(router.match('GET', '/api/v1/contracts/compatibility/check'), { kind: 'found', route: ROUTES[2], params: { '*': 'compatibility/check' } });
});

test('createRouter() refuses duplicate routes and a "*" inside a path', () => {
  assert.throws(() => createRouter([route('GET', '/a'), route('GET', '/a')]), /Route "GET \/a" is declared twice/);
  assert.throws(() => createRouter([route('GET', '/a/*/b')]), /"\*" may only end a path/);
  assert.throws(() => createRouter([route('GET', 'a')]), /must start with "\/"/);
});
