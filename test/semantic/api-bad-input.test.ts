import { test } from 'node:test';
import assert from 'node:assert/strict';
import { send } from '../helpers/http.ts';
import { ENDPOINTS, WITH_FIELDS } from './fixtures/endpoints.ts';
import type { Endpoint } from './fixtures/endpoints.ts';
import { databaseDigest } from './fixtures/semantic-fixtures.ts';
import { startTestService } from './fixtures/semantic-service.ts';
import type { TestService } from './fixtures/semantic-service.ts';

function headersFor(s: TestService, endpoint: Endpoint): Record<string, string> {
  return endpoint.auth === 'consumer' ? s.consumer() : s.operator;
}

function post(s: TestService, endpoint: Endpoint, body: string, contentType = 'application/json') {
  return send(`${s.url}${endpoint.path}`, { method: 'POST', headers: { ...headersFor(s, endpoint), 'content-type': contentType }, body });
}

interface Problem {
  type: string;
  status: number;
  detail: string;
  errors?: { pointer: string; detail: string }[];
}

test('every POST endpoint refuses malformed JSON (400), a wrong media type (415) and a body over 16 KiB (413)', async (t) => {
  const s = await startTestService(t);
  const before = databaseDigest(s.store.sqlite);
  for (const endpoint of ENDPOINTS.filter((e) => e.method === 'POST')) {
    const malformed = await post(s, endpoint, '{"fixture_id": ');
    assert.equal(malformed.status, 400, endpoint.path);
    assert.match((malformed.json() as Problem).detail, /^Request body is not valid JSON/);
    assert.equal((await post(s, endpoint, 'fixture_id=x', 'application/x-www-form-urlencoded')).status, 415, endpoint.path);
    assert.equal((await post(s, endpoint, JSON.stringify({ pad: 'x'.repeat(17 * 1024) }))).status, 413, endpoint.path);
    const notObject = await post(s, endpoint, '[]');
    assert.equal(notObject.status, 422, endpoint.path);
  }
  assert.equal(databaseDigest(s.store.sqlite), before, 'nothing stored changed');
});

test('every POST endpoint refuses an unknown field with 422 naming it', async (t) => {
  const s = await startTestService(t);
  const before = databaseDigest(s.store.sqlite);
  for (const endpoint of ENDPOINTS.filter((e) => e.method === 'POST')) {
    const res = await post(s, endpoint, JSON.stringify({ ...endpoint.body, surprise: 1 }));
    assert.equal(res.status, 422, endpoint.path);
    assert.deepEqual((res.json() as Problem).errors?.map((e) => e.pointer), ['/surprise'], endpoint.path);
  }
  assert.equal(databaseDigest(s.store.sqlite), before);
});

test('every field of every POST body is checked for its type and value (422 with its pointer)', async (t) => {
  const s = await startTestService(t);
  const before = databaseDigest(s.store.sqlite);
  for (const endpoint of WITH_FIELDS) {
    for (const field of Object.keys(endpoint.body!)) {
      for (const bad of [123, null, ['x'], 'not an admitted value']) {
        const res = await post(s, endpoint, JSON.stringify({ ...endpoint.body, [field]: bad }));
        assert.equal(res.status, 422, `${endpoint.path} ${field}=${JSON.stringify(bad)}`);
        assert.ok((res.json() as Problem).errors?.some((e) => e.pointer === `/${field}`), `${endpoint.path} ${field}`);
      }
      const { [field]: _missing, ...rest } = endpoint.body!;
      const missing = await post(s, endpoint, JSON.stringify(rest));
      assert.equal(missing.status, 422, `${endpoint.path} without ${field}`);
      assert.match((missing.json() as Problem).detail, new RegExp(`"${field}"`));
    }
  }
  assert.equal(databaseDigest(s.store.sqlite), before);
});

test('every endpoint refuses a query parameter with 400 naming it', async (t) => {
  const s = await startTestService(t);
  const open: Endpoint[] = [{ method: 'GET', path: '/healthz', auth: 'operator' }, { method: 'GET', path: '/readyz', auth: 'operator' }];
  for (const endpoint of [...ENDPOINTS, ...open]) {
    const body = endpoint.body === undefined ? undefined : JSON.stringify(endpoint.body);
    const res = await send(`${s.url}${endpoint.path}?debug=1&debug=2`, {
      method: endpoint.method,
      headers: { ...headersFor(s, endpoint), ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body }),
    });
    assert.equal(res.status, 400, endpoint.path);
    assert.equal((res.json() as Problem).detail, 'Cannot accept query parameter "debug": this endpoint takes none');
  }
});

test('every endpoint answers another method with 405 and Allow', async (t) => {
  const s = await startTestService(t);
  for (const endpoint of ENDPOINTS) {
    const res = await send(`${s.url}${endpoint.path}`, { method: 'DELETE', headers: headersFor(s, endpoint) });
    assert.equal(res.status, 405, endpoint.path);
    assert.equal(res.headers['allow'], endpoint.method === 'GET' ? 'GET, HEAD' : 'POST');
  }
});

test('context-security and canary-activation refuse each server-derived input with 422 naming the field', async (t) => {
  const s = await startTestService(t);
  const table: [string, string[]][] = [
    ['context-security', ['principal', 'tenant', 'query', 'facts', 'vectors', 'model', 'provider', 'tenant_id', 'model_name']],
    ['canary-activation', ['traffic', 'tenant', 'traffic_percent', 'tenant_id']],
  ];
  for (const [fixture, fields] of table) {
    const endpoint = ENDPOINTS.find((e) => e.path.endsWith(fixture))!;
    for (const field of fields) {
      const res = await post(s, endpoint, JSON.stringify({ [field]: 'x' }));
      assert.equal(res.status, 422, `${fixture} ${field}`);
      const problem = res.json() as Problem;
      assert.deepEqual(problem.errors?.map((e) => e.pointer), [`/${field}`]);
      assert.match(problem.detail, new RegExp(`"/${field}"`));
    }
    const refused = await post(s, endpoint, JSON.stringify({ principal: 'x' }));
    if (fixture === 'context-security') assert.match((refused.json() as Problem).detail, /accepts no "principal" input, it derives what it needs server-side/);
    assert.equal((await post(s, endpoint, '{}')).status, 200, `${fixture} takes an empty object`);
  }
});
