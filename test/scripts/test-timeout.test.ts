// npm test runs node --test with a per-test timeout (issue 29): a test that can never finish (a
// server whose close waits on a connection) fails after that time instead of hanging the run.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const HANGS = join(import.meta.dirname, 'fixtures', 'hangs.fixture.ts');

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
