import { test } from 'node:test';
import assert from 'node:assert/strict';
import { send } from '../helpers/http.ts';
import { ENDPOINTS } from './fixtures/endpoints.ts';
import type { Endpoint } from './fixtures/endpoints.ts';
import { databaseDigest } from './fixtures/semantic-fixtures.ts';
import { CONSUMER_TOKENS, OPERATOR_TOKEN, startTestService } from './fixtures/semantic-service.ts';
import type { TestService } from './fixtures/semantic-service.ts';

function call(s: TestService, endpoint: Endpoint, headers: Record<string, string>) {
  const body = endpoint.body === undefined ? undefined : JSON.stringify(endpoint.body);
  return send(`${s.url}${endpoint.path}`, {
    method: endpoint.method,
    headers: { ...headers, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body }),
  });
}

test('every endpoint answers its valid request with 200 and the right credential', async (t) => {
  const s = await startTestService(t);
  for (const endpoint of ENDPOINTS) {
    const res = await call(s, endpoint, endpoint.auth === 'consumer' ? s.consumer() : s.operator);
    assert.equal(res.status, 200, `${endpoint.path}: ${res.text}`);
  }
});

test('every authenticated endpoint refuses a missing, wrong or wrong-kind credential with 401, changing nothing', async (t) => {
  const s = await startTestService(t);
  const before = databaseDigest(s.store.sqlite);
  for (const endpoint of ENDPOINTS) {
    const cases: [string, Record<string, string>, string][] = endpoint.auth === 'consumer'
      ? [
        ['missing', {}, 'consumer_token_missing'],
        ['wrong', { authorization: 'Bearer not-a-configured-token-0123456789' }, 'consumer_token_invalid'],
        ['malformed', { authorization: 'Bearer  two spaces' }, 'consumer_token_invalid'],
        ['operator token as bearer', { authorization: `Bearer ${OPERATOR_TOKEN}` }, 'consumer_token_invalid'],
        ['operator header instead', { 'x-semantic-operator-token': OPERATOR_TOKEN }, 'consumer_token_missing'],
      ]
      : [
        ['missing', {}, 'operator_token_missing'],
        ['wrong', { 'x-semantic-operator-token': 'wrong-token' }, 'operator_token_invalid'],
        ['empty', { 'x-semantic-operator-token': '' }, 'operator_token_missing'],
        ['consumer bearer instead', s.consumer(), 'operator_token_missing'],
        ['operator token as bearer', { authorization: `Bearer ${OPERATOR_TOKEN}` }, 'operator_token_missing'],
      ];
    for (const [name, headers, type] of cases) {
      const res = await call(s, endpoint, headers);
      assert.equal(res.status, 401, `${endpoint.path} ${name}`);
      assert.equal(res.headers['content-type'], 'application/problem+json');
      assert.equal((res.json() as { type: string }).type, `urn:airlock:problem:${type}`, `${endpoint.path} ${name}`);
      assert.ok(!res.text.includes(OPERATOR_TOKEN) && !res.text.includes('not-a-configured-token'), 'no token echoed');
      if (endpoint.auth === 'consumer') assert.equal(res.headers['www-authenticate'], 'Bearer realm="semantic"');
    }
  }
  assert.equal(databaseDigest(s.store.sqlite), before);
  assert.ok(!s.logs.join('').includes(OPERATOR_TOKEN), 'no token logged');
});

test('status and context readback admit the three current consumers and answer 403 downstream_gated to a gated one', async (t) => {
  const s = await startTestService(t);
  for (const endpoint of ENDPOINTS.filter((e) => e.auth === 'consumer')) {
    for (const consumer of ['live-runtime-contract-check', 'host-runtime-snapshot-export', 'governance-status-bundle-export']) {
      assert.equal((await call(s, endpoint, s.consumer(consumer))).status, 200, `${consumer} ${endpoint.path}`);
    }
    const gated = await call(s, endpoint, s.consumer('agent-context-service'));
    assert.equal(gated.status, 403);
    assert.deepEqual(gated.json(), {
      reason: 'downstream_gated',
      consumer: 'agent-context-service',
      type: 'urn:airlock:problem:downstream_gated',
      title: 'Consumer downstream-gated',
      status: 403,
      detail: 'Consumer "agent-context-service" is downstream-gated by ts01_consumer_matrix: it admits no endpoint',
    });
  }
});

test('a consumer token opens no operator endpoint, and the operator token no consumer endpoint', async (t) => {
  const s = await startTestService(t);
  for (const endpoint of ENDPOINTS) {
    const other = endpoint.auth === 'consumer' ? s.operator : s.consumer();
    assert.equal((await call(s, endpoint, other)).status, 401, endpoint.path);
  }
  assert.ok(Object.keys(CONSUMER_TOKENS).length >= 4);
});

test('the operator token accepts every comma-separated value (rotation)', async (t) => {
  const s = await startTestService(t, { SEMANTIC_OPERATOR_TOKEN: `old-operator-token-0123456789,${OPERATOR_TOKEN}` });
  const topology = ENDPOINTS.find((e) => e.auth === 'operator')!;
  assert.equal((await call(s, topology, { 'x-semantic-operator-token': 'old-operator-token-0123456789' })).status, 200);
  assert.equal((await call(s, topology, s.operator)).status, 200);
  assert.equal((await call(s, topology, { 'x-semantic-operator-token': `old-operator-token-0123456789,${OPERATOR_TOKEN}` })).status, 401);
});

test('health and readiness are open on loopback', async (t) => {
  const s = await startTestService(t);
  assert.equal((await send(`${s.url}/healthz`)).status, 200);
  assert.equal((await send(`${s.url}/readyz`)).status, 200);
});
