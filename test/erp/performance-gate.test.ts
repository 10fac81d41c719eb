import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { runCommand } from '../../src/kernel/index.ts';
import { performanceGateCommand } from '../../scripts/_erp/performance-gate-command.ts';
import { startErp } from './_service.ts';
import type { Running } from './_service.ts';
import { compileCache } from '../helpers/compile-cache.ts';

const SCRIPT = join(import.meta.dirname, '..', '..', 'scripts', 'erp_performance_gate.ts');
let erp: Running;
before(async () => {
  erp = await startErp();
});
after(() => erp.stop());

/** Runs the gate as its own process (async: the service under load lives in this one). */
function gate(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SCRIPT, ...args], { env: { PATH: process.env['PATH'] ?? '', ...compileCache(), ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

test('a short run with every kind of request passes and reports the figures', async () => {
  const result = await gate(['--base-url', erp.url, '--duration', '1.5', '--concurrency', '4', '--worker-interval', '0.25', '--json'], erp.env);
  assert.equal(result.code, 0, result.stderr + result.stdout);
  const report = JSON.parse(result.stdout) as { ok: boolean; errors: number; requests: number; readiness: { polls: number; failures: number }; by_kind: Record<string, unknown>; thresholds: Record<string, number> };
  assert.equal(report.errors, 0);
  assert.ok(report.requests > 20);
  assert.ok(report.readiness.polls >= 3);
  assert.equal(report.readiness.failures, 0);
  for (const kind of ['payment_a', 'payment_b', 'supplier_intake', 'website_contact_intake', 'status', 'post_supplier_intake', 'post_revenue_event']) assert.ok(kind in report.by_kind, kind);
  assert.deepEqual(report.thresholds, { p95_latency_ms: 2000, error_rate_pct: 1, readiness_loss: 0 });
});

test('a threshold that fails exits 1 naming it; wrong secrets are errors', async () => {
  const strict = await gate(['--base-url', erp.url, '--duration', '0.5', '--concurrency', '2', '--max-p95-ms', '0'], erp.env);
  assert.equal(strict.code, 1, strict.stderr);
  assert.match(strict.stdout, /FAIL: p95 latency .* is above 0 ms/);
  const wrong = await gate(['--base-url', erp.url, '--duration', '0.5', '--concurrency', '2', '--json'], { ...erp.env, AUTOMATION_SHARED_SECRET: 'not-the-secret' });
  assert.equal(wrong.code, 1);
  assert.ok((JSON.parse(wrong.stdout) as { error_rate_pct: number }).error_rate_pct > 1);
});

test('a missing secret, an unreachable service and a bad flag exit 2', async () => {
  const { AUTOMATION_SHARED_SECRET: _, ...missing } = erp.env;
  assert.equal((await gate(['--base-url', erp.url, '--duration', '0.5'], missing)).code, 2);
  const unreachable = await gate(['--base-url', 'http://127.0.0.1:1', '--duration', '0.5'], erp.env);
  assert.equal(unreachable.code, 2);
  assert.match(unreachable.stderr, /Cannot reach/);
  assert.equal((await gate(['--concurrency', 'many'], erp.env)).code, 2);
});

test('a zero duration, worker interval or request timeout is a usage error (exit 2), not a run that reports 0 errors as 100 %', async () => {
  for (const flag of ['--duration', '--worker-interval', '--request-timeout']) {
    const zero = await gate(['--base-url', erp.url, '--duration', '0.5', flag, '0'], erp.env);
    assert.equal(zero.code, 2, `${flag} 0: ${zero.stdout}`);
    assert.match(zero.stderr, new RegExp(`${flag} must be a number above 0`));
  }
});

/** Runs the gate in this process with a stderr that says whether it is a terminal. */
async function gateHere(args: string[], env: Record<string, string>, isTTY: boolean): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io = { stdout: { write: (t: string) => out.push(t), isTTY: false }, stderr: { write: (t: string) => err.push(t), isTTY }, env };
  const code = await runCommand(performanceGateCommand, args, io);
  return { code, stdout: out.join(''), stderr: err.join('') };
}

test('a run reports progress while it runs: a line redrawn every second on a terminal, JSON lines elsewhere (it was silent)', async () => {
  const terminal = await gateHere(['--base-url', erp.url, '--duration', '2.2', '--concurrency', '2', '--json'], erp.env, true);
  assert.equal(terminal.code, 0, terminal.stderr);
  const redraws = terminal.stderr.split('\r\x1b[K').filter((line) => line !== '');
  assert.ok(redraws.length >= 3, `at least one redraw per second and a last line: ${JSON.stringify(terminal.stderr)}`);
  assert.match(redraws[0]!, /^erp_performance_gate [0-9]+\/2\.2 s, [0-9]+ requests, [0-9]+ errors$/);
  assert.match(redraws.at(-1)!, /^erp_performance_gate 2\/2\.2 s, [1-9][0-9]* requests, 0 errors\n$/);
  const logged = await gateHere(['--base-url', erp.url, '--duration', '1', '--concurrency', '2', '--json'], erp.env, false);
  const lines = logged.stderr.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  assert.equal(lines.at(-1)!['msg'], 'erp_performance_gate progress');
  assert.equal(lines.at(-1)!['duration_s'], 1);
  assert.ok(Number(lines.at(-1)!['requests']) > 0);
  assert.equal((JSON.parse(logged.stdout) as { ok: boolean }).ok, true, 'stdout keeps only the result');
});
