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

test('worker listener: a lane token passes the gate but an operator route refuses it with 403; unknown tokens get the one 401', async () => {
  const running = await startGovernance({ role: 'test' });
  try {
    const url = `${running.worker}/api/v1/contracts/registry`;
    assert.equal((await send(url, { headers: AUTH })).status, 200);
    for (const lane of ['bff', 'mail_producer', 'mail_consumer', 'entitlement_producer', 'entitlement_consumer'] as const) {
      const response = await send(url, { headers: bearer(lane) });
      assert.equal(response.status, 403, lane);
      const body = response.json() as { lane: string; admitted: string[] };
      assert.deepEqual([body.lane, body.admitted], [lane, ['operator']]);
      assert.ok(!response.text.includes(LANE_TOKENS[lane]), 'the token is never echoed');
    }
    const unknown = await send(url, { headers: { authorization: 'Bearer not-a-lane-token' } });
    const missing = await send(`${running.worker}/api/v1/no-such-route`);
    assert.equal(unknown.status, 401);
    assert.equal(unknown.text, missing.text, 'one fixed 401 body');
    assert.equal(unknown.headers['www-authenticate'], 'Bearer realm="governance-worker"');
  } finally {
    await running.stop();
  }
});
