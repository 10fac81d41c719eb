import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { send } from '../helpers/http.ts';
import { governanceDevDefaults } from '../../src/governance/dev-defaults.ts';
import { startGovernance } from './_service.ts';

test('governanceDevDefaults() makes one operator token, keeps it, keeps other services\' secrets, mode 0600', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-governance-dev-'));
  try {
    writeFileSync(join(dir, 'dev-secrets.json'), JSON.stringify({ semantic: { operator_token: 'theirs' } }));
    const first = governanceDevDefaults(dir);
    const second = governanceDevDefaults(dir);
    const token = first.env['GOVERNANCE_OPERATOR_TOKEN'];
    assert.match(String(token), /^[A-Za-z0-9_-]{32}$/);
    assert.equal(second.env['GOVERNANCE_OPERATOR_TOKEN'], token);
    const secrets = JSON.parse(readFileSync(join(dir, 'dev-secrets.json'), 'utf8'));
    assert.deepEqual(secrets, { semantic: { operator_token: 'theirs' }, governance: { operator_token: token } });
    assert.equal(statSync(join(dir, 'dev-secrets.json')).mode & 0o777, 0o600);
    assert.ok(first.curl.every((line) => !line.includes(String(token))), 'no curl line shows the token');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('governanceDevDefaults() gives control-api what it needs to start and admit the operator', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-governance-dev-'));
  const { env } = governanceDevDefaults(dir);
  const running = await startGovernance({ role: 'control-api', env: { ...env } });
  try {
    const response = await send(`${running.worker}/api/v1/contracts/registry`, { headers: { authorization: `Bearer ${env['GOVERNANCE_OPERATOR_TOKEN']}` } });
    assert.equal(response.status, 200);
  } finally {
    await running.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
