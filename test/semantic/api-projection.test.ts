import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sendJson } from '../helpers/http.ts';
import { readOutbox, payloadValidator } from '../../src/semantic/event-outbox.ts';
import { PROJECTION_RECEIPTS } from '../../src/semantic/projection-verification.ts';
import { PROJECTION_PATH } from '../../src/semantic/routes.ts';
import { databaseDigest } from './fixtures/semantic-fixtures.ts';
import { CASE_REF, startTestService } from './fixtures/semantic-service.ts';

const REQUEST = { correlation_id: 'corr-1', source_event_id: 'evt-1', case_ref: CASE_REF };
type Body = Record<string, unknown> & { receipts: Record<string, Record<string, unknown>>; issued_at: string; expires_at: string; receipt_sha256: string };

function withoutClock(body: Body): Record<string, unknown> {
  const { issued_at: _i, expires_at: _e, ...rest } = body;
  return rest;
}

test('projection verification returns the seven synthetic receipts with server-derived tenant and namespace', async (t) => {
  const s = await startTestService(t);
  const res = await sendJson(`${s.url}${PROJECTION_PATH}`, REQUEST, { headers: s.operator });
  assert.equal(res.status, 200);
  const body = res.json() as Body;
  assert.deepEqual(Object.keys(body.receipts), [...PROJECTION_RECEIPTS]);
  for (const receipt of Object.values(body.receipts)) assert.deepEqual([receipt['synthetic'], receipt['executed']], [true, false]);
  assert.deepEqual(body['request'], REQUEST);
  assert.match(String((body['derived'] as Record<string, string>)['fixture_tenant']), /^ts02-fixture-tenant-[0-9a-f]{16}$/);
  assert.deepEqual(body.receipts['latency']!['p95_ms'], { status: 'unavailable', reason: 'S0 synthetic run: no runtime latency is measured' });
  assert.equal(body['composed_result_executed'], false);
});

test('projection verification is deterministic: the same request gives the same body apart from the clock', async (t) => {
  const s = await startTestService(t);
  const first = (await sendJson(`${s.url}${PROJECTION_PATH}`, REQUEST, { headers: s.operator })).json() as Body;
  s.advance(90_000);
  const again = (await sendJson(`${s.url}${PROJECTION_PATH}`, REQUEST, { headers: s.operator })).json() as Body;
  assert.deepEqual(withoutClock(again), withoutClock(first));
  assert.equal(again.receipt_sha256, first.receipt_sha256);
  assert.notEqual(again.issued_at, first.issued_at);
  const other = (await sendJson(`${s.url}${PROJECTION_PATH}`, { ...REQUEST, correlation_id: 'corr-2' }, { headers: s.operator })).json() as Body;
  assert.notEqual(other['run_id'], first['run_id']);
  assert.notEqual(other.receipt_sha256, first.receipt_sha256);
});

test('projection verification receipts live at most one hour (expires_at - issued_at <= 3600 s)', async (t) => {
  for (const ttl of [undefined, '1', '3600']) {
    const s = await startTestService(t, ttl === undefined ? {} : { SEMANTIC_RECEIPT_TTL_SECONDS: ttl });
    const body = (await sendJson(`${s.url}${PROJECTION_PATH}`, REQUEST, { headers: s.operator })).json() as Body;
    const lifetime = (Date.parse(body.expires_at) - Date.parse(body.issued_at)) / 1000;
    assert.equal(lifetime, ttl === undefined ? 900 : Number(ttl));
    assert.ok(lifetime <= 3600);
    assert.equal(body.issued_at, '2026-01-01T12:00:00.000Z', 'from the injected clock');
  }
});

test('projection verification answers 422 to a known correlation id with another body, and stores nothing', async (t) => {
  const s = await startTestService(t);
  assert.equal((await sendJson(`${s.url}${PROJECTION_PATH}`, REQUEST, { headers: s.operator })).status, 200);
  const before = databaseDigest(s.store.sqlite);
  for (const change of [{ source_event_id: 'evt-2' }, { case_ref: 'ts02:case-002' }]) {
    const res = await sendJson(`${s.url}${PROJECTION_PATH}`, { ...REQUEST, ...change }, { headers: s.operator });
    assert.equal(res.status, 422);
    assert.deepEqual((res.json() as { type: string; errors: unknown }).type, 'urn:airlock:problem:correlation_id_conflict');
  }
  assert.equal(databaseDigest(s.store.sqlite), before);
});

test('projection verification records one ledger row and one event per new run, none for a replay', async (t) => {
  const s = await startTestService(t);
  await sendJson(`${s.url}${PROJECTION_PATH}`, REQUEST, { headers: s.operator });
  await sendJson(`${s.url}${PROJECTION_PATH}`, REQUEST, { headers: s.operator });
  const events = readOutbox(s.store.sqlite);
  assert.deepEqual(events.map((e) => e.channel), ['semantic.projection_verification.recorded']);
  assert.ok(payloadValidator(events[0]!.channel).validate(events[0]!.payload).valid);
  assert.equal(Number(s.store.sqlite.prepare('SELECT count(*) AS n FROM projection_verification_runs').get()?.['n']), 1);
  assert.equal(Number(s.store.sqlite.prepare('SELECT count(*) AS n FROM graph_nodes').get()?.['n']), 0, 'nothing projected');
});

test('projection verification answers 403 for a ts02: case ref outside the allowlist and 422 for another prefix', async (t) => {
  const s = await startTestService(t);
  const before = databaseDigest(s.store.sqlite);
  const outside = await sendJson(`${s.url}${PROJECTION_PATH}`, { ...REQUEST, case_ref: 'ts02:case-999' }, { headers: s.operator });
  assert.equal(outside.status, 403);
  assert.equal((outside.json() as { detail: string }).detail, 'Cannot admit case ref "ts02:case-999": not in SEMANTIC_PROJECTION_CASE_ALLOWLIST');
  for (const ref of ['ts03:case-001', 'case-001', 'ts02:']) {
    const res = await sendJson(`${s.url}${PROJECTION_PATH}`, { ...REQUEST, case_ref: ref }, { headers: s.operator });
    assert.equal(res.status, 422, ref);
  }
  assert.equal(databaseDigest(s.store.sqlite), before);
});

test('projection verification fails closed with 503 when the allowlist is absent or empty, before reading the body', async (t) => {
  for (const allowlist of [undefined, '', ' , ']) {
    const s = await startTestService(t, { SEMANTIC_PROJECTION_CASE_ALLOWLIST: allowlist });
    const before = databaseDigest(s.store.sqlite);
    const res = await sendJson(`${s.url}${PROJECTION_PATH}`, REQUEST, { headers: s.operator });
    assert.equal(res.status, 503, JSON.stringify(allowlist));
    assert.equal((res.json() as { type: string }).type, 'urn:airlock:problem:projection_allowlist_absent');
    assert.equal((await sendJson(`${s.url}${PROJECTION_PATH}`, { bad: true }, { headers: s.operator })).status, 503);
    assert.equal((await sendJson(`${s.url}${PROJECTION_PATH}`, REQUEST)).status, 401, 'the token is still checked first');
    assert.equal(databaseDigest(s.store.sqlite), before);
  }
});
