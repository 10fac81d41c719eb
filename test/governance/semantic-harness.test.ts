import { test } from 'node:test';
import assert from 'node:assert/strict';
import { send } from '../helpers/http.ts';
import { startGovernance } from './_service.ts';
import { rootEnv, SEMANTIC_EXPORT, tempRoot } from './_fixtures.ts';

const ROUTE = '/api/v1/semantic/projection-verification-harness';

async function harness(prepare: (root: ReturnType<typeof tempRoot>) => void) {
  const root = tempRoot();
  prepare(root);
  const running = await startGovernance({ role: 'platform-api', env: rootEnv(root.root) });
  try {
    const response = await send(`${running.platform}${ROUTE}`);
    return { status: response.status, body: response.json() as Record<string, any> };
  } finally {
    await running.stop();
    root.cleanup();
  }
}

test('projection-verification-harness publishes the S0 admission contract read from the semantic export', async () => {
  const { status, body } = await harness(() => {});
  assert.equal(status, 200);
  assert.equal(body['stage'], 'S0');
  assert.equal(body['admission'].method, 'POST');
  assert.equal(body['admission'].path, '/api/v1/semantic/projection-verification/runs');
  assert.deepEqual(body['admission'].request_schema.required, ['correlation_id', 'source_event_id', 'case_ref']);
  assert.deepEqual(body['admission'].responses, ['200', '401', '503']);
  assert.deepEqual(body['admission'].security, [{ projection: [] }]);
  assert.match(body['source'].sha256, /^[0-9a-f]{64}$/);
  assert.ok(body['boundaries'].some((b: string) => b.startsWith('no ingress')));
});

test('projection-verification-harness follows the owner: another request schema is published as it is', async () => {
  const { body } = await harness((root) => root.editJson('contracts/api/semantic_openapi_v1.json', (doc) => {
    doc.paths['/api/v1/semantic/projection-verification/runs'].post.requestBody.content['application/json'].schema.required = ['case_ref'];
  }));
  assert.deepEqual(body['admission'].request_schema.required, ['case_ref']);
});

const ABSENT: [string, (root: ReturnType<typeof tempRoot>) => void, string][] = [
  ['the semantic export is missing', (root) => root.remove('contracts/api/semantic_openapi_v1.json'), 'semantic_contract_missing'],
  ['the semantic export is not JSON', (root) => root.write('contracts/api/semantic_openapi_v1.json', '{'), 'semantic_contract_invalid'],
  ['the export lacks the harness route', (root) => root.write('contracts/api/semantic_openapi_v1.json', JSON.stringify({ ...SEMANTIC_EXPORT, paths: {} })), 'harness_route_missing'],
];

for (const [name, prepare, reason] of ABSENT) {
  test(`projection-verification-harness fails closed (503 awaiting_transport_owner) when ${name}`, async () => {
    const { status, body } = await harness(prepare);
    assert.equal(status, 503);
    assert.equal(body['projection_state'], 'awaiting_transport_owner');
    assert.equal(body['reason'], reason);
  });
}
