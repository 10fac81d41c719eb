import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { send, sendJson } from '../helpers/http.ts';
import type { TestResponse } from '../helpers/http.ts';
import { AUTH, serviceOnTempRoot, bearer, evidenceRows } from './_service.ts';
import type { RunningGovernance, TestLane } from './_service.ts';

let worker: string;
let platform: string;

let running: RunningGovernance;

serviceOnTempRoot((started) => {
  running = started;
  worker = `${running.worker}/api/v1/planning/sessions`;
  platform = `${running.platform}/api/v1/planning/sessions`;
});

/** A POST as `lane` with a fresh Idempotency-Key unless one is given. */
function post(url: string, body: unknown, lane: TestLane, key: string = randomUUID()): Promise<TestResponse> {
  return sendJson(url, body, { headers: { ...bearer(lane), 'idempotency-key': `"${key}"` } });
}

function json<T = Record<string, any>>(response: TestResponse): T {
  return response.json() as T;
}

const SECRET_INTENT = 'Deploy the ledger patch to tenant alpha using credentials kept in vault path x/y';

function newSession(extra: Record<string, unknown> = {}) {
  return { title: 'Quarter close checklist', goal: 'Plan the quarter-close work', requested_by: { kind: 'human', subject_id: 'u-17' }, modules: ['contract-publication', 'no-such-module'], suggested_refs: [{ kind: 'issue', ref: '#12' }], ...extra };
}

async function create(): Promise<string> {
  const response = await post(worker, newSession(), 'bff');
  assert.equal(response.status, 201, response.text);
  return json<{ session_id: string }>(response).session_id;
}

const turn = (revision: number, kind = 'human', turnId: string = randomUUID()) => ({ turn_id: turnId, based_on_revision: revision, question: 'Which ledgers?', answer: 'Both EU ledgers', answered_by: { kind, subject_id: 'u-17' } });
const round = (revision: number, score?: number) => ({
  revision, package_intent: { kind: 'plan_package', refs: ['#12'], body: SECRET_INTENT }, reviewer_summary: 'Looks complete', round_synthesis: 'Ready for the owner',
  ...(score === undefined ? {} : { score: { value: score, rubric: 'completeness' } }),
});
const decision = (revision: number, value = 'approved') => ({ decision: value, revision, rationale: 'Reviewed' });

test('planning: an owner decision is not actionable until score, human-in-loop and owner-packet readbacks exist; then it grants nothing', async () => {
  const id = await create();
  const url = `${worker}/${id}`;

  let refused = await post(`${url}/owner-decision`, decision(1), 'operator');
  assert.equal(refused.status, 409);
  assert.deepEqual(json(refused)['missing_readbacks'], ['score', 'human_in_loop', 'owner_packet_source']);

  assert.equal((await post(`${url}/turns`, turn(1), 'bff')).status, 201);
  assert.equal((await post(`${url}/review-rounds`, round(2), 'operator')).status, 201);
  refused = await post(`${url}/owner-decision`, decision(2), 'operator');
  assert.deepEqual([refused.status, json(refused)['missing_readbacks']], [409, ['score']]);

  const scored = await post(`${url}/review-rounds`, round(2, 0.9), 'operator');
  assert.equal(scored.status, 201);
  assert.deepEqual(json(scored)['authority'], { provider_execution: false, score_approval: false, human_in_loop_approval: false, materialization: false, execution: false });

  const more = await post(`${url}/owner-decision`, decision(2, 'needs_more_context'), 'operator');
  assert.equal(more.status, 201, more.text);
  assert.deepEqual(json(more)['grants'], { materialization: false, provider_execution: false, domain_write: false });
  assert.deepEqual([json(more)['resume_state'].posture, json(more)['resume_state'].next_step], ['needs_more_context', 'answer_turn']);

  assert.equal((await post(`${url}/turns`, turn(2), 'bff')).status, 201);
  refused = await post(`${url}/owner-decision`, decision(3), 'operator');
  assert.deepEqual([refused.status, json(refused)['missing_readbacks']], [409, ['owner_packet_source']], 'a new revision needs its own review round');
  assert.equal((await post(`${url}/review-rounds`, round(3), 'operator')).status, 201);
  const approved = await post(`${url}/owner-decision`, decision(3), 'operator');
  assert.equal(approved.status, 201);

  const readback = json(await send(`${url}/owner-decision`, { headers: AUTH }));
  assert.equal(readback['decision'].decision, 'approved');
  assert.deepEqual(readback['grants'], { materialization: false, provider_execution: false, domain_write: false });
  assert.equal(readback['actionable'], false);
  assert.equal(json(await send(`${url}/materialization-admission`, { headers: AUTH }))['admitted'], false, 'an approval admits no materialization');

  const closedTurn = await post(`${url}/turns`, turn(3), 'bff');
  const closedDecision = await post(`${url}/owner-decision`, decision(3, 'rejected'), 'operator');
  assert.deepEqual([closedTurn.status, json(closedTurn)['reason'], closedDecision.status], [409, 'session_closed', 409]);
});

test('planning readbacks: current revision, redacted review bundle, score gate, execution context, ledger, resume state, on both listeners', async () => {
  const id = await create();
  await post(`${worker}/${id}/turns`, turn(1), 'bff');
  await post(`${worker}/${id}/review-rounds`, round(2, 0.5), 'operator');
  const read = async (path: string) => {
    const onPlatform = await send(`${platform}/${id}${path}`, { headers: bearer('bff') });
    const onWorker = await send(`${worker}/${id}${path}`, { headers: AUTH });
    assert.equal(onPlatform.status, 200, `${path}: ${onPlatform.text}`);
    assert.equal(onWorker.text, onPlatform.text, `${path}: the same readback on both listeners`);
    assert.ok(!onPlatform.text.includes(SECRET_INTENT), `${path} never shows the package intent body`);
    return json(onPlatform);
  };
  const session = await read('');
  assert.deepEqual([session['projection_state'], session['state'], session['current_revision'].revision], ['published', 'open', 2]);
  assert.equal(session['current_revision'].detail.turns[0].answer, 'Both EU ledgers');

  const bundle = await read('/review-bundle');
  assert.equal(bundle['round_synthesis'], 'Ready for the owner');
  assert.deepEqual(bundle['rounds'][0].package_intent, { kind: 'plan_package', refs: ['#12'], redacted: true, body_sha256: createHash('sha256').update(SECRET_INTENT).digest('hex'), body_length: SECRET_INTENT.length });

  const gate = await read('/score-gate');
  assert.deepEqual([gate['readback'], gate['threshold'], gate['passed']], ['present', 0.7, false]);

  const materialization = await read('/materialization-admission');
  assert.deepEqual([materialization['projection_state'], materialization['admitted']], ['awaiting_transport_owner', false]);

  const context = await read('/execution-context');
  assert.deepEqual(context['admitted_action_intents'], [{ module_key: 'contract-publication', intents: ['read_contract', 'read_drift', 'read_readiness'] }]);
  assert.deepEqual([context['refused_modules'], context['suggested_refs']], [['no-such-module'], [{ kind: 'issue', ref: '#12' }]]);

  const ledger = await read('/revision-ledger');
  assert.deepEqual(ledger['entries'].map((e: { kind: string }) => e.kind), ['session_created', 'turn_answered', 'review_round_started']);
  assert.equal(ledger['append_only'], true);

  const resume = await read('/resume-state');
  assert.deepEqual([resume['posture'], resume['next_step'], resume['next_lane'], resume['missing_readbacks']], ['awaiting_owner_decision', 'owner_decision', 'operator', []]);
  assert.equal((await read('/resume-state'))['resume_digest'], resume['resume_digest'], 'deterministic');
});

test('planning lanes: create_session and answer_turn admit only the BFF token; review rounds and decisions only the operator; reads BFF or operator (worker)', async () => {
  const id = await create();
  for (const lane of ['operator', 'mail_producer', 'mail_consumer', 'entitlement_producer', 'entitlement_consumer'] as const) {
    // The operator passes the worker gate and the route refuses it (403); another lane's token opens only its own routes (401).
    assert.equal((await post(worker, newSession(), lane)).status, lane === 'operator' ? 403 : 401, `create_session with ${lane}`);
    assert.equal((await post(`${worker}/${id}/turns`, turn(1), lane)).status, lane === 'operator' ? 403 : 401, `answer_turn with ${lane}`);
  }
  for (const lane of ['bff', 'mail_consumer'] as const) {
    assert.equal((await post(`${worker}/${id}/review-rounds`, round(1), lane)).status, 401, `review round with ${lane}`);
    assert.equal((await post(`${worker}/${id}/owner-decision`, decision(1), lane)).status, 401, `owner decision with ${lane}`);
  }
  assert.equal((await sendJson(worker, newSession(), { headers: { 'idempotency-key': '"k"' } })).status, 401);
  assert.equal((await send(`${platform}/${id}`)).status, 401, 'no token on the platform');
  assert.equal((await send(`${platform}/${id}`, { headers: AUTH })).status, 403, 'the operator token stays on the worker');
  assert.equal((await send(`${platform}/${id}`, { headers: bearer('mail_consumer') })).status, 403);
  assert.equal((await send(`${worker}/${id}`, { headers: bearer('bff') })).status, 200);
  assert.equal((await sendJson(`${platform}`, newSession(), { headers: bearer('bff') })).status, 404, 'no write on the platform listener');
  assert.equal((await sendJson(`${platform}/${id}/owner-decision`, decision(1), { headers: AUTH })).status, 405, 'the owner-decision path only reads there');
});

test('planning writes refuse bad input: schema (422), missing or replayed Idempotency-Key, unknown session (404), stale revision and repeated turn (409)', async () => {
  const id = await create();
  const bad: [string, string, unknown, TestLane][] = [
    ['create without goal', worker, { title: 'x', requested_by: { kind: 'human', subject_id: 'u' } }, 'bff'],
    ['create with authority', worker, newSession({ grants: { materialization: true } }), 'bff'],
    ['turn with a bad actor kind', `${worker}/${id}/turns`, { ...turn(1), answered_by: { kind: 'robot', subject_id: 'r' } }, 'bff'],
    ['round with a score above 1', `${worker}/${id}/review-rounds`, round(1, 1.5), 'operator'],
    ['decision with another value', `${worker}/${id}/owner-decision`, decision(1, 'maybe'), 'operator'],
  ];
  for (const [name, url, body, lane] of bad) {
    const response = await post(url, body, lane);
    assert.equal(response.status, 422, `${name}: ${response.text}`);
    assert.ok(json(response)['errors'].length > 0, name);
  }
  assert.equal((await sendJson(worker, newSession(), { headers: bearer('bff') })).status, 400, 'Idempotency-Key is required');
  const first = await post(worker, newSession(), 'bff', 'replayed-key');
  const replay = await post(worker, newSession(), 'bff', 'replayed-key');
  assert.deepEqual([replay.status, replay.headers['idempotent-replayed'], json(replay)['session_id']], [201, 'true', json(first)['session_id']], 'a replay creates no second session');
  assert.equal((await post(worker, newSession({ title: 'Another' }), 'bff', 'replayed-key')).status, 422, 'same key, other body');

  const ghost = 'ps_00000000-0000-4000-8000-000000000000';
  assert.equal((await post(`${worker}/${ghost}/turns`, turn(1), 'bff')).status, 404);
  assert.equal((await send(`${worker}/${ghost}/resume-state`, { headers: AUTH })).status, 404);
  assert.equal((await send(`${worker}/not-an-id`, { headers: AUTH })).status, 404);

  const stale = await post(`${worker}/${id}/turns`, turn(7), 'bff');
  assert.deepEqual([stale.status, json(stale)['reason'], json(stale)['current_revision']], [409, 'revision_conflict', 1]);
  const repeated = turn(1, 'human', 'turn-1');
  assert.equal((await post(`${worker}/${id}/turns`, repeated, 'bff')).status, 201);
  assert.equal(json(await post(`${worker}/${id}/turns`, { ...repeated, based_on_revision: 2 }, 'bff'))['reason'], 'turn_exists');
});

test('planning writes leave evidence and announce themselves in the outbox in the same transaction', async () => {
  const before = await evidenceRows(running);
  const id = await create();
  await post(`${worker}/${id}/turns`, turn(1), 'bff');
  const after = await evidenceRows(running);
  assert.equal(after['planning_events']! - (before['planning_events'] ?? 0), 2);
  assert.equal(after['outbox_records']! - (before['outbox_records'] ?? 0), 2);
});

test('planning readbacks fail closed (503) when a session\'s evidence was altered', async () => {
  const id = await create();
  const sqlite = new DatabaseSync(join(running.dataDir, 'governance.sqlite'));
  try {
    // Only an attacker drops the append-only trigger; the readback must notice the change.
    sqlite.exec('DROP TRIGGER planning_events_no_update');
    sqlite.prepare(`UPDATE planning_events SET payload = replace(payload, 'Quarter close', 'Quarter CLOSE') WHERE session_id = ?`).run(id);
  } finally {
    sqlite.close();
  }
  const response = await send(`${worker}/${id}`, { headers: AUTH });
  assert.equal(response.status, 503);
  assert.deepEqual([json(response)['projection_state'], json(response)['reason']], ['fail_closed', 'evidence_chain_broken']);
});
