// npm test runs node --test with a per-test timeout (issue 29): a test that can never finish (a
// server whose close waits on a connection) fails after that time instead of hanging the run.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import type { SpawnSyncReturns } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const HANGS = join(import.meta.dirname, 'fixtures', 'hangs.fixture.ts');
const MANY = join(import.meta.dirname, 'fixtures', 'many-tests.fixture.ts');

test('npm test sets a per-test timeout of at most 10 minutes, and ends a file whose handles outlive its tests', () => {
  const script = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { test: string } }).scripts.test;
  const timeout = /node --test (?:[^"]*\s)?--test-timeout=(\d+)\s/.exec(script);
  assert.ok(timeout, `no --test-timeout in: ${script}`);
  assert.ok(Number(timeout[1]) > 0 && Number(timeout[1]) <= 600_000, `--test-timeout=${timeout[1]}`);
  // The timeout fails the test; without --test-force-exit the server it left open would keep the run waiting.
  assert.match(script, /node --test [^"]*--test-force-exit/);
});

test('--test-timeout with --test-force-exit ends a test that would hang forever, as a failure', () => {
  const started = Date.now();
  // Without this runner's NODE_TEST_CONTEXT, so the inner run reports as a run of its own.
  const { NODE_TEST_CONTEXT: _ours, ...env } = process.env;
  const run = spawnSync(process.execPath, ['--test', '--test-timeout=1500', '--test-force-exit', HANGS], { encoding: 'utf8', timeout: 60_000, env });
  assert.equal(run.signal, null, 'node --test ended by itself');
  assert.equal(run.status, 1);
  assert.match(run.stdout, /test timed out after 1500ms/);
  assert.ok(Date.now() - started < 30_000);
});

test('npm test reports every test of a file despite --test-force-exit (its test processes write their reports synchronously)', () => {
  const script = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { test: string } }).scripts.test;
  const preload = /--import (\S+)/.exec(script);
  assert.ok(preload, `no --import preload in: ${script}`);
  const { NODE_TEST_CONTEXT: _ours, ...env } = process.env;
  // A cut-short report is a matter of timing: without the preload, most of five runs lost some of the 420.
  for (let run = 0; run < 5; run++) {
    const result: SpawnSyncReturns<string> = spawnSync(process.execPath, ['--test', '--test-force-exit', '--import', preload[1]!, '--test-reporter=tap', MANY], { encoding: 'utf8', cwd: ROOT, timeout: 60_000, env });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^# tests 420$/m, `run ${run + 1} reported ${/^# tests (\d+)$/m.exec(result.stdout)?.[1]} of 420 tests`);
  }
});
