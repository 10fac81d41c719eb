// The open self-description routes answer without a token and describe exactly what runs; every
// internal route refuses no token and a wrong one; /metrics is Prometheus text that promtool
// accepts; the drift summary finds what the governance manifest declares differently.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { manifest } from '../../src/agent-context/manifest.ts';
import { send } from '../helpers/http.ts';
import { AUTH, startStack } from './_stack.ts';
import type { Stack } from './_stack.ts';

const REPO = join(import.meta.dirname, '..', '..');
let stack: Stack;
before(async () => (stack = await startStack()));
after(() => stack.stop());

test('the open routes answer without a token', async () => {
  const health = await send(`${stack.url}/health`);
  assert.equal(health.status, 200);
  assert.match(health.headers['content-type'] ?? '', /application\/health\+json/);
  const ready = (await send(`${stack.url}/ready`)).json() as Record<string, any>;
  assert.equal(ready['status'], 'pass');
  assert.deepEqual(ready['warnings'], []);
  assert.deepEqual(ready['capabilities'], manifest.capabilities);
  assert.equal(ready['self_description']['governance_manifest'], '/governance-manifest.json');
  assert.deepEqual((await send(`${stack.url}/version`)).json(), { service: 'agent-context', executable: 'agent-context-api', version: '0.0.0-test', api: 'v1', node: process.version });
  const committed = JSON.parse(readFileSync(join(REPO, 'contracts/api/agent_context_openapi_v1.json'), 'utf8'));
  assert.deepEqual((await send(`${stack.url}/openapi.json`)).json(), committed);
  const entry = JSON.parse(readFileSync(join(REPO, 'governance-manifest.json'), 'utf8')).services.find((s: { service: string }) => s.service === 'agent-context');
  assert.deepEqual((await send(`${stack.url}/governance-manifest.json`)).json(), entry);
  assert.equal((await send(`${stack.url}/health`, { method: 'HEAD' })).status, 200);
  assert.equal((await send(`${stack.url}/metrics`, { method: 'POST' })).status, 405);
});

test('every internal route refuses no token and a wrong token with 401 and a Bearer challenge', async () => {
  const internal = manifest.routes.filter((r) => r.auth !== 'none');
  assert.equal(internal.length, 15);
  for (const route of internal) {
    const path = route.path.replace(':run_id', 'run-1').replace(':proposal_id', 'proposal-1');
    for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: 'Bearer ' }, { authorization: 'test-agent-context-token-0001' }]) {
      const response = await send(`${stack.url}${path}`, { method: route.method, headers: { ...headers, 'content-type': 'application/json' }, body: route.method === 'POST' ? '{}' : undefined });
      assert.equal(response.status, 401, `${route.method} ${path} ${JSON.stringify(headers)}`);
      assert.match(response.headers['www-authenticate'] ?? '', /^Bearer realm="agent-context"/);
      assert.doesNotMatch(response.text, /test-agent-context-token/);
    }
  }
  const metrics = (await send(`${stack.url}/metrics`)).text;
  assert.match(metrics, /^agent_context_auth_refusals_total\{reason="token_missing"\} 15$/m);
  assert.match(metrics, /^agent_context_auth_refusals_total\{reason="token_invalid"\} 45$/m);
});

test('/metrics is text format 0.0.4 with HELP and TYPE for every family, and promtool finds nothing', async () => {
  await send(`${stack.url}/api/v1/drift/summary`, { headers: AUTH });
  const response = await send(`${stack.url}/metrics`);
  assert.equal(response.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
  const families = [...response.text.matchAll(/^# TYPE (\S+) (counter|gauge)$/gm)];
  assert.ok(families.length >= 15);
  for (const [, name, type] of families) {
    assert.match(response.text, new RegExp(`^# HELP ${name} \\S`, 'm'), name!);
    if (type === 'counter') assert.match(name!, /_total$/);
  }
  for (const family of ['http_requests_total', 'evidence_rows', 'uptime_seconds', 'drift_findings', 'outbox_events_total', 'control_agent_paused', 'governance_requests_total']) {
    assert.match(response.text, new RegExp(`^# TYPE agent_context_${family} `, 'm'), family);
  }
  const promtool = spawnSync('promtool', ['check', 'metrics'], { input: response.text, encoding: 'utf8' });
  if (promtool.error) assert.fail('promtool is not installed: run bash scripts/install_promtool.sh (Debian package prometheus)');
  assert.equal(promtool.status, 0, promtool.stdout + promtool.stderr);
  assert.equal((promtool.stdout + promtool.stderr).trim(), '');
});

test('the drift summary reports what the governance manifest declares differently', async () => {
  const drifted = await startStack({
    editRoot: (root) => root.editJson('governance-manifest.json', (m) => {
      const entry = m.services.find((s: { service: string }) => s.service === 'agent-context');
      entry.capabilities = entry.capabilities.filter((c: string) => c !== 'drift-summary').concat('voice-bridge');
      entry.exposed_surfaces = entry.exposed_surfaces.slice(1);
    }),
  });
  try {
    const body = (await send(`${drifted.url}/api/v1/drift/summary`, { headers: AUTH })).json() as { drift: boolean; findings: { kind: string; detail: string }[] };
    assert.equal(body.drift, true);
    assert.deepEqual(body.findings.map((f) => f.kind).sort(), ['capability_not_declared', 'capability_not_served', 'surface_count_differs']);
    assert.match(body.findings.find((f) => f.kind === 'capability_not_served')!.detail, /voice-bridge/);
    assert.match((await send(`${drifted.url}/metrics`)).text, /^agent_context_drift_findings 3$/m);
  } finally {
    await drifted.stop();
  }
  const absent = await startStack({ editRoot: (root) => root.editJson('governance-manifest.json', (m) => void (m.services = m.services.filter((s: { service: string }) => s.service !== 'agent-context'))) });
  try {
    const body = (await send(`${absent.url}/api/v1/drift/summary`, { headers: AUTH })).json() as { findings: { kind: string }[] };
    assert.deepEqual(body.findings.map((f) => f.kind), ['service_not_declared']);
  } finally {
    await absent.stop();
  }
});
