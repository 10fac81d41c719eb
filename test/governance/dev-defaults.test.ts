import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { send } from '../helpers/http.ts';
import { governanceDevDefaults } from '../../src/governance/dev-defaults.ts';
import { startGovernance } from './_service.ts';

const SECRET_NAMES = ['operator_token', 'bff_token', 'mail_producer_token', 'mail_consumer_token', 'entitlement_producer_token', 'entitlement_consumer_token', 'git_host_webhook_secret'];

test('governanceDevDefaults() makes one secret per lane and the git-host secret, keeps them, keeps other services\' secrets, mode 0600', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-governance-dev-'));
  try {
    writeFileSync(join(dir, 'dev-secrets.json'), JSON.stringify({ semantic: { operator_token: 'theirs' }, governance: { operator_token: 'kept-from-part-one-0001' } }));
    const first = governanceDevDefaults(dir);
    const second = governanceDevDefaults(dir);
    assert.deepEqual(second.env, first.env);
    assert.equal(first.env['GOVERNANCE_OPERATOR_TOKEN'], 'kept-from-part-one-0001', 'an existing token is kept');
    const secrets = JSON.parse(readFileSync(join(dir, 'dev-secrets.json'), 'utf8'));
    assert.deepEqual(secrets.semantic, { operator_token: 'theirs' });
    assert.deepEqual(Object.keys(secrets.governance).sort(), [...SECRET_NAMES].sort());
    assert.equal(new Set(Object.values(secrets.governance)).size, SECRET_NAMES.length, 'every lane has its own token');
    for (const name of SECRET_NAMES.slice(1)) assert.match(secrets.governance[name], /^[A-Za-z0-9_-]{32}$/);
    assert.equal(statSync(join(dir, 'dev-secrets.json')).mode & 0o777, 0o600);
    for (const value of Object.values<string>(secrets.governance)) assert.ok(first.curl.every((line) => !line.includes(value)), 'no curl line shows a secret');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('governanceDevDefaults() curl lines work against control-api and platform-api started with its environment', async (t) => {
  if (!existsSync('/usr/bin/curl') && !existsSync('/bin/curl')) return t.skip('curl is not installed');
  const dir = mkdtempSync(join(tmpdir(), 'airlock-governance-dev-'));
  const { env, curl } = governanceDevDefaults(dir);
  const running = await startGovernance({ role: 'test', env: { ...env } });
  try {
    const lines = curl.filter((line) => line.startsWith('curl ')).map((line) => line.replaceAll('http://127.0.0.1:18010', running.platform!).replaceAll('http://127.0.0.1:18011', running.worker!));
    assert.ok(lines.length >= 10);
    for (const line of lines) {
      // The lines call `node -p` to read the secrets file: put this Node first on PATH. Async: the service runs in this process.
      const { stdout: output } = await promisify(execFile)('bash', ['-c', `${line} -o /dev/null -w '%{http_code}'`], { encoding: 'utf8', timeout: 20_000, env: { PATH: `${dirname(process.execPath)}:${process.env['PATH'] ?? ''}` } });
      assert.match(output, /^20[01]$/, `${line}\n-> ${output}`);
    }
    assert.equal((await send(`${running.worker}/api/v1/contracts/registry`, { headers: { authorization: `Bearer ${env['GOVERNANCE_OPERATOR_TOKEN']}` } })).status, 200);
  } finally {
    await running.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
