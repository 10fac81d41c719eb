import { test } from 'node:test';
import assert from 'node:assert/strict';
import { send } from '../helpers/http.ts';
import { readGovernanceConfig } from '../../src/governance/config.ts';
import { laneOf } from '../../src/governance/lanes.ts';
import { isAirlockError } from '../../src/kernel/index.ts';
import { AUTH, bearer, LANE_TOKENS, startGovernance } from './_service.ts';

test('readGovernanceConfig() refuses a token shared by two lanes, naming both variables', () => {
  assert.throws(
    () => readGovernanceConfig({ env: { GOVERNANCE_OPERATOR_TOKEN: 'same-token-123', GOVERNANCE_MAIL_CONSUMER_TOKEN: 'other,same-token-123' }, argv: ['--role', 'control-api'] }),
    (e: unknown) => isAirlockError(e, 'config_invalid') && e.details.some((d) => /GOVERNANCE_MAIL_CONSUMER_TOKEN: shares a token with GOVERNANCE_OPERATOR_TOKEN/.test(d)),
  );
});

test('readGovernanceConfig() reads every lane token (comma-separated for rotation) and the git-host secrets', () => {
  const config = readGovernanceConfig({ env: { GOVERNANCE_OPERATOR_TOKEN: 'op-1', GOVERNANCE_BFF_TOKEN: 'bff-1, bff-2', GOVERNANCE_GIT_HOST_WEBHOOK_SECRET: 's1,s2' }, argv: ['--role', 'test'] });
  assert.deepEqual(config.laneTokens.bff, ['bff-1', 'bff-2']);
  assert.deepEqual(config.laneTokens.mail_producer, []);
  assert.deepEqual(config.gitHostSecrets, ['s1', 's2']);
  assert.equal(laneOf(config.laneTokens, 'bff-2'), 'bff');
  assert.equal(laneOf(config.laneTokens, 'op-1'), 'operator');
  assert.equal(laneOf(config.laneTokens, 'nobody'), undefined);
  assert.equal(laneOf(config.laneTokens, undefined), undefined);
});

test('worker listener: the gate is operator authentication; a lane token opens only its own lane\'s routes, every other path is the one 401', async () => {
  const running = await startGovernance({ role: 'test' });
  try {
    const url = `${running.worker}/api/v1/contracts/registry`;
    assert.equal((await send(url, { headers: AUTH })).status, 200);
    assert.equal((await send(`${running.worker}/api/v1/no-such-route`, { headers: AUTH })).status, 404, 'the operator may learn what exists');
    const noToken = await send(`${running.worker}/api/v1/no-such-route`);
    for (const lane of ['bff', 'mail_producer', 'mail_consumer', 'entitlement_producer', 'entitlement_consumer'] as const) {
      // A real operator route, a fake path, a real family's fake member, a wrong method: all the same 401 as no token.
      for (const [method, path] of [['GET', '/api/v1/contracts/registry'], ['GET', '/api/v1/no-such-route'], ['GET', '/api/v1/contracts/fake'], ['DELETE', '/api/v1/contracts/registry'], ['POST', '/api/v1/events/outbox/nowhere']] as const) {
        const response = await send(`${running.worker}${path}`, { method, headers: bearer(lane) });
        assert.deepEqual([response.status, response.text, response.headers['www-authenticate']], [401, noToken.text, noToken.headers['www-authenticate']], `${lane} ${method} ${path}`);
        assert.ok(!response.text.includes(LANE_TOKENS[lane]), 'the token is never echoed');
      }
    }
    // Its own lane's routes still open: the BFF reads a planning session it may read (404: no such session, past the gate).
    assert.equal((await send(`${running.worker}/api/v1/planning/sessions/ps_11111111-2222-4333-8444-555555555555`, { headers: bearer('bff') })).status, 404);
    assert.equal((await send(`${running.worker}/api/v1/identity/mail-management/decision?tenant_id=t&mailbox=a%40example.com`, { headers: bearer('mail_consumer') })).status < 500, true);
    const unknown = await send(url, { headers: { authorization: 'Bearer not-a-lane-token' } });
    const missing = await send(`${running.worker}/api/v1/no-such-route`);
    assert.equal(unknown.status, 401);
    assert.equal(unknown.text, missing.text, 'one fixed 401 body');
    assert.equal(unknown.headers['www-authenticate'], 'Bearer realm="governance-worker"');
  } finally {
    await running.stop();
  }
});
