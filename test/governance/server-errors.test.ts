import { test } from 'node:test';
import assert from 'node:assert/strict';
import { send } from '../helpers/http.ts';
import type { GovernanceRuntime } from '../../src/governance/runtime.ts';
import { AUTH, OPERATOR_TOKEN, startGovernance } from './_service.ts';
import { rootEnv, tempRoot } from './_fixtures.ts';

const EXPECTED_KEYS = ['level', 'logger', 'method', 'msg', 'path', 'service', 'status', 'time'];

test('the 5xx rule on both listeners: a fail-closed 503 logs one uvicorn.error record with method, path without query and status only', async () => {
  const root = tempRoot();
  root.editJson('contracts/governance/voice_v1.json', (a) => { a.version = 'one'; });
  const running = await startGovernance({ role: 'test', env: rootEnv(root.root) });
  try {
    for (const [base, headers] of [[running.platform, {}], [running.worker, AUTH]] as const) {
      const response = await send(`${base}/api/v1/voice/posture?secret=query-value`, { headers: { ...headers, cookie: 'session=cookie-value' } });
      assert.equal(response.status, 503);
    }
    const errors = running.logs.filter((r) => r['logger'] === 'uvicorn.error');
    assert.deepEqual(errors.map((r) => [r['msg'], r['method'], r['path'], r['status']]), [
      ['request returned server error', 'GET', '/api/v1/voice/posture', 503],
      ['request returned server error', 'GET', '/api/v1/voice/posture', 503],
    ]);
    for (const record of errors) {
      assert.deepEqual(Object.keys(record).sort(), EXPECTED_KEYS);
      assert.doesNotMatch(JSON.stringify(record), /query-value|cookie-value|Bearer/);
    }
    assert.ok(!running.logs.some((r) => JSON.stringify(r).includes(OPERATOR_TOKEN)), 'the operator token is never logged');
  } finally {
    await running.stop();
    root.cleanup();
  }
});

test('the 5xx rule on both listeners: a handler that throws answers a bare 500 and logs it once', async () => {
  const root = tempRoot();
  let runtime: GovernanceRuntime | undefined;
  const running = await startGovernance({ role: 'test', env: rootEnv(root.root), service: { inspect: (r) => void (runtime = r) } });
  try {
    // A fault no request can cause: the database connection closed under a live service.
    await runtime!.store.close();
    for (const [base, headers] of [[running.platform, {}], [running.worker, AUTH]] as const) {
      const response = await send(`${base}/api/v1/persistence/database?x=1`, { headers });
      assert.equal(response.status, 500, String(base));
      assert.equal(response.headers['content-type'], 'application/problem+json');
      assert.doesNotMatch(response.text, /sqlite|database is/i, 'no internal detail reaches the client');
    }
    const errors = running.logs.filter((r) => r['logger'] === 'uvicorn.error');
    assert.deepEqual(errors.map((r) => [r['method'], r['path'], r['status']]), [['GET', '/api/v1/persistence/database', 500], ['GET', '/api/v1/persistence/database', 500]]);
    for (const record of errors) assert.deepEqual(Object.keys(record).sort(), EXPECTED_KEYS);
    const health = await send(`${running.platform}/health`);
    assert.equal(health.status, 503, 'liveness fails without its database');
  } finally {
    await running.stop();
    root.cleanup();
  }
});
