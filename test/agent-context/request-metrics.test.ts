// agent_context_http_requests_total counts every answer, including the ones the service gives
// before a handler runs (401, 404, 405, 413, 415, 422), by route template and status class, so an
// error-rate alert sees them; promtool accepts the result and evaluates such an alert over it.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { send } from '../helpers/http.ts';
import { AUTH, startStack } from './_stack.ts';
import type { Stack } from './_stack.ts';

let stack: Stack;
before(async () => (stack = await startStack()));
after(() => stack.stop());

const RUNS = '/api/v1/execution/runs';
const json = { 'content-type': 'application/json' };

/** Each request, the status the service answers, and the route label it is counted under. */
const ANSWERS: [string, { method?: string; path: string; headers?: Record<string, string>; body?: string }, number, string][] = [
  ['no token', { method: 'POST', path: RUNS, headers: json, body: '{}' }, 401, RUNS],
  ['a wrong token', { path: '/api/v1/drift/summary', headers: { authorization: 'Bearer wrong' } }, 401, '/api/v1/drift/summary'],
  ['an unknown path', { path: '/api/v1/nothing-here' }, 404, 'unmatched'],
  ['a wrong method', { method: 'DELETE', path: '/metrics' }, 405, '/metrics'],
  ['a wrong content type', { method: 'POST', path: RUNS, headers: { ...AUTH, 'content-type': 'text/plain' }, body: 'x' }, 415, RUNS],
  ['a body failing its schema', { method: 'POST', path: RUNS, headers: { ...AUTH, ...json }, body: '{"unexpected":true}' }, 422, RUNS],
  ['an oversized body', { method: 'POST', path: RUNS, headers: { ...AUTH, ...json }, body: `{"x":"${'a'.repeat(2 * 1024 * 1024)}"}` }, 413, RUNS],
  ['a parameterized path', { method: 'POST', path: '/api/v1/execution/runs/run-9/result', headers: json, body: '{}' }, 401, '/api/v1/execution/runs/:run_id/result'],
  ['an open route', { path: '/health' }, 200, '/health'],
];

const sample = (metrics: string, labels: Record<string, string>) => {
  const text = Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${k}="${v}"`).join(',');
  return Number(new RegExp(`^agent_context_http_requests_total\\{${text.replace(/[{}"/.:]/g, '\\$&')}\\} (\\S+)$`, 'm').exec(metrics)?.[1] ?? 0);
};

test('agent_context_http_requests_total counts every answer by route template, code and status class', async () => {
  const before = (await send(`${stack.url}/metrics`)).text;
  for (const [what, request, status] of ANSWERS) {
    const res = await send(`${stack.url}${request.path}`, { method: request.method ?? 'GET', headers: request.headers ?? {}, ...(request.body !== undefined && { body: request.body }) });
    assert.equal(res.status, status, what);
  }
  const metrics = (await send(`${stack.url}/metrics`)).text;
  for (const [what, request, status, route] of ANSWERS) {
    const labels = { method: request.method ?? 'GET', route, code: String(status), status_class: `${String(status)[0]}xx` };
    assert.ok(sample(metrics, labels) - sample(before, labels) >= 1, `${what}: ${JSON.stringify(labels)} not counted`);
  }
  // Label sets stay bounded: an unknown method, a request node:http cannot parse and any unknown
  // path are each one series.
  assert.equal((await send(`${stack.url}/a/b/c`, { method: 'PROPFIND' })).status, 404);
  const unparsable = await new Promise<string>((resolve, reject) => {
    const socket = connect(new URL(stack.url).port ? Number(new URL(stack.url).port) : 80, '127.0.0.1');
    let text = '';
    socket.on('data', (c) => (text += c.toString()));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
    socket.end('NOT HTTP AT ALL\r\n\r\n');
  });
  assert.match(unparsable, /^HTTP\/1\.1 400/);
  const after = (await send(`${stack.url}/metrics`)).text;
  assert.ok(sample(after, { method: 'other', route: 'unmatched', code: '404', status_class: '4xx' }) >= 1);
  assert.ok(sample(after, { method: 'other', route: 'unmatched', code: '400', status_class: '4xx' }) >= 1);
  assert.doesNotMatch(after, /route="\/api\/v1\/nothing-here"|route="\/a\/b\/c"|method="PROPFIND"/);
});

test('promtool accepts the counters and an error-rate alert over them fires on 4xx answers', async () => {
  const metrics = (await send(`${stack.url}/metrics`)).text;
  const checked = spawnSync('promtool', ['check', 'metrics'], { input: metrics, encoding: 'utf8' });
  if (checked.error) assert.fail('promtool is not installed: run bash scripts/install_promtool.sh (Debian package prometheus)');
  assert.equal(checked.status, 0, checked.stdout + checked.stderr);
  // The alert an operator writes, evaluated by promtool over the series this scrape exposes.
  const series = metrics.split('\n').filter((line) => line.startsWith('agent_context_http_requests_total{') && line.includes('status_class="4xx"'));
  assert.ok(series.length >= 5, 'the 4xx answers have series');
  const dir = mkdtempSync(join(tmpdir(), 'airlock-promtool-'));
  writeFileSync(join(dir, 'rules.yml'), [
    'groups:',
    '  - name: agent-context',
    '    rules:',
    '      - alert: AgentContextClientErrors',
    '        expr: sum(increase(agent_context_http_requests_total{status_class="4xx"}[5m])) > 0',
  ].join('\n') + '\n');
  const input = series.map((line) => {
    const [name, value] = [line.slice(0, line.lastIndexOf(' ')), Number(line.slice(line.lastIndexOf(' ') + 1))];
    return `      - series: '${name}'\n        values: '0 ${value}'`;
  });
  writeFileSync(join(dir, 'test.yml'), [
    'rule_files: [rules.yml]',
    'evaluation_interval: 1m',
    'tests:',
    '  - interval: 1m',
    '    input_series:',
    ...input,
    '    alert_rule_test:',
    '      - eval_time: 1m',
    '        alertname: AgentContextClientErrors',
    '        exp_alerts: [{}]',
  ].join('\n') + '\n');
  const tested = spawnSync('promtool', ['test', 'rules', 'test.yml'], { cwd: dir, encoding: 'utf8' });
  assert.equal(tested.status, 0, tested.stdout + tested.stderr);
});
