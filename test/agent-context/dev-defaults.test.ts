import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentContextDevDefaults } from '../../src/agent-context/dev-defaults.ts';
import { loadAgentContextConfig } from '../../src/agent-context/config.ts';
import { createAgentContextService } from '../../src/agent-context/service.ts';
import { createLogger } from '../../src/kernel/index.ts';
import { startGovernance } from '../governance/_service.ts';
import { rootEnv } from '../governance/_fixtures.ts';
import { stackRoot } from './_stack.ts';
import { devWiring } from '../../scripts/_dev-wiring.ts';

test('agentContextDevDefaults() makes a token, keeps it and the other services\' secrets, and leaves the wiring to npm start', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-agent-context-dev-'));
  try {
    writeFileSync(join(dir, 'dev-secrets.json'), JSON.stringify({ semantic: { operator_token: 'theirs' } }));
    const first = agentContextDevDefaults(dir);
    assert.deepEqual(agentContextDevDefaults(dir).env, first.env);
    const secrets = JSON.parse(readFileSync(join(dir, 'dev-secrets.json'), 'utf8'));
    assert.deepEqual(secrets.semantic, { operator_token: 'theirs' });
    assert.equal(first.env['AGENT_CONTEXT_TOKEN'], secrets['agent-context'].token);
    // GOVERNANCE_URL and the service auth token come from scripts/_dev-wiring.ts: no governance secret is made here.
    assert.deepEqual(Object.keys(first.env), ['AGENT_CONTEXT_TOKEN']);
    assert.equal(secrets.governance, undefined);
    assert.equal(statSync(join(dir, 'dev-secrets.json')).mode & 0o777, 0o600);
    assert.ok(first.curl.every((line) => !line.includes(secrets['agent-context'].token)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('agentContextDevDefaults() curl lines work against agent-context wired to governance with that environment', async (t) => {
  if (!existsSync('/usr/bin/curl') && !existsSync('/bin/curl')) return t.skip('curl is not installed');
  const dir = mkdtempSync(join(tmpdir(), 'airlock-agent-context-dev-'));
  const root = stackRoot();
  const { env, curl } = agentContextDevDefaults(dir);
  const { governanceDevDefaults } = await import('../../src/governance/dev-defaults.ts');
  const governanceEnv = governanceDevDefaults(dir).env;
  const governance = await startGovernance({ role: 'test', env: { ...governanceEnv, ...rootEnv(root.root) } });
  const wired = devWiring('agent-context', { governance: { env: governanceEnv, urls: { worker: governance.worker! } } });
  const service = createAgentContextService(loadAgentContextConfig({ ...env, ...wired, AIRLOCK_DATA_DIR: dir }, { listen: '127.0.0.1:0' }), { log: createLogger({ name: 'agent-context', write: () => {} }) });
  await service.listen();
  try {
    for (const line of curl) {
      const command = `${line.replaceAll('http://127.0.0.1:18050', service.url())} -w '\\n%{http_code}'`;
      const { stdout } = await promisify(execFile)('bash', ['-c', command], { cwd: join(import.meta.dirname, '..', '..') });
      assert.match(stdout.trim().split('\n').at(-1)!, /^20[01]$/, `${line}\n${stdout}`);
    }
  } finally {
    await service.close();
    await governance.stop();
    root.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
});
