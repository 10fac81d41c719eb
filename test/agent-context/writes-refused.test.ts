// Every write and control route refuses, with a clear 4xx (or a fail-closed 503) and no change of
// state: no token, a wrong token, malformed JSON, a schema failure, an authority context that is
// missing, incomplete, names another intent, or names a module whose governance composition does
// not admit the intent.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { send, sendJson } from '../helpers/http.ts';
import { AUTH, authority, INTENTS, rowCounts, startStack, WRITES } from './_stack.ts';
import type { Stack } from './_stack.ts';

let stack: Stack;
before(async () => (stack = await startStack()));
after(() => stack.stop());


const DOMAIN = ['runtime_patches', 'execution_runs', 'control_commands', 'learning_proposals', 'outbox_events'];

async function refused(path: string, init: { headers?: Record<string, string>; body: string }, status: number, type: RegExp, decisions: number): Promise<void> {
  const before = rowCounts(stack);
  const response = await send(`${stack.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...init.headers }, body: init.body });
  assert.equal(response.status, status, `${path}: ${response.text}`);
  assert.match(response.headers['content-type'] ?? '', /problem\+json/);
  assert.match((response.json() as { type: string }).type, type, path);
  const after = rowCounts(stack);
  for (const table of DOMAIN) assert.equal(after[table], before[table], `${path}: ${table} unchanged`);
  assert.equal(after['authority_decisions']! - before['authority_decisions']!, decisions, `${path}: authority decisions recorded`);
}

test('writes refuse a missing or wrong bearer token with 401 before reading the body', async () => {
  for (const [path, intent, body] of WRITES) {
    const text = JSON.stringify({ ...body, authority_context: authority(intent) });
    await refused(path, { body: text }, 401, /token-missing/, 0);
    await refused(path, { headers: { authorization: 'Bearer not-the-token' }, body: text }, 401, /token-invalid/, 0);
    await refused(path, { headers: { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }, body: text }, 401, /token-invalid/, 0);
  }
});

test('writes refuse malformed JSON (400) and schema failures (422)', async () => {
  for (const [path, intent, body] of WRITES) {
    await refused(path, { headers: AUTH, body: '{"authority_context": ' }, 400, /./, 0);
    await refused(path, { headers: AUTH, body: JSON.stringify({ ...body, authority_context: authority(intent), extra: 1 }) }, 422, /./, 0);
    await refused(path, { headers: AUTH, body: JSON.stringify({ ...body, authority_context: { ...authority(intent), grants: ['all'] } }) }, 422, /./, 0);
    await refused(path, { headers: AUTH, body: JSON.stringify({ ...body, authority_context: { ...authority(intent), role: 'root' } }) }, 422, /./, 0);
  }
  await refused('/api/v1/agent-runtime/patch/apply', { headers: AUTH, body: JSON.stringify({ agent_id: 'agent-1', runtime: 'node', reason: 'x', authority_context: authority(INTENTS.patch) }) }, 422, /./, 0);
  await refused('/api/v1/agent-runtime/patch/apply', { headers: AUTH, body: JSON.stringify({ agent_id: 7, runtime: 'node', version: '1', reason: 'x', authority_context: authority(INTENTS.patch) }) }, 422, /./, 0);
  const big = JSON.stringify({ agent_id: 'a', runtime: 'node', version: '1', reason: 'x'.repeat(70_000), authority_context: authority(INTENTS.patch) });
  await refused('/api/v1/agent-runtime/patch/apply', { headers: AUTH, body: big }, 413, /./, 0);
});

test('writes fail closed with 403 when the authority context is missing or incomplete, and record the refusal', async () => {
  for (const [path, intent, body] of WRITES) {
    await refused(path, { headers: AUTH, body: JSON.stringify(body) }, 403, /authority-context-missing/, 1);
    for (const field of ['role', 'module_key', 'action_intent', 'actor']) {
      const partial = { ...authority(intent) };
      delete partial[field];
      await refused(path, { headers: AUTH, body: JSON.stringify({ ...body, authority_context: partial }) }, 403, /authority-context-incomplete/, 1);
    }
    await refused(path, { headers: AUTH, body: JSON.stringify({ ...body, authority_context: {} }) }, 403, /authority-context-incomplete/, 1);
    // An actor of blanks names nobody: the evidence would record an admitted write by no one.
    await refused(path, { headers: AUTH, body: JSON.stringify({ ...body, authority_context: { ...authority(intent), actor: ' \t ' } }) }, 403, /authority-context-incomplete/, 1);
  }
  const row = stack.service.store.sqlite.prepare(`SELECT payload FROM authority_decisions ORDER BY seq DESC LIMIT 1`).get();
  assert.equal(JSON.parse(String(row?.['payload'])).reason, 'authority_context_incomplete');
});

test('writes refuse an intent the route does not perform, and a module whose composition does not admit it', async () => {
  for (const [path, intent, body] of WRITES) {
    const other = intent === INTENTS.control ? INTENTS.patch : INTENTS.control;
    await refused(path, { headers: AUTH, body: JSON.stringify({ ...body, authority_context: authority(other) }) }, 403, /action-intent-mismatch/, 1);
    const readOnly = { ...authority(intent), module_key: 'contract-publication' };
    await refused(path, { headers: AUTH, body: JSON.stringify({ ...body, authority_context: readOnly }) }, 403, /action-intent-not-admitted/, 1);
    const unknown = { ...authority(intent), module_key: 'no-such-module' };
    await refused(path, { headers: AUTH, body: JSON.stringify({ ...body, authority_context: unknown }) }, 403, /authority-not-projected/, 1);
  }
});

test('a write answers 405 to GET and 404 off the table', async () => {
  assert.equal((await send(`${stack.url}/api/v1/control-agent/pause`, { headers: AUTH })).status, 405);
  assert.equal((await sendJson(`${stack.url}/api/v1/agent-runtime/patch/delete`, {}, { headers: AUTH })).status, 404);
});
