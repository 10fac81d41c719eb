import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { send, sendJson } from '../helpers/http.ts';
import type { TestResponse } from '../helpers/http.ts';
import { AUTH, serviceOnTempRoot, bearer } from './_service.ts';
import type { RunningGovernance } from './_service.ts';


let running: RunningGovernance;

serviceOnTempRoot((started) => {
  running = started;
});

const SESSION = 'ps_11111111-2222-4333-8444-555555555555';

function record(family: string, body: unknown, key: string = randomUUID(), headers: Record<string, string> = AUTH): Promise<TestResponse> {
  return sendJson(`${running.worker}/api/v1/events/outbox/${family}`, body, { headers: { ...headers, 'idempotency-key': `"${key}"` } });
}

const decided = (revision = 2) => ({ event: 'planning.owner_decision_recorded', occurred_at: '2026-11-21T12:00:00Z', payload: { session_id: SESSION, revision, decision: 'approved', planning_event_seq: 7 }, correlation_id: SESSION });

interface Page {
  records: { seq: number; family: string; event: string; source: string; payload: Record<string, unknown>; sha256: string; prev_sha256: string }[];
  next_after_seq: number | null;
}

async function page(query = ''): Promise<Page> {
  const response = await send(`${running.platform}/api/v1/events/publishing/outbox${query}`);
  assert.equal(response.status, 200, response.text);
  return response.json() as Page;
}

test('POST /api/v1/events/outbox/{family} appends a catalog event to the hash-chained outbox, readable in order on the publishing route', async () => {
  const first = await record('planning', decided(2));
  assert.equal(first.status, 201, first.text);
  const second = await record('planning', decided(3));
  const [a, b] = [first.json() as { seq: number; sha256: string }, second.json() as { seq: number; sha256: string }];
  assert.ok(b.seq > a.seq);
  const records = (await page()).records;
  const mine = records.filter((r) => r.seq === a.seq || r.seq === b.seq);
  assert.deepEqual(mine.map((r) => [r.family, r.event, r.source, r.payload['revision']]), [['planning', 'planning.owner_decision_recorded', 'outbox_api', 2], ['planning', 'planning.owner_decision_recorded', 'outbox_api', 3]]);
  for (let i = 1; i < records.length; i++) assert.equal(records[i]!.prev_sha256, records[i - 1]!.sha256, 'each record chains to the one before');
  assert.equal(records.at(-1)!.sha256, b.sha256);
});

test('the outbox also carries the events of governance\'s own writes, and pages with after_seq and limit', async () => {
  const tool = { identity: { tool_name: 'outbox_probe_tool', owner: 'nobody' }, classification: { capability_class: 'read_only', runtime_kind: 'cli', release_channel: 'internal', lifecycle_stage: 'active' }, contract_families: [{ family: 'contracts', usage: 'consumer' }], compatibility: { mode: 'none' }, lifecycle: { stage: 'active', deprecation_policy: 'none yet' }, verify: { entrypoint: 'x', live_target: '/health' }, readiness_targets: ['/health'], boundaries: { exclusions: [], fail_closed_conditions: ['x'] }, docs_evidence: { entrypoint: 'x.md', tool_profile: 'x', integrations: 'x', capabilities: 'x', api: 'x', oss_inventory: 'x', compatibility_posture: 'x', verify_metadata: 'x' } };
  assert.equal((await sendJson(`${running.worker}/api/v1/tools/admission/dry-run`, tool, { headers: AUTH })).status, 200);
  const all = (await page('?limit=1000')).records;
  const own = all.find((r) => r.event === 'admission.dry_run_recorded' && r.payload['tool_name'] === 'outbox_probe_tool');
  assert.ok(own, 'the dry run announced itself');
  assert.deepEqual([own.family, own.source, own.payload['verdict']], ['admission', 'governance', 'red']);
  const first = await page('?limit=1');
  assert.equal(first.records.length, 1);
  assert.equal(first.next_after_seq, first.records[0]!.seq);
  const rest = await page(`?after_seq=${first.next_after_seq}&limit=1000`);
  assert.deepEqual([...first.records, ...rest.records].map((r) => r.seq), all.map((r) => r.seq));
  for (const bad of ['?limit=0', '?limit=1001', '?after_seq=-1', '?after_seq=x', '?limit=1&limit=2']) assert.equal((await send(`${running.platform}/api/v1/events/publishing/outbox${bad}`)).status, 422, bad);
});

test('outbox records are validated against the event catalog: unknown or disabled events, another family\'s event, and payloads off their schema are 422', async () => {
  const cases: [string, string, unknown, RegExp][] = [
    ['an unknown event', 'planning', { ...decided(), event: 'planning.teleported' }, /not an enabled catalog event/],
    ['an event of another family', 'admission', decided(), /not an enabled catalog event of family \\"admission/],
    ['a planned event', 'planning', { ...decided(), event: 'projection.verification_receipted' }, /not an enabled catalog event/],
    ['a payload missing a field', 'planning', { ...decided(), payload: { session_id: SESSION, revision: 2, decision: 'approved' } }, /\/payload/],
    ['a payload with a bad value', 'planning', { ...decided(), payload: { ...decided().payload, decision: 'maybe' } }, /\/payload\/decision/],
    ['a payload with an extra field', 'planning', { ...decided(), payload: { ...decided().payload, grants: true } }, /\/payload/],
    ['no occurred_at', 'planning', { event: 'planning.owner_decision_recorded', payload: decided().payload }, /occurred_at/],
    ['a bad occurred_at', 'planning', { ...decided(), occurred_at: 'noon' }, /occurred_at/],
  ];
  const before = (await page('?limit=1000')).records.length;
  for (const [name, family, body, detail] of cases) {
    const response = await record(family, body);
    assert.equal(response.status, 422, `${name}: ${response.text}`);
    assert.match(response.text, detail, name);
  }
  assert.equal((await page('?limit=1000')).records.length, before, 'nothing refused was appended');
  assert.equal((await record('nowhere', decided())).status, 404, 'not an outbox family');
});

test('outbox writes: the operator only, Idempotency-Key required, a replay appends nothing, another body with the same key is 422', async () => {
  assert.equal((await record('planning', decided(), randomUUID(), bearer('bff'))).status, 401);
  assert.equal((await record('planning', decided(), randomUUID(), {})).status, 401);
  assert.equal((await sendJson(`${running.worker}/api/v1/events/outbox/planning`, decided(), { headers: AUTH })).status, 400);
  const first = await record('planning', decided(4), 'outbox-key');
  const count = (await page('?limit=1000')).records.length;
  const replay = await record('planning', decided(4), 'outbox-key');
  assert.deepEqual([replay.status, replay.headers['idempotent-replayed'], replay.text], [201, 'true', first.text]);
  assert.equal((await page('?limit=1000')).records.length, count);
  assert.equal((await record('planning', decided(5), 'outbox-key')).status, 422);
  assert.equal((await sendJson(`${running.platform}/api/v1/events/outbox/planning`, decided(), { headers: AUTH })).status, 404, 'no write on the platform listener');
});

const supportPayload = (sequence: number) => ({
  event_audit_key: `support_desk:zd-${sequence}`,
  integration_event: 'INT-EVT-2026-00001',
  ticket_id: '4711',
  sequence,
  kind: 'ticket',
  lifecycle: 'open',
  priority: 'normal',
  status_label: 'Open',
  business_refs: [{ doctype: 'Sales Invoice', name: 'ACC-SINV-2026-00001' }],
  attachment_count: 0,
});

test('the support family: an ERP support-desk handoff is schema-checked and readable on GET /api/v1/support-orchestration/handoffs', async () => {
  const ok = await record('support', { event: 'support.ticket_opened', occurred_at: '2026-11-21T12:00:00Z', payload: supportPayload(1), correlation_id: 'support:4711' });
  assert.equal(ok.status, 201, ok.text);
  const seq = (ok.json() as { seq: number }).seq;
  for (const [bad, why] of [
    [{ ...supportPayload(2), priority: 'whenever' }, 'priority off its enum'],
    [{ ...supportPayload(2), extra: 1 }, 'an extra field'],
    [(({ ticket_id: _t, ...rest }) => rest)(supportPayload(2)), 'ticket_id missing'],
    [{ ...supportPayload(2), sequence: '2' }, 'sequence as a string'],
  ] as const) {
    const refused = await record('support', { event: 'support.ticket_updated', occurred_at: '2026-11-21T12:00:00Z', payload: bad });
    assert.equal(refused.status, 422, why);
  }
  assert.equal((await record('support', { ...decided(9) })).status, 422, 'a planning event on the support route');
  const read = await send(`${running.platform}/api/v1/support-orchestration/handoffs`);
  assert.equal(read.status, 200, read.text);
  const body = read.json() as { handoffs: { seq: number; family: string; event: string; payload: Record<string, unknown> }[]; receiver_route: string };
  assert.equal(body.receiver_route, '/api/v1/events/outbox/support');
  assert.deepEqual(body.handoffs.map((h) => [h.seq, h.family, h.event, h.payload['ticket_id']]), [[seq, 'support', 'support.ticket_opened', '4711']]);
  assert.equal((await send(`${running.platform}/api/v1/support-orchestration/handoffs?limit=0`)).status, 422);
});

test('the outbox table keeps only the index its reads use (family, for the support handoffs); the idempotency answers only theirs (key)', () => {
  const sqlite = new DatabaseSync(join(running.dataDir, 'governance.sqlite'), { readOnly: true });
  try {
    const indexes = (table: string) => sqlite.prepare(`SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? ORDER BY name`).all(table).map((row) => row['name']);
    assert.deepEqual(indexes('outbox_records'), ['outbox_records_family']);
    assert.deepEqual(indexes('idempotency_answers'), ['idempotency_answers_key']);
  } finally {
    sqlite.close();
  }
});
