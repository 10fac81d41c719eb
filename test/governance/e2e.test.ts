import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { sharedBuild } from '../helpers/shared-build.ts';
import { send } from '../helpers/http.ts';
import { rootEnv, startCrmDouble, tempRoot } from './_fixtures.ts';
import { OPERATOR_TOKEN } from './_service.ts';

interface Running {
  child: ChildProcess;
  urls: Record<string, string>;
  stop(): Promise<number | null>;
}

/** Spawns a bundle and waits for one listening line per expected listener. */
async function startBundle(bundle: string, args: string[], env: Record<string, string>, listeners: string[]): Promise<Running> {
  const child = spawn(process.execPath, [bundle, ...args], { env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c));
  const urls: Record<string, string> = {};
  const lines = createInterface({ input: child.stdout! });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  for await (const line of lines) {
    const parsed = JSON.parse(line) as { msg: string; listener: string; url: string; service: string };
    assert.equal(parsed.service, 'governance');
    urls[parsed.listener] = parsed.url;
    if (listeners.every((l) => urls[l])) break;
  }
  assert.deepEqual(Object.keys(urls).sort(), [...listeners].sort(), stderr);
  return {
    child,
    urls,
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

test('bundle end to end: platform-api and control-api as separate processes on one database', { timeout: 120_000 }, async () => {
  const outdir = await sharedBuild();
  const dataDir = mkdtempSync(join(tmpdir(), 'airlock-governance-data-'));
  const root = tempRoot();
  const running: Running[] = [];
  const crm = await startCrmDouble();
  try {
    const bundle = join(outdir, 'bin', 'governance-api.mjs');
    assert.equal(spawnSync(process.execPath, [bundle, '--help']).status, 0);
    const env = { ...rootEnv(root.root), AIRLOCK_DATA_DIR: dataDir, GOVERNANCE_PLATFORM_LISTEN: '127.0.0.1:0', GOVERNANCE_WORKER_LISTEN: '127.0.0.1:0', GOVERNANCE_CRM_UPSTREAM_URL: crm.url, GOVERNANCE_CRM_KNOWN_COMPANIES: 'tenant-a/company-1' };
    const platform = await startBundle(bundle, ['--role', 'platform-api'], env, ['platform']);
    running.push(platform);
    const control = await startBundle(bundle, [], { ...env, GOVERNANCE_DEPLOYMENT_ROLE: 'control-api', GOVERNANCE_OPERATOR_TOKEN: OPERATOR_TOKEN }, ['worker']);
    running.push(control);
    const p = platform.urls['platform']!;
    const w = control.urls['worker']!;
    const auth = { authorization: `Bearer ${OPERATOR_TOKEN}` };

    assert.equal(((await send(`${p}/health`)).json() as { deployment_role: string }).deployment_role, 'platform-api');
    assert.equal(((await send(`${w}/health`, { headers: auth })).json() as { deployment_role: string }).deployment_role, 'control-api');
    const exported = (await send(`${p}/api/v1/openapi.json`)).json() as { paths: Record<string, { get?: { parameters?: unknown[]; security?: Record<string, unknown>[] } }> };
    // Public reads: GET without parameters whose worker copy needs only the operator token.
    const plain = Object.keys(exported.paths).filter((path) => {
      const get = exported.paths[path]!.get;
      return get !== undefined && get.parameters === undefined && get.security?.[0]?.['operator'] !== undefined;
    });
    assert.ok(plain.length > 100);
    for (const path of plain) {
      // The workboard's owner is never connected: its readiness fails closed (503), by design.
      assert.equal((await send(`${p}${path}`)).status, path === '/api/v1/projections/workboard-unified-access/readiness' ? 503 : 200, `platform ${path}`);
    }
    assert.equal((await send(`${p}/api/v1/not-a-route`)).status, 404);
    assert.equal((await send(`${p}/api/v1/contracts/registry`, { method: 'POST' })).status, 405);
    assert.equal((await send(`${w}/api/v1/not-a-route`)).status, 401);
    assert.equal((await send(`${w}/api/v1/contracts/registry`)).status, 401);
    assert.equal((await send(`${w}/api/v1/contracts/registry`, { headers: auth })).status, 200);
    assert.equal((await send(`${w}/api/v1/not-a-route`, { headers: auth })).status, 404);

    // One database: each process recorded its start, and each sees both rows.
    for (const [url, headers] of [[p, {}], [w, auth]] as const) {
      const evidence = (await send(`${url}/api/v1/tools/runtime-evidence`, { headers })).json() as { verified: boolean; tables: { table: string; rows: number }[] };
      assert.equal(evidence.verified, true);
      assert.equal(evidence.tables.find((t) => t.table === 'publication_starts')?.rows, 2);
    }

    // Asynchronously: the CRM double that readiness asks lives in this process.
    const { stdout, stderr, code } = await new Promise<{ stdout: string; stderr: string; code: number | null }>((resolve) => {
      const child = spawn(process.execPath, [join(outdir, 'bin', 'governance-readiness.mjs'), '--base-url', p], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (c: Buffer) => (out += c));
      child.stderr.on('data', (c: Buffer) => (err += c));
      child.on('close', (status) => resolve({ stdout: out, stderr: err, code: status }));
    });
    const readiness = { status: code, stdout, stderr };
    // Everything is ready but the workboard, whose owner no deployment connects: not ready, exit 1.
    assert.equal(readiness.status, 1, readiness.stdout + readiness.stderr);
    assert.match(readiness.stdout, /NOT READY \/api\/v1\/projections\/workboard-unified-access\/readiness: owner:workboard-unified-access/);

    for (const r of running.splice(0)) assert.equal(await r.stop(), 0, 'SIGTERM drains and exits 0');
  } finally {
    for (const r of running) r.child.kill('SIGKILL');
    await crm.close();
    root.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
