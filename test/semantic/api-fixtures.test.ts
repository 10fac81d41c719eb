import { test } from 'node:test';
import assert from 'node:assert/strict';
import { send, sendJson } from '../helpers/http.ts';
import { deriveId } from '../../src/semantic/digest.ts';
import { FIXTURES_CONTRACT, FIXTURE_NAMES } from '../../src/semantic/fixture-contract.ts';
import { FIXTURE_PREFIX } from '../../src/semantic/routes.ts';
import { databaseDigest } from './fixtures/semantic-fixtures.ts';
import { startTestService } from './fixtures/semantic-service.ts';
import type { TestService } from './fixtures/semantic-service.ts';

type Body = Record<string, unknown>;
const F = FIXTURES_CONTRACT.fixtures;

/** Every admitted request of every fixture, from the contract. */
function admittedRequests(): [string, Body | undefined][] {
  const out: [string, Body | undefined][] = [];
  for (const id of F['deletion-restore'].fixture_ids) for (const scope_type of Object.keys(F['deletion-restore'].scope_types)) out.push(['deletion-restore', { fixture_id: id, scope_type }]);
  for (const id of F['temporal-ontology'].fixture_ids) out.push(['temporal-ontology', { fixture_id: id }]);
  for (const id of F['entity-conflict'].fixture_ids) for (const scenario of Object.keys(F['entity-conflict'].scenarios)) out.push(['entity-conflict', { fixture_id: id, scenario }]);
  for (const id of F['retrieval-gate'].fixture_ids) for (const scenario of Object.keys(F['retrieval-gate'].scenarios)) out.push(['retrieval-gate', { fixture_id: id, scenario }]);
  out.push(['context-security', undefined], ['context-security', {}]);
  for (const id of F['poison-mutation'].fixture_ids) for (const label of Object.keys(F['poison-mutation'].labels)) out.push(['poison-mutation', { fixture_id: id, label }]);
  out.push(['canary-activation', undefined], ['canary-activation', {}]);
  return out;
}

function callFixture(s: TestService, name: string, body: Body | undefined) {
  const url = `${s.url}${FIXTURE_PREFIX}/${name}`;
  return body === undefined ? send(url, { method: 'POST', headers: s.operator }) : sendJson(url, body, { headers: s.operator });
}

function withoutClock(body: Body): Body {
  const { issued_at: _i, expires_at: _e, ...rest } = body;
  return rest;
}

test('every admitted fixture request answers a synthetic receipt that executed nothing and promotes nothing', async (t) => {
  const s = await startTestService(t);
  const before = databaseDigest(s.store.sqlite);
  const requests = admittedRequests();
  assert.deepEqual([...new Set(requests.map(([name]) => name))], FIXTURE_NAMES);
  for (const [name, body] of requests) {
    const res = await callFixture(s, name, body);
    assert.equal(res.status, 200, `${name} ${JSON.stringify(body)}: ${res.text}`);
    const receipt = res.json() as Body;
    assert.deepEqual(
      [receipt['fixture'], receipt['stage'], receipt['synthetic'], receipt['executed'], receipt['composed_result_executed'], receipt['promotes_runtime_evidence']],
      [name, 'S0', true, false, false, false],
    );
    assert.equal(Date.parse(String(receipt['expires_at'])) - Date.parse(String(receipt['issued_at'])), 900_000);
  }
  assert.equal(databaseDigest(s.store.sqlite), before, 'no fixture reads into or writes the database');
});

test('every fixture is deterministic: the same request gives the same body apart from the clock, another request another body', async (t) => {
  const s = await startTestService(t);
  const seen = new Map<string, string>();
  for (const [name, body] of admittedRequests()) {
    const first = (await callFixture(s, name, body)).json() as Body;
    s.advance(61_000);
    const again = (await callFixture(s, name, body)).json() as Body;
    assert.deepEqual(withoutClock(again), withoutClock(first), name);
    assert.notEqual(again['issued_at'], first['issued_at']);
    const key = `${name} ${JSON.stringify(body ?? {})}`;
    const other = [...seen].find(([, sha]) => sha === first['receipt_sha256']);
    if (body !== undefined && Object.keys(body).length > 0) assert.equal(other, undefined, `${key} shares its receipt with ${other?.[0]}`);
    seen.set(key, String(first['receipt_sha256']));
  }
});

test('deletion-restore derives every scope key from fixture id and scope type, and lists the eight receipts', async (t) => {
  const s = await startTestService(t);
  const body = (await callFixture(s, 'deletion-restore', { fixture_id: 'deletion-restore.tenant-001', scope_type: 'tenant' })).json() as Body;
  const keys = body['scope_keys'] as { kind: string; key: string }[];
  assert.deepEqual(keys.map((k) => k.kind), F['deletion-restore'].scope_types.tenant);
  for (const { kind, key } of keys) assert.equal(key, deriveId('sk', ['deletion-restore', 'deletion-restore.tenant-001', 'tenant', kind]));
  assert.deepEqual((body['receipts'] as { name: string }[]).map((r) => r.name), [
    'ordered_lifecycle', 'shared_fact', 'backup_restore', 'no_resurrection', 'legal_hold', 'retention', 'tombstone_reapply', 'zero_residual_policy',
  ]);
});

test('entity-conflict and poison-mutation answer the posture and evidence the contract assigns', async (t) => {
  const s = await startTestService(t);
  const conflict = (await callFixture(s, 'entity-conflict', { fixture_id: 'entity-conflict.duplicate-customer-001', scenario: 'conflicting_candidates' })).json() as Body;
  assert.equal((conflict['posture'] as Body)['posture'], 'no_winner');
  assert.equal((conflict['posture'] as Body)['winner'], null);
  const poison = (await callFixture(s, 'poison-mutation', { fixture_id: 'poison-mutation.edge-rewrite-001', label: 'mutation' })).json() as Body;
  assert.deepEqual([(poison['evidence'] as Body)['evidence'], (poison['evidence'] as Body)['promotion']], ['rejection', 'blocked']);
});

test('retrieval-gate keeps runtime metrics unavailable at S0 and reads them from the runtime-owner artifact at S1_read_only, never promoting them', async (t) => {
  const request = { fixture_id: 'retrieval-gate.hybrid-001', scenario: 'hybrid_nominal' };
  const s0 = await startTestService(t);
  const atS0 = (await callFixture(s0, 'retrieval-gate', request)).json() as Body;
  for (const metric of Object.values(atS0['runtime_metrics'] as Record<string, Body>)) {
    assert.deepEqual(metric, { status: 'unavailable', reason: 'stage S0: runtime metrics are not materialized through the runtime-owner path' });
  }
  const s1 = await startTestService(t, { SEMANTIC_ACTIVATION_STAGE: 'S1_read_only' });
  const atS1 = (await callFixture(s1, 'retrieval-gate', request)).json() as Body;
  assert.deepEqual(atS1['runtime_metrics'], {
    retrieval_quality_score: { status: 'available', value: 0.82 },
    retrieval_p95_latency_ms: { status: 'available', value: 140 },
    retrieval_error_rate: { status: 'unavailable', reason: 'metric "retrieval_error_rate" is absent from the runtime-owner artifact' },
    warm_cache_hit_ratio: { status: 'unavailable', reason: 'metric "warm_cache_hit_ratio" is absent from the runtime-owner artifact' },
  });
  assert.deepEqual([atS1['promotes_runtime_evidence'], (atS1['runtime_evidence'] as Body)['promoted']], [false, false]);
});

test('canary-activation takes the canary tenant from configuration, or marks it unavailable', async (t) => {
  const configured = (await callFixture(await startTestService(t), 'canary-activation', undefined)).json() as Body;
  assert.equal((configured['canary'] as Body)['tenant_id'], 'canary-tenant-1');
  const unset = (await callFixture(await startTestService(t, { SEMANTIC_CANARY_TENANT_ID: undefined }), 'canary-activation', undefined)).json() as Body;
  assert.deepEqual((unset['canary'] as Body)['tenant_id'], { status: 'unavailable', reason: 'SEMANTIC_CANARY_TENANT_ID is not set' });
});
