import { test } from 'node:test';
import assert from 'node:assert/strict';
import { send } from '../helpers/http.ts';
import { readGovernanceConfig } from '../../src/governance/config.ts';
import { isAirlockError } from '../../src/kernel/index.ts';
import { AUTH, OPERATOR_TOKEN, startGovernance } from './_service.ts';

test('governance roles bind their listeners: platform-api platform, control-api worker, test both', async () => {
  for (const [role, expected] of [['platform-api', ['platform']], ['control-api', ['worker']], ['test', ['platform', 'worker']]] as const) {
    const running = await startGovernance({ role });
    try {
      assert.deepEqual([running.platform && 'platform', running.worker && 'worker'].filter(Boolean), expected, role);
      const base = running.platform ?? running.worker!;
      const health = await send(`${base}/health`, { headers: AUTH });
      assert.equal(health.status, 200);
      const body = health.json() as Record<string, unknown>;
      assert.equal(body['service'], 'governance');
      assert.equal(body['deployment_role'], role);
      assert.equal(body['status'], 'pass');
    } finally {
      await running.stop();
    }
  }
});

test('GET /health reports deployment_role "unknown" when no role is set, and runs both listeners', async () => {
  const running = await startGovernance();
  try {
    assert.ok(running.platform && running.worker);
    const body = (await send(`${running.platform}/health`)).json() as Record<string, unknown>;
    assert.equal(body['deployment_role'], 'unknown');
  } finally {
    await running.stop();
  }
});

test('GOVERNANCE_DEPLOYMENT_ROLE sets the role; --role wins over it', () => {
  const env = { GOVERNANCE_DEPLOYMENT_ROLE: 'platform-api', GOVERNANCE_OPERATOR_TOKEN: OPERATOR_TOKEN };
  assert.equal(readGovernanceConfig({ env }).role, 'platform-api');
  assert.equal(readGovernanceConfig({ env, argv: ['--role', 'control-api'] }).role, 'control-api');
});

test('readGovernanceConfig() refuses a bad role, a worker role without a token, and a non-loopback worker, all at once', () => {
  assert.throws(() => readGovernanceConfig({ env: {}, argv: ['--role', 'admin'] }), (e: unknown) => isAirlockError(e, 'usage') && /"admin"/.test(e.message));
  assert.throws(
    () => readGovernanceConfig({ env: { GOVERNANCE_WORKER_LISTEN: '0.0.0.0:18011', GOVERNANCE_CRM_KNOWN_COMPANIES: 'no-slash' }, argv: ['--role', 'control-api'] }),
    (e: unknown) => isAirlockError(e, 'config_invalid') && e.details.length === 3
      && e.details.some((d) => d.startsWith('GOVERNANCE_WORKER_LISTEN'))
      && e.details.some((d) => d.startsWith('GOVERNANCE_OPERATOR_TOKEN'))
      && e.details.some((d) => d.startsWith('GOVERNANCE_CRM_KNOWN_COMPANIES')),
  );
  assert.equal(readGovernanceConfig({ env: {}, argv: ['--role', 'platform-api'] }).operatorTokens.length, 0, 'platform-api needs no token');
});

test('worker listener: operator authentication runs before route resolution (401 on real and fake paths)', async () => {
  const running = await startGovernance({ role: 'test' });
  try {
    for (const path of ['/health', '/api/v1/openapi.json', '/api/v1/no-such-route', '/nothing']) {
      for (const headers of [{}, { authorization: 'Bearer wrong-token' }, { authorization: `Basic ${OPERATOR_TOKEN}` }] as Record<string, string>[]) {
        const response = await send(`${running.worker}${path}`, { headers });
        assert.equal(response.status, 401, `${path} ${JSON.stringify(headers)}`);
        assert.equal(response.headers['www-authenticate'], 'Bearer realm="governance-worker"');
      }
      const post = await send(`${running.worker}${path}`, { method: 'POST' });
      assert.equal(post.status, 401, `POST ${path}`);
    }
    assert.equal((await send(`${running.worker}/health`, { headers: AUTH })).status, 200);
    assert.equal((await send(`${running.worker}/api/v1/no-such-route`, { headers: AUTH })).status, 404);
  } finally {
    await running.stop();
  }
});

test('worker listener without a configured token refuses every request (role unknown)', async () => {
  const running = await startGovernance({ env: { GOVERNANCE_OPERATOR_TOKEN: '' } });
  try {
    assert.equal((await send(`${running.worker}/health`, { headers: AUTH })).status, 401);
    assert.ok(running.logs.some((r) => r['msg'] === 'GOVERNANCE_OPERATOR_TOKEN is not set: the worker listener refuses every request'));
  } finally {
    await running.stop();
  }
});

test('platform listener: no credentials, 404 on a fake route, 405 with Allow for writes, HEAD works', async () => {
  const running = await startGovernance({ role: 'platform-api' });
  try {
    assert.equal((await send(`${running.platform}/api/v1/openapi.json`)).status, 200);
    assert.equal((await send(`${running.platform}/api/v1/fake-route-404`)).status, 404);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const response = await send(`${running.platform}/api/v1/openapi.json`, { method });
      assert.equal(response.status, 405, method);
      assert.equal(response.headers['allow'], 'GET, HEAD');
    }
    const head = await send(`${running.platform}/health`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
  } finally {
    await running.stop();
  }
});

test('governance main answers --help with exit 0 and prints one listening line per listener', async () => {
  const { execFileSync, spawn } = await import('node:child_process');
  const { createInterface } = await import('node:readline');
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const main = join(import.meta.dirname, '..', '..', 'src', 'governance', 'main.ts');
  assert.match(execFileSync(process.execPath, [main, '--help'], { encoding: 'utf8' }), /--role control-api\|platform-api\|test/);
  const dataDir = mkdtempSync(join(tmpdir(), 'airlock-governance-main-'));
  const child = spawn(process.execPath, [main, '--role', 'test'], {
    env: { ...process.env, AIRLOCK_DATA_DIR: dataDir, GOVERNANCE_PLATFORM_LISTEN: '127.0.0.1:0', GOVERNANCE_WORKER_LISTEN: '127.0.0.1:0', GOVERNANCE_OPERATOR_TOKEN: OPERATOR_TOKEN },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  try {
    const lines: Record<string, unknown>[] = [];
    for await (const line of createInterface({ input: child.stdout })) {
      lines.push(JSON.parse(line) as Record<string, unknown>);
      if (lines.length === 2) break;
    }
    assert.deepEqual(lines.map((l) => [l['msg'], l['service'], l['listener']]), [['listening', 'governance', 'platform'], ['listening', 'governance', 'worker']]);
    // One round trip first: runService installs its SIGTERM handler just after printing these lines.
    assert.equal((await send(`${String(lines[0]!['url'])}/health`)).status, 200);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('governance main exits 2 listing configuration problems', async () => {
  const { spawnSync } = await import('node:child_process');
  const { join } = await import('node:path');
  const main = join(import.meta.dirname, '..', '..', 'src', 'governance', 'main.ts');
  const result = spawnSync(process.execPath, [main, '--role', 'control-api'], { env: { ...process.env, GOVERNANCE_OPERATOR_TOKEN: '', GOVERNANCE_WORKER_LISTEN: '10.0.0.1:18011' }, encoding: 'utf8' });
  assert.equal(result.status, 2);
  assert.match(result.stderr, /Cannot start: Invalid configuration: 2 problems/);
  assert.match(result.stderr, /GOVERNANCE_WORKER_LISTEN: host "10\.0\.0\.1" is not loopback/);
});
