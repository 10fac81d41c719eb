import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSweepTarget } from './fixtures/sweep/test-target.ts';

const SCRIPT = join(import.meta.dirname, '..', '..', 'scripts', 'throttled_api_sweep.ts');

function runScript(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT, ...args], { encoding: 'utf8', timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

test('throttled_api_sweep as a script exits 0 green, 1 failed, 2 unreachable, and answers --help', async (t) => {
  const target = await startSweepTarget();
  const dir = mkdtempSync(join(tmpdir(), 'airlock-sweep-cli-'));
  t.after(async () => {
    await target.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const help = await runScript(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: throttled_api_sweep \[options\]/);
  assert.match(help.stdout, /--rate-limit-rpm N\s+At most N request starts in any 60 s window \(default: 90\)/);

  const output = join(dir, 'green.json');
  const green = await runScript(['--base-url', target.url, '--include', '/ok', '--include', '/items/*', '--batch-size', '1', '--batch-sleep-seconds', '0.05', '--output', output]);
  assert.equal(green.code, 0, green.stderr);
  assert.match(green.stdout, /^sweep green: ok 1, sample_dependent 1; 2 operations, 2 requests in /);
  assert.equal(JSON.parse(readFileSync(output, 'utf8')).ok, true);
  // Off a terminal: one JSON progress line per batch (batch size 1 here), nothing else.
  const progress = green.stderr.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  assert.deepEqual(progress.map((p) => [p['msg'], p['done'], p['total']]), [['sweep progress', 1, 2], ['sweep progress', 2, 2]]);
  assert.ok(typeof progress[1]!['elapsed_ms'] === 'number');
  assert.deepEqual(progress[1]!['classes'], { ok: 1, sample_dependent: 1 });
  const batched = await runScript(['--base-url', target.url, '--include', '/ok', '--include', '/items/*', '--batch-size', '5', '--batch-sleep-seconds', '0']);
  assert.equal(batched.stderr.trim().split('\n').length, 1, 'a batch larger than the sweep: one line, at the end');

  const failed = await runScript(['--base-url', target.url, '--include', '/boom', '--include', '/missing']);
  assert.equal(failed.code, 1);
  assert.match(failed.stdout, /^FAIL unexpected_status 404 GET \/missing\nFAIL server_error 500 GET \/boom\nsweep failed: /);

  const closed = await startSweepTarget();
  await closed.close();
  const unreachable = await runScript(['--base-url', closed.url, '--json']);
  assert.equal(unreachable.code, 2);
  assert.equal(JSON.parse(unreachable.stdout).error.code, 'environment');
  assert.match(unreachable.stderr, /^throttled_api_sweep: Cannot fetch the OpenAPI export ".*": ECONNREFUSED/);
});
