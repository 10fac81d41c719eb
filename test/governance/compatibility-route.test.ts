import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { send, sendJson } from '../helpers/http.ts';
import { AUTH, serviceOnTempRoot, bearer, evidenceRows } from './_service.ts';
import type { RunningGovernance } from './_service.ts';
import { REPO } from './_fixtures.ts';

let url: string;

let running: RunningGovernance;

serviceOnTempRoot((started) => {
  running = started;
  url = `${running.worker}/api/v1/contracts/compatibility/check`;
});

const PLANNING = JSON.parse(readFileSync(join(REPO, 'contracts', 'governance', 'schemas', 'planning_v1.schema.json'), 'utf8'));

interface Answer {
  is_compatible: boolean;
  subject: string;
  compared_with: string[];
  messages: { rule: string; pointer: string; message: string; direction: string }[];
  evidence: { table: string; seq: number };
}

test('POST /api/v1/contracts/compatibility/check answers is_compatible and one message per breaking change against an inline schema', async () => {
  const before = await evidenceRows(running);
  const response = await sendJson(url, { mode: 'FULL', previous: { type: 'object', properties: { id: { type: 'string' } } }, proposed: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] } }, { headers: AUTH });
  assert.equal(response.status, 200, response.text);
  const body = response.json() as Answer;
  assert.equal(body.is_compatible, false);
  assert.deepEqual(body.messages.map((m) => [m.direction, m.rule, m.pointer]).sort(), [
    ['backward', 'required_property_added', '/properties/id'],
    ['backward', 'type_narrowed', '/properties/id'],
    ['forward', 'type_widened', '/properties/id'],
  ]);
  assert.equal(body.subject, 'inline');
  const after = await evidenceRows(running);
  assert.equal(after['compatibility_checks'], (before['compatibility_checks'] ?? 0) + 1, 'one evidence row');
});

test('compatibility check against a contract family reads its versions from the contract schemas', async () => {
  const same = (await sendJson(url, { mode: 'FULL_TRANSITIVE', family: 'planning', proposed: PLANNING }, { headers: AUTH })).json() as Answer;
  assert.deepEqual([same.is_compatible, same.compared_with, same.subject], [true, ['planning_v1'], 'planning']);
  const stricter = structuredClone(PLANNING);
  stricter.properties.content.required.push('materialization');
  const answer = (await sendJson(url, { mode: 'BACKWARD', family: 'planning', proposed: stricter, proposed_version: 'planning_v2' }, { headers: AUTH })).json() as Answer;
  assert.equal(answer.is_compatible, false);
  assert.deepEqual(answer.messages.map((m) => [m.rule, m.pointer]), [['required_property_added', '/properties/content/properties/materialization']]);
  assert.equal(((await sendJson(url, { mode: 'FORWARD', family: 'planning', proposed: stricter }, { headers: AUTH })).json() as Answer).is_compatible, true);
});

test('compatibility check refuses bad input: schema failures (422), an unusable schema (422), an unknown family (404), the wrong lane (403), no token (401)', async () => {
  const cases: [string, unknown, Record<string, string>, number, RegExp?][] = [
    ['no mode', { proposed: {}, previous: {} }, AUTH, 422, /mode/],
    ['unknown mode', { mode: 'SIDEWAYS', proposed: {}, previous: {} }, AUTH, 422],
    ['both previous and family', { mode: 'FULL', proposed: {}, previous: {}, family: 'planning' }, AUTH, 422],
    ['extra field', { mode: 'FULL', proposed: {}, previous: {}, approve: true }, AUTH, 422],
    ['proposed is no schema', { mode: 'FULL', proposed: { type: 12 }, previous: {} }, AUTH, 422, /\/proposed/],
    ['unknown family', { mode: 'BACKWARD', proposed: {}, family: 'nothing_here' }, AUTH, 404, /nothing_here/],
    ['bff token', { mode: 'NONE', proposed: {}, previous: {} }, bearer('bff'), 401],
    ['no token', { mode: 'NONE', proposed: {}, previous: {} }, {}, 401],
  ];
  for (const [name, body, headers, status, detail] of cases) {
    const response = await sendJson(url, body, { headers });
    assert.equal(response.status, status, `${name}: ${response.text}`);
    if (detail) assert.match(response.text, detail, name);
  }
  assert.equal((await send(`${running.platform}/api/v1/contracts/compatibility/check`, { method: 'POST' })).status, 404, 'no write on the platform listener');
});

test('compatibility check honours Idempotency-Key: a replay answers the stored response, another body with the same key is 422', async () => {
  const body = { mode: 'BACKWARD', previous: { type: 'string' }, proposed: { type: 'string', maxLength: 3 } };
  const headers = { ...AUTH, 'idempotency-key': '"compat-key-1"' };
  const first = await sendJson(url, body, { headers });
  const again = await sendJson(url, body, { headers });
  assert.equal(again.status, 200);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.equal(again.text, first.text);
  const other = await sendJson(url, { ...body, mode: 'FORWARD' }, { headers });
  assert.equal(other.status, 422);
  assert.match(other.text, /Idempotency-Key/);
});

test('mode names follow one spelling rule in the check and the dry-run: either case, answered in upper case', async () => {
  for (const mode of ['backward', 'BACKWARD', 'full_transitive', 'FULL_TRANSITIVE']) {
    const response = await sendJson(url, { mode, previous: { type: 'string' }, proposed: { type: 'string' } }, { headers: AUTH });
    assert.equal(response.status, 200, `${mode}: ${response.text}`);
    assert.equal((response.json() as { mode: string }).mode, mode.toUpperCase());
  }
  assert.equal((await sendJson(url, { mode: 'Backward', previous: {}, proposed: {} }, { headers: AUTH })).status, 422, 'mixed case is neither spelling');
  const schema = JSON.parse(readFileSync(join(REPO, 'contracts', 'governance', 'schemas', 'admission_dry_run_input_v1.schema.json'), 'utf8'));
  const check = JSON.parse(readFileSync(join(REPO, 'contracts', 'governance', 'schemas', 'compatibility_check_input_v1.schema.json'), 'utf8'));
  assert.deepEqual([...schema.properties.compatibility.properties.mode.enum].sort(), [...check.properties.mode.enum].sort(), 'the dry-run and the check accept the same names');
});
