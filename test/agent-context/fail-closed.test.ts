// Without its upstream, agent-context fails closed: no service auth token or an unreachable
// governance service makes every write and the live upstream context path 503 (state
// unchanged, refusal recorded), the comparisons with governance truth 503, and readiness warn.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { send, sendJson } from '../helpers/http.ts';
import { AUTH, authority, rowCounts, startStack, WRITES } from './_stack.ts';
import type { Stack } from './_stack.ts';

let noToken: Stack;
let noGovernance: Stack;
let wrongToken: Stack;
before(async () => {
  [noToken, noGovernance, wrongToken] = await Promise.all([startStack({ serviceAuthToken: '' }), startStack({ governance: false }), startStack({ serviceAuthToken: 'not-the-operator-token' })]);
});
after(() => Promise.all([noToken.stop(), noGovernance.stop(), wrongToken.stop()]));

for (const [name, reason] of [
  ['no service auth token', 'authority_projection_auth_missing'],
  ['governance unreachable', 'authority_projection_unreachable'],
  ['a service auth token governance refuses', 'authority_projection_http_error'],
] as const) {
  test(`every write answers 503 with ${name}, changing no state`, async () => {
    const stack = { 'no service auth token': noToken, 'governance unreachable': noGovernance, 'a service auth token governance refuses': wrongToken }[name];
    for (const [path, intent, body] of WRITES) {
      const before = rowCounts(stack);
      const response = await sendJson(`${stack.url}${path}`, { ...body, authority_context: authority(intent) }, { headers: AUTH });
      assert.equal(response.status, 503, `${path}: ${response.text}`);
      assert.equal((response.json() as { reason: string }).reason, reason);
      const after = rowCounts(stack);
      assert.deepEqual({ ...after, authority_decisions: 0 }, { ...before, authority_decisions: 0 }, path);
      assert.equal(after['authority_decisions'], before['authority_decisions']! + 1);
    }
  });
}

test('the live upstream context path needs a non-empty service auth token', async () => {
  const body = { role: 'agent', include: ['workflow'] };
  const refused = await sendJson(`${noToken.url}/api/v1/context/compose`, body, { headers: AUTH });
  assert.equal(refused.status, 503);
  assert.equal((refused.json() as { reason: string }).reason, 'governance_auth_missing');
  assert.doesNotMatch(refused.text, /Bearer|test-operator-token/);
  assert.equal((await sendJson(`${noGovernance.url}/api/v1/context/compose`, body, { headers: AUTH })).status, 503);
  assert.equal((await sendJson(`${noToken.url}/api/v1/context/compose`, body)).status, 401);
});

test('drift summary and topology diff fail closed; the other reads mark governance unavailable', async () => {
  for (const stack of [noToken, noGovernance]) {
    for (const path of ['/api/v1/drift/summary', '/api/v1/topology/diff']) {
      const response = await send(`${stack.url}${path}`, { headers: AUTH });
      assert.equal(response.status, 503, path);
      assert.equal((response.json() as { projection_state: string }).projection_state, 'fail_closed');
    }
    for (const path of ['/api/v1/runtime/inventory', '/api/v1/rollouts/audit', '/api/v1/control-agent/status', '/api/v1/persistent-agents']) {
      const response = await send(`${stack.url}${path}`, { headers: AUTH });
      assert.equal(response.status, 200, path);
      assert.match(response.text, /"state":"unavailable"/, path);
    }
    const ready = await send(`${stack.url}/ready`);
    assert.equal(ready.status, 200);
    const body = ready.json() as { status: string; warnings: string[]; checks: { governance: { status: string }[] } };
    assert.equal(body.status, 'warn');
    assert.equal(body.checks.governance[0]!.status, 'warn');
    assert.equal(body.warnings.length, 1);
  }
  const metrics = (await send(`${noGovernance.url}/metrics`)).text;
  assert.match(metrics, /^agent_context_drift_checks_total\{outcome="unavailable"\} [1-9]/m);
  assert.match(metrics, /^agent_context_governance_requests_total\{outcome="unreachable",route="\/api\/v1\/platform\/services"\} [1-9]/m);
  assert.doesNotMatch(metrics, /^agent_context_drift_findings /m, 'unknown drift is not zero');
});
