import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { runCommand } from '../../src/kernel/index.ts';
import { createSweepCommand } from '../../scripts/_sweep/command.ts';
import type { SweepEvidence } from '../../scripts/_sweep/evidence.ts';

const GOVERNANCE_MAIN = join(import.meta.dirname, '..', '..', 'src', 'governance', 'main.ts');

/** Starts the governance service as role platform-api on a free port; resolves with the platform URL. */
function startPlatform(dataDir: string): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  const child = spawn(process.execPath, [GOVERNANCE_MAIN, '--role', 'platform-api'], {
    env: { ...process.env, GOVERNANCE_DEPLOYMENT_ROLE: 'platform-api', GOVERNANCE_PLATFORM_LISTEN: '127.0.0.1:0', AIRLOCK_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const errors: string[] = [];
  child.stderr!.on('data', (chunk: Buffer) => errors.push(chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`The governance service printed no "platform" listening line in 15 s: ${errors.join('')}`)), 15_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`The governance service exited (${code}) before listening: ${errors.join('')}`));
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const parsed = line.startsWith('{') ? (JSON.parse(line) as { msg?: string; listener?: string; url?: string }) : {};
      if (parsed.msg === 'listening' && parsed.listener === 'platform' && parsed.url) {
        clearTimeout(timer);
        resolve({ child, url: parsed.url, stderr: () => errors.join('') });
      }
    });
  });
}

test("throttled_api_sweep fails on the governance platform listener's fail-closed readiness 503s, and is green with --allow-not-ready", async (t) => {
  if (!existsSync(GOVERNANCE_MAIN)) {
    t.skip('governance service not built yet: src/governance/main.ts is absent');
    return;
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'airlock-sweep-governance-'));
  const { child, url, stderr } = await startPlatform(dataDir);
  t.after(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });
  const sweep = async (extra: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const io = { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s) }, env: {} };
    const code = await runCommand(createSweepCommand(), ['--base-url', url, '--rate-limit-rpm', '6000', '--batch-size', '25', '--batch-sleep-seconds', '0.05', '--json', ...extra], io);
    return { code, err: err.join(''), evidence: JSON.parse(out.join('')) as SweepEvidence };
  };
  // Seed 001: any 5xx fails a sweep. The workboard's owner is never connected and no CRM owner is
  // configured here, so their readiness routes answer 503 (fail closed), and the sweep fails.
  const strict = await sweep([]);
  assert.equal(strict.code, 1);
  assert.equal(strict.evidence.ok, false);
  const readiness503 = strict.evidence.requests.filter((r) => r.status === 503).map((r) => [r.path, r.class]);
  assert.ok(readiness503.some(([path]) => path === '/api/v1/projections/workboard-unified-access/readiness'), JSON.stringify(readiness503));
  assert.ok(readiness503.every(([, c]) => c === 'server_error'), JSON.stringify(readiness503));
  assert.equal(strict.evidence.settings.allow_not_ready, false);

  // Tolerating fail-closed readiness is an explicit choice: --allow-not-ready.
  const { code, err, evidence } = await sweep(['--allow-not-ready']);
  const failures = evidence.requests.filter((r) => !['ok', 'sample_dependent', 'auth_required', 'not_ready'].includes(r.class));
  assert.deepEqual(failures, [], `failures on the platform listener; service stderr:\n${stderr()}`);
  assert.equal(code, 0, err);
  assert.equal(evidence.ok, true);
  assert.equal(evidence.settings.allow_not_ready, true);
  assert.equal(evidence.totals.not_ready, readiness503.length);
  assert.equal(evidence.export.source, `${url}/api/v1/openapi.json`);
  assert.ok(evidence.operations > 0, 'the export lists GET operations');
  assert.ok(evidence.totals.ok > 0, 'at least one 2xx');
  assert.ok(evidence.requests.some((r) => r.path === '/health' && r.class === 'ok') || evidence.requests.some((r) => r.path === '/api/v1/openapi.json' && r.class === 'ok'), 'health or the export itself answered 200');
});
