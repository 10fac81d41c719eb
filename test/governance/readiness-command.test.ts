import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { startGovernance } from './_service.ts';
import { REPO, rootEnv, startCrmDouble, tempRoot } from './_fixtures.ts';
import type { TempRoot } from './_fixtures.ts';

const SCRIPT = join(REPO, 'scripts', 'governance-readiness.ts');

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SCRIPT, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function walk(prepare: (root: TempRoot) => void, args: string[] = ['--json']) {
  const root = tempRoot();
  prepare(root);
  // A CRM owner answers (readiness asks it), so security can be ready.
  const crm = await startCrmDouble();
  const running = await startGovernance({ role: 'platform-api', env: { ...rootEnv(root.root), GOVERNANCE_CRM_UPSTREAM_URL: crm.url, GOVERNANCE_CRM_KNOWN_COMPANIES: 'tenant-a/company-1' } });
  try {
    return await run(['--base-url', running.platform!, ...args]);
  } finally {
    await running.stop();
    await crm.close();
    root.cleanup();
  }
}

test('governance-readiness walks health, services, observability, security, recovery, signoff, then each subsystem, and stops at the one whose owner is missing', async () => {
  const { code, stdout } = await walk(() => {});
  assert.equal(code, 1, stdout);
  const result = JSON.parse(stdout) as { ok: boolean; first_not_ready: string; steps: { path: string; ready: boolean }[] };
  assert.equal(result.ok, false);
  assert.equal(result.first_not_ready, '/api/v1/projections/workboard-unified-access/readiness', 'no owner connected: fail closed');
  assert.deepEqual(result.steps.slice(0, 6).map((s) => s.path), ['/health', '/api/v1/platform/services', '/api/v1/observability/readiness', '/api/v1/security/readiness', '/api/v1/recovery/readiness', '/api/v1/signoff/readiness']);
  const subsystems = result.steps.slice(6).map((s) => s.path);
  assert.deepEqual(subsystems, [
    '/api/v1/contracts/assistant/readiness', '/api/v1/docs/readiness', '/api/v1/event-modeling/readiness', '/api/v1/governance/readiness',
    '/api/v1/identity/agent-federation/readiness', '/api/v1/projections/workboard-unified-access/readiness',
  ]);
  assert.ok(result.steps.slice(0, -1).every((s) => s.ready));
});

test('governance-readiness exits 1 at signoff when drift exists, names it, and walks no further', async () => {
  const { code, stdout } = await walk((root) => root.editJson('contracts/governance/identity_contracts_v1.json', (a) => { a.content['surface-admission'].routes.push('/api/v1/nowhere'); }), []);
  assert.equal(code, 1);
  const lines = stdout.trim().split('\n');
  assert.equal(lines.length, 6);
  assert.match(lines.at(-1)!, /^NOT READY \/api\/v1\/signoff\/readiness: drift_empty: 1 drift entry; first: route_ref_unresolved/);
});

test('governance-readiness exits 1 at a subsystem that is not ready, after the fixed order passed', async () => {
  const { code, stdout } = await walk((root) => root.editJson('contracts/governance/event_modeling_v1.json', (a) => { a.content.catalog.events[0].name = 'PublicationStart'; }));
  assert.equal(code, 1);
  const result = JSON.parse(stdout) as { first_not_ready: string; steps: { path: string; ready: boolean; detail: string }[] };
  assert.equal(result.first_not_ready, '/api/v1/event-modeling/readiness');
  assert.match(result.steps.at(-1)!.detail, /event_catalog_standard: PublicationStart: does not match/);
  assert.equal(result.steps.filter((s) => !s.ready).length, 1);
});

test('governance-readiness exits 2 when the service cannot be reached or the usage is wrong', async () => {
  const unreachable = await run(['--base-url', 'http://127.0.0.1:9', '--timeout-ms', '500']);
  assert.equal(unreachable.code, 2);
  assert.match(unreachable.stderr, /Cannot reach "http:\/\/127\.0\.0\.1:9\/health"/);
  assert.equal((await run([])).code, 2);
  assert.equal((await run(['--base-url', 'ftp://x'])).code, 2);
  const help = await run(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--base-url URL/);
});
