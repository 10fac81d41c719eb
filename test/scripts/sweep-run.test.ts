import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { runCommand } from '../../src/kernel/index.ts';
import { createSweepCommand } from '../../scripts/_sweep/command.ts';
import { EVIDENCE_FORMAT } from '../../scripts/_sweep/evidence.ts';
import type { SweepEvidence } from '../../scripts/_sweep/evidence.ts';
import { createFakeClock } from './fixtures/sweep/fake-clock.ts';
import type { FakeClock } from './fixtures/sweep/fake-clock.ts';
import { startSweepTarget, TARGET_OPENAPI_FILE } from './fixtures/sweep/test-target.ts';

async function sweep(argv: string[], clock: FakeClock = createFakeClock(), isTTY = false) {
  const out: string[] = [];
  const err: string[] = [];
  const io = { stdout: { write: (t: string) => out.push(t), isTTY: false }, stderr: { write: (t: string) => err.push(t), isTTY }, env: {} };
  const code = await runCommand(createSweepCommand({ clock }), argv, io);
  return { code, out: out.join(''), err: err.join(''), clock };
}

function byTemplate(evidence: SweepEvidence) {
  return Object.fromEntries(evidence.requests.map((r) => [r.path_template, r]));
}

test('throttled_api_sweep classifies every outcome of the loopback target and fails the run', async (t) => {
  const target = await startSweepTarget({ slowMs: 2_000 });
  t.after(() => target.close());
  const { code, out, clock } = await sweep(['--base-url', target.url, '--timeout-seconds', '0.3', '--json']);
  assert.equal(code, 1);
  const evidence = JSON.parse(out) as SweepEvidence;
  const r = byTemplate(evidence);
  const summary = Object.fromEntries(Object.entries(r).map(([k, v]) => [k, [v.status, v.class, v.attempts]]));
  assert.deepEqual(summary, {
    '/ok': [200, 'ok', 1],
    '/items/{item_id}': [404, 'sample_dependent', 1],
    '/reports/{report_id}': [422, 'sample_dependent', 1],
    '/missing': [404, 'unexpected_status', 1],
    '/limited/after': [200, 'ok', 3],
    '/limited/bare': [200, 'ok', 2],
    '/limited/forever': [429, 'rate_limited', 3],
    '/boom': [500, 'server_error', 1],
    '/slow': [null, 'transport_error', 1],
    '/drop': [null, 'transport_error', 1],
    '/drop-mid-body': [null, 'transport_error', 1],
    '/secure': [401, 'auth_required', 1],
    '/unresolved/{code}': [null, 'unresolved_parameter', 0],
  });
  assert.match(r['/slow']!.detail!, /^timeout: /);
  assert.match(r['/drop']!.detail!, /^ECONNRESET: /);
  assert.match(r['/unresolved/{code}']!.detail!, /pattern/);
  assert.equal(r['/limited/forever']!.detail, 'Still 429 after 2 retries');
  // Retry-After 7 twice, then the 2 s backoff for the bare 429, then Retry-After 1 twice.
  assert.deepEqual(clock.sleeps, [7_000, 7_000, 2_000, 1_000, 1_000]);
  assert.equal(target.hits.get('/limited/after'), 3);
  assert.equal(target.hits.get('/unresolved/{code}'), undefined, 'nothing sent for an unresolved parameter');
  assert.equal(target.hits.get('/writes'), undefined, 'GET only');
  assert.deepEqual(evidence.totals, {
    ok: 3, sample_dependent: 2, auth_required: 1, not_ready: 0, unexpected_status: 1, rate_limited: 1, server_error: 1, transport_error: 3, unresolved_parameter: 1,
  });
  assert.equal(evidence.failures, 7);
  assert.equal(evidence.ok, false);
  assert.equal(evidence.requests_sent, 17);
  assert.equal(evidence.operations, 13);
});

test('throttled_api_sweep is green when only ok, sample_dependent and auth_required remain, and writes the evidence file', async (t) => {
  const target = await startSweepTarget();
  const dir = mkdtempSync(join(tmpdir(), 'airlock-sweep-'));
  t.after(async () => {
    await target.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const output = join(dir, 'evidence', 'sweep.json');
  const clock = createFakeClock();
  const { code, out } = await sweep(
    ['--base-url', `${target.url}/`, '--include', '/ok', '--include', '/items/*', '--include', '/reports/*', '--include', '/limited/bare', '--include', '/secure', '--output', output],
    clock,
  );
  assert.equal(code, 0, out);
  assert.match(out, /^sweep green: ok 2, sample_dependent 2, auth_required 1; 5 operations, 6 requests in 2\.0 s; export sha256 [0-9a-f]{64}\nevidence written to /);
  const evidence = JSON.parse(readFileSync(output, 'utf8')) as SweepEvidence;
  assert.equal(evidence.format, EVIDENCE_FORMAT);
  assert.equal(evidence.ok, true);
  assert.equal(evidence.base_url, target.url);
  assert.equal(evidence.export.source, `${target.url}/api/v1/openapi.json`);
  assert.equal(evidence.export.sha256, createHash('sha256').update(readFileSync(TARGET_OPENAPI_FILE)).digest('hex'));
  assert.deepEqual([evidence.export.openapi, evidence.export.title, evidence.export.version], ['3.1.0', 'Sweep test target', '1.0.0']);
  assert.deepEqual(evidence.settings, {
    rate_limit_rpm: 90, batch_size: 30, batch_sleep_seconds: 20, retry_429: 2, timeout_seconds: 10, allow_not_ready: false,
    include: ['/ok', '/items/*', '/reports/*', '/limited/bare', '/secure'], exclude: [],
  });
  assert.equal(evidence.started_at, '2026-01-01T00:00:00.000Z');
  assert.equal(evidence.finished_at, '2026-01-01T00:00:02.000Z');
  assert.equal(evidence.elapsed_ms, 2_000);
  assert.equal(evidence.filtered_out, 8);
  const item = byTemplate(evidence)['/items/{item_id}']!;
  assert.deepEqual({ ...item, latency_ms: 0 }, {
    method: 'GET', path_template: '/items/{item_id}', path: '/items/1', parameters: { item_id: '1' }, status: 404, class: 'sample_dependent', latency_ms: 0, attempts: 1,
  });
  assert.ok(typeof item.latency_ms === 'number' && item.latency_ms >= 0);
});

test('throttled_api_sweep reads --openapi FILE and keeps to the batch size and sleep', async (t) => {
  const target = await startSweepTarget();
  t.after(() => target.close());
  const clock = createFakeClock();
  const { code } = await sweep(['--base-url', target.url, '--openapi', TARGET_OPENAPI_FILE, '--include', '/ok', '--include', '/items/*', '--include', '/reports/*', '--batch-size', '2', '--batch-sleep-seconds', '5'], clock);
  assert.equal(code, 0);
  assert.equal(target.hits.get('/api/v1/openapi.json'), undefined, 'export read from the file');
  assert.deepEqual(clock.sleeps, [5_000]);
});

test('throttled_api_sweep draws done/total on a terminal stderr', async (t) => {
  const target = await startSweepTarget();
  t.after(() => target.close());
  const { code, err } = await sweep(['--base-url', target.url, '--include', '/ok'], createFakeClock(), true);
  assert.equal(code, 0);
  assert.match(err, /sweep 1\/1 [\d.]+\/s eta 0s\n$/);
});

test('throttled_api_sweep exits 2 for an unreachable target, a bad export and bad options', async (t) => {
  const target = await startSweepTarget({ openapi: '{"openapi":"2.0","paths":{}}' });
  const dir = mkdtempSync(join(tmpdir(), 'airlock-sweep-'));
  t.after(async () => {
    await target.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const closed = await startSweepTarget();
  await closed.close();
  const cases: [string[], RegExp][] = [
    [['--base-url', closed.url], /Cannot fetch the OpenAPI export "http:\/\/127\.0\.0\.1:\d+\/api\/v1\/openapi\.json": ECONNREFUSED/],
    [['--base-url', closed.url, '--openapi', TARGET_OPENAPI_FILE], /Cannot reach "http:\/\/127\.0\.0\.1:\d+": ECONNREFUSED/],
    [['--base-url', target.url], /"openapi" is "2\.0", expected 3\.x\.y/],
    [['--base-url', target.url, '--openapi', join(dir, 'absent.json')], /Cannot read the OpenAPI export ".*absent\.json": ENOENT/],
    [['--base-url', target.url, '--openapi', TARGET_OPENAPI_FILE, '--include', '/nothing'], /Nothing to sweep in ".*": no GET operation passes the filters \(13 left out\)/],
    [[], /Missing --base-url/],
    [['--base-url', 'ftp://x'], /Invalid --base-url "ftp:\/\/x": use http or https/],
    [['--base-url', 'http://x/?q=1'], /no query or fragment/],
    [['--base-url', 'not a url'], /not a URL/],
    [['--base-url', 'http://x', '--rate-limit-rpm', '0'], /Invalid --rate-limit-rpm "0": expected an integer of at least 1/],
    [['--base-url', 'http://x', '--batch-size', '2.5'], /Invalid --batch-size "2\.5"/],
    [['--base-url', 'http://x', '--batch-sleep-seconds=-1'], /Invalid --batch-sleep-seconds "-1"/],
    [['--base-url', 'http://x', '--retry-429', 'two'], /Invalid --retry-429 "two"/],
    [['--base-url', 'http://x', '--timeout-seconds', '0'], /Invalid --timeout-seconds "0"/],
  ];
  for (const [argv, message] of cases) {
    const { code, err, out } = await sweep(argv);
    assert.equal(code, 2, argv.join(' '));
    assert.match(err, message, argv.join(' '));
    assert.equal(out, '');
  }
});

test('throttled_api_sweep paces 200 real requests by the rpm and batch options, measured on a fake clock', async (t) => {
  const target = await startSweepTarget();
  const dir = mkdtempSync(join(tmpdir(), 'airlock-sweep-'));
  t.after(async () => {
    await target.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const file = join(dir, 'many.json');
  const paths = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`/ok/${i}`, { get: { responses: { 200: { description: 'OK' } } } }]));
  writeFileSync(file, JSON.stringify({ openapi: '3.1.0', info: { title: 'many', version: '1' }, paths }));
  // [extra options, expected elapsed]: the defaults (90 rpm, 30 per batch, 20 s) and a binding window.
  const cases: [string[], number][] = [
    [[], 120_000],
    [['--rate-limit-rpm', '60', '--batch-sleep-seconds', '5'], 180_000],
  ];
  for (const [options, elapsed] of cases) {
    const { code, out } = await sweep(['--base-url', target.url, '--openapi', file, '--json', ...options]);
    assert.equal(code, 0);
    const evidence = JSON.parse(out) as SweepEvidence;
    assert.equal(evidence.totals.ok, 200);
    assert.equal(evidence.elapsed_ms, elapsed, options.join(' '));
  }
  assert.equal(target.hits.get('/ok/199'), 2);
});
