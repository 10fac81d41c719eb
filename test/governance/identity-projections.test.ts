import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { send, sendJson } from '../helpers/http.ts';
import type { TestResponse } from '../helpers/http.ts';
import { AUTH, serviceOnTempRoot, bearer, evidenceRows } from './_service.ts';
import type { RunningGovernance, TestLane } from './_service.ts';

/** The service's clock: tests move it to expire projections. */
let clock = Date.parse('2026-11-21T12:00:00Z');

let running: RunningGovernance;

serviceOnTempRoot((started) => {
  running = started;
}, { service: { now: () => clock } });

const MAIL = '/api/v1/identity/mail-management';
const ENTITLEMENT = '/api/v1/identity/product-entitlement';
const iso = (offsetSeconds = 0) => new Date(clock + offsetSeconds * 1000).toISOString();

function write(path: string, body: unknown, lane: TestLane, key: string = randomUUID()): Promise<TestResponse> {
  return sendJson(`${running.worker}${path}`, body, { headers: { ...bearer(lane), 'idempotency-key': `"${key}"` } });
}

function decision(base: string, path: string, query: string, lane: TestLane): Promise<TestResponse> {
  return send(`${base}${path}/decision?${query}`, { headers: bearer(lane) });
}

const admin = (mailbox: string, change: { administrator?: Record<string, unknown>; observed_at?: string } = {}) => ({
  scope: { tenant_id: 'tenant-a', mailbox },
  administrator: { subject_id: 'u-1', kind: 'human', role: 'administrator', active: true, ...change.administrator },
  observed_at: change.observed_at ?? iso(-5),
  source: { system: 'directory', record_ref: 'dir:1' },
});

const entitlement = (product: string, state = 'active', validFor = 600, observedAt = iso(-5)) => ({
  scope: { tenant_id: 'tenant-a', product }, entitlement: { state, plan: 'standard' }, observed_at: observedAt, valid_for_seconds: validFor, source: { system: 'billing', record_ref: 'inv:9' },
});

test('mail-management: fresh active human administrator truth is projected and the consumer reads allow for that exact scope', async () => {
  const projected = await write(`${MAIL}/projection`, admin('ops@example.com'), 'mail_producer');
  assert.equal(projected.status, 201, projected.text);
  assert.equal((projected.json() as { effect: string }).effect, 'projected');
  for (const base of [running.worker!, running.platform!]) {
    const read = await decision(base, MAIL, 'tenant_id=tenant-a&mailbox=OPS@example.com', 'mail_consumer');
    assert.equal(read.status, 200, read.text);
    const body = read.json() as { decision: string; grants: Record<string, boolean>; scope: Record<string, string> };
    assert.deepEqual([body.decision, body.grants['mail_management'], body.scope['mailbox']], ['allow', true, 'ops@example.com']);
  }
  const other = (await decision(running.platform!, MAIL, 'tenant_id=tenant-b&mailbox=ops@example.com', 'mail_consumer')).json() as { decision: string; reason: string };
  assert.deepEqual([other.decision, other.reason], ['deny', 'no_projection'], 'another tenant is another scope');
});

test('mail-management: each token is refused on the other\'s route, and so is every other lane', async () => {
  const body = admin('lanes@example.com');
  // The worker gate opens a lane token only on its own routes (401 elsewhere); the operator passes it and the route says 403.
  assert.equal((await write(`${MAIL}/projection`, body, 'mail_consumer')).status, 401);
  for (const lane of ['operator', 'bff', 'entitlement_producer'] as const) assert.equal((await write(`${MAIL}/projection`, body, lane)).status, lane === 'operator' ? 403 : 401, lane);
  for (const lane of ['mail_producer', 'bff', 'entitlement_consumer'] as const) {
    assert.equal((await decision(running.platform!, MAIL, 'tenant_id=tenant-a&mailbox=lanes@example.com', lane)).status, 403, lane);
  }
  assert.equal((await decision(running.worker!, MAIL, 'tenant_id=tenant-a&mailbox=lanes@example.com', 'operator')).status, 403);
  assert.equal((await send(`${running.platform}${MAIL}/decision?tenant_id=tenant-a&mailbox=lanes@example.com`)).status, 401);
  assert.equal((await sendJson(`${running.platform}${MAIL}/projection`, body, { headers: bearer('mail_producer') })).status, 404, 'no write on the platform');
});

// [case, observation, write status, effect, decision reason afterwards]
const DENIED: [string, (mailbox: string) => unknown, number, string, string][] = [
  ['stale', (m) => admin(m, { observed_at: iso(-301) }), 422, 'refused', 'no_projection'],
  ['from the future', (m) => admin(m, { observed_at: iso(60) }), 422, 'refused', 'no_projection'],
  ['inactive', (m) => admin(m, { administrator: { active: false } }), 200, 'withdrawn', 'withdrawn'],
  ['non-human', (m) => admin(m, { administrator: { kind: 'service' } }), 200, 'withdrawn', 'withdrawn'],
  ['not an administrator', (m) => admin(m, { administrator: { role: 'member' } }), 200, 'withdrawn', 'withdrawn'],
];

for (const [name, observation, status, effect, reason] of DENIED) {
  test(`mail-management: ${name} truth is not projected and the scope is denied`, async () => {
    const mailbox = `${name.replaceAll(' ', '-')}@example.com`;
    const response = await write(`${MAIL}/projection`, observation(mailbox), 'mail_producer');
    assert.equal(response.status, status, response.text);
    assert.equal((response.json() as { effect: string }).effect, effect);
    const read = (await decision(running.platform!, MAIL, `tenant_id=tenant-a&mailbox=${mailbox}`, 'mail_consumer')).json() as { decision: string; reason: string };
    assert.deepEqual([read.decision, read.reason], ['deny', reason]);
  });
}

test('mail-management: fresh non-qualifying truth withdraws an allowed scope; an older observation cannot override a newer one', async () => {
  const mailbox = 'withdraw@example.com';
  assert.equal((await write(`${MAIL}/projection`, admin(mailbox, { observed_at: iso(-20) }), 'mail_producer')).status, 201);
  assert.equal((await write(`${MAIL}/projection`, admin(mailbox, { observed_at: iso(-10), administrator: { active: false } }), 'mail_producer')).status, 200);
  const late = await write(`${MAIL}/projection`, admin(mailbox, { observed_at: iso(-15) }), 'mail_producer');
  assert.deepEqual([late.status, (late.json() as { reasons: string[] }).reasons], [422, ['superseded']]);
  const read = (await decision(running.platform!, MAIL, `tenant_id=tenant-a&mailbox=${mailbox}`, 'mail_consumer')).json() as { decision: string; reasons: string[] };
  assert.deepEqual([read.decision, read.reasons], ['deny', ['inactive']]);
});

test('mail-management: an ambiguous write scope is refused; a missing or ambiguous exact-scope read is denied (403)', async () => {
  for (const mailbox of ['*@example.com', 'example.com', 'a@example.com,b@example.com']) {
    const response = await write(`${MAIL}/projection`, admin(mailbox), 'mail_producer');
    assert.deepEqual([response.status, (response.json() as { reasons: string[] }).reasons], [422, ['scope_ambiguous']], mailbox);
  }
  for (const [query, reason] of [
    ['tenant_id=tenant-a', 'scope_missing'], ['mailbox=ops@example.com', 'scope_missing'], ['tenant_id=tenant-a&mailbox=', 'scope_missing'],
    ['tenant_id=tenant-a&mailbox=*@example.com', 'scope_ambiguous'], ['tenant_id=tenant-a&mailbox=ops@example.com&mailbox=x@example.com', 'scope_ambiguous'],
  ] as const) {
    const response = await decision(running.platform!, MAIL, query, 'mail_consumer');
    assert.equal(response.status, 403, query);
    assert.deepEqual([(response.json() as { decision: string }).decision, (response.json() as { reason: string }).reason], ['deny', reason], query);
  }
});

test('mail-management: a projection expires 3600 s after its observation', async () => {
  const mailbox = 'expiry@example.com';
  assert.equal((await write(`${MAIL}/projection`, admin(mailbox), 'mail_producer')).status, 201);
  const saved = clock;
  try {
    clock += 3600 * 1000;
    const read = (await decision(running.platform!, MAIL, `tenant_id=tenant-a&mailbox=${mailbox}`, 'mail_consumer')).json() as { decision: string; reason: string };
    assert.deepEqual([read.decision, read.reason], ['deny', 'expired']);
  } finally {
    clock = saved;
  }
});

test('mail-management writes refuse bad input: schema failures, a missing or replayed Idempotency-Key; every outcome leaves evidence', async () => {
  const before = (await evidenceRows(running))['identity_projections'] ?? 0;
  const bad = [
    { ...admin('x@example.com'), observed_at: 'yesterday' },
    { ...admin('x@example.com'), administrator: { subject_id: 'u', kind: 'human', role: 'administrator' } },
    { ...admin('x@example.com'), grants: ['all'] },
  ];
  for (const body of bad) assert.equal((await write(`${MAIL}/projection`, body, 'mail_producer')).status, 422, JSON.stringify(body));
  assert.equal((await evidenceRows(running))['identity_projections'] ?? 0, before, 'a schema failure stores nothing');
  assert.equal((await sendJson(`${running.worker}${MAIL}/projection`, admin('x@example.com'), { headers: bearer('mail_producer') })).status, 400);
  const body = admin('replay@example.com');
  const first = await write(`${MAIL}/projection`, body, 'mail_producer', 'mail-key');
  const again = await write(`${MAIL}/projection`, body, 'mail_producer', 'mail-key');
  assert.deepEqual([again.status, again.headers['idempotent-replayed'], again.text], [201, 'true', first.text]);
  assert.equal((await write(`${MAIL}/projection`, admin('other@example.com'), 'mail_producer', 'mail-key')).status, 422);
  assert.equal((await write(`${MAIL}/projection`, admin('stale@example.com', { observed_at: iso(-900) }), 'mail_producer')).status, 422);
  assert.equal((await evidenceRows(running))['identity_projections'], before + 2, 'the projection and the refused stale one');
});

test('product-entitlement: an active entitlement to a known product is allowed for its window; other states, unknown products and stale truth deny', async () => {
  assert.equal((await write(`${ENTITLEMENT}/projection`, entitlement('governance', 'active', 600), 'entitlement_producer')).status, 201);
  const allowed = (await decision(running.platform!, ENTITLEMENT, 'tenant_id=tenant-a&product=governance', 'entitlement_consumer')).json() as { decision: string; grants: Record<string, boolean> };
  assert.deepEqual([allowed.decision, allowed.grants['product_entitlement']], ['allow', true]);
  const saved = clock;
  clock += 601 * 1000;
  const expired = (await decision(running.platform!, ENTITLEMENT, 'tenant_id=tenant-a&product=governance', 'entitlement_consumer')).json() as { reason: string };
  clock = saved;
  assert.equal(expired.reason, 'expired');

  const unknown = await write(`${ENTITLEMENT}/projection`, entitlement('teleport'), 'entitlement_producer');
  assert.deepEqual([unknown.status, (unknown.json() as { reasons: string[] }).reasons], [422, ['unknown_product']]);
  assert.equal((await write(`${ENTITLEMENT}/projection`, entitlement('governance', 'active', 600, iso(-400)), 'entitlement_producer')).status, 422);
  assert.equal((await write(`${ENTITLEMENT}/projection`, entitlement('governance', 'suspended'), 'entitlement_producer')).status, 200);
  const suspended = (await decision(running.platform!, ENTITLEMENT, 'tenant_id=tenant-a&product=governance', 'entitlement_consumer')).json() as { decision: string; reasons: string[] };
  assert.deepEqual([suspended.decision, suspended.reasons], ['deny', ['suspended']]);
  assert.equal((await write(`${ENTITLEMENT}/projection`, entitlement('governance', 'active', 3601), 'entitlement_producer')).status, 422, 'a window over 3600 s fails the schema');
  assert.equal((await decision(running.platform!, ENTITLEMENT, 'tenant_id=tenant-a', 'entitlement_consumer')).status, 403);
  assert.equal((await decision(running.platform!, ENTITLEMENT, 'tenant_id=tenant-a&product=governance', 'mail_consumer')).status, 403);
  assert.equal((await write(`${ENTITLEMENT}/projection`, entitlement('governance'), 'mail_producer')).status, 401);
  assert.equal((await write(`${ENTITLEMENT}/projection`, entitlement('governance'), 'entitlement_consumer')).status, 401);
});

test('POST /api/v1/context-composer/context composes admitted sources only and refuses caller-supplied authority', async () => {
  const url = `${running.worker}/api/v1/context-composer/context`;
  const composed = await sendJson(url, { role: 'agent', module_key: 'contract-publication', include: ['bootstrap', 'action_context', 'methodology'] }, { headers: AUTH });
  assert.equal(composed.status, 200, composed.text);
  const body = composed.json() as { context: Record<string, any>; sources: { member: string; artifact: { sha256: string } }[]; authority: string };
  assert.deepEqual(Object.keys(body.context), ['bootstrap', 'action_context', 'methodology']);
  assert.equal(body.context['bootstrap'].role, 'agent');
  assert.deepEqual(body.context['action_context'].admitted_action_intents, ['read_contract', 'read_drift', 'read_readiness']);
  assert.ok(body.sources.every((s) => /^[0-9a-f]{64}$/.test(s.artifact.sha256)));
  assert.match(body.authority, /^none/);
  const refused: [unknown, number][] = [
    [{ role: 'agent', include: ['bootstrap'], authority: 'admin' }, 422],
    [{ role: 'agent', include: ['bootstrap'], grants: { write: true } }, 422],
    [{ role: 'agent', include: ['bootstrap', 'secrets'] }, 422],
    [{ role: 'root', include: ['bootstrap'] }, 422],
    [{ role: 'agent', include: ['action_context'] }, 422],
    [{ role: 'agent', module_key: 'no-such-module', include: ['action_context'] }, 422],
    [{ role: 'agent', module_key: 'no-such-module', include: ['methodology'] }, 422],
  ];
  for (const [request, status] of refused) assert.equal((await sendJson(url, request, { headers: AUTH })).status, status, JSON.stringify(request));
  assert.equal((await sendJson(url, { role: 'agent', include: ['bootstrap'] }, { headers: bearer('bff') })).status, 401);
});

test('mail-management: a tenant and mailbox that would spell another scope when joined never share its decision', async () => {
  const trick = { ...admin('evil/ops@example.com'), scope: { tenant_id: 'acme', mailbox: 'evil/ops@example.com' } };
  await write(`${MAIL}/projection`, trick, 'mail_producer');
  const read = await decision(running.platform!, MAIL, 'tenant_id=acme/evil&mailbox=ops@example.com', 'mail_consumer');
  assert.equal((read.json() as { decision: string }).decision, 'deny', read.text);
});

test('identity projections refuse a leap-second observed_at with 422 and record nothing', async () => {
  const before = (await evidenceRows(running))['identity_projections'];
  const leap = await write(`${MAIL}/projection`, admin('leap@example.com', { observed_at: '2016-12-31T23:59:60Z' }), 'mail_producer');
  assert.equal(leap.status, 422, leap.text);
  const leapEntitlement = await write(`${ENTITLEMENT}/projection`, entitlement('airlock-core', 'active', 600, '2016-12-31T23:59:60Z'), 'entitlement_producer');
  assert.equal(leapEntitlement.status, 422, leapEntitlement.text);
  assert.equal((await evidenceRows(running))['identity_projections'], before);
});
