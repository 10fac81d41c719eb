import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isAirlockError } from '../../src/kernel/index.ts';
import { loadAgentContextConfig } from '../../src/agent-context/config.ts';

function problems(env: Record<string, string>): string[] {
  try {
    loadAgentContextConfig(env);
  } catch (error) {
    if (isAirlockError(error, 'config_invalid')) return [...error.details];
    throw error;
  }
  return [];
}

test('loadAgentContextConfig() needs AGENT_CONTEXT_TOKEN and defaults to 127.0.0.1:18050', () => {
  assert.match(problems({}).join('\n'), /AGENT_CONTEXT_TOKEN: missing/);
  const config = loadAgentContextConfig({ AGENT_CONTEXT_TOKEN: 'a,b' });
  assert.deepEqual([config.listen.host, config.listen.port, config.serviceAuthToken, config.governanceUrl], ['127.0.0.1', 18050, '', undefined]);
  assert.equal(loadAgentContextConfig({ AGENT_CONTEXT_TOKEN: 'a' }, { listen: '127.0.0.1:0' }).listen.port, 0);
});

test('loadAgentContextConfig() refuses an AGENT_CONTEXT_TOKEN of only commas and blanks (no token: every internal route would be 401)', () => {
  for (const value of [',', ' , ', ' ']) assert.match(problems({ AGENT_CONTEXT_TOKEN: value }).join('\n'), /AGENT_CONTEXT_TOKEN: /, JSON.stringify(value));
  assert.equal(problems({ AGENT_CONTEXT_TOKEN: ',', GOVERNANCE_URL: 'http://10.0.0.8:18011' }).length, 2, 'every problem listed at once');
});

test('loadAgentContextConfig() refuses a non-loopback governance URL unless opted in, and a bad URL', () => {
  assert.match(problems({ AGENT_CONTEXT_TOKEN: 'a', GOVERNANCE_URL: 'http://10.0.0.8:18011' }).join('\n'), /not a loopback URL/);
  assert.equal(loadAgentContextConfig({ AGENT_CONTEXT_TOKEN: 'a', GOVERNANCE_URL: 'http://10.0.0.8:18011', AGENT_CONTEXT_ALLOW_NON_LOOPBACK_UPSTREAMS: '1' }).governanceUrl, 'http://10.0.0.8:18011');
  assert.match(problems({ AGENT_CONTEXT_TOKEN: 'a', GOVERNANCE_URL: 'ftp://x' }).join('\n'), /GOVERNANCE_URL/);
  assert.match(problems({ AGENT_CONTEXT_TOKEN: 'a', AGENT_CONTEXT_UPSTREAM_TIMEOUT_MS: '5' }).join('\n'), /AGENT_CONTEXT_UPSTREAM_TIMEOUT_MS/);
});

test('loadAgentContextConfig() treats a blank service auth token as unset (the live path fails closed)', () => {
  assert.equal(loadAgentContextConfig({ AGENT_CONTEXT_TOKEN: 'a', AGENT_CONTEXT_SERVICE_AUTH_TOKEN: '   ' }).serviceAuthToken, '');
});

test('loadAgentContextConfig() refuses credentials written in GOVERNANCE_URL without showing them (they would reach the open /ready)', () => {
  for (const url of ['http://ops:pw-SECRET-1@127.0.0.1:18011', 'http://pw-SECRET-1@127.0.0.1:18011', 'http://ops:pw-SECRET-1@10.0.0.8:18011']) {
    const found = problems({ AGENT_CONTEXT_TOKEN: 'a', GOVERNANCE_URL: url }).join('\n');
    assert.match(found, /GOVERNANCE_URL: .*credentials/, url);
    assert.doesNotMatch(found, /pw-SECRET-1/, url);
  }
});
