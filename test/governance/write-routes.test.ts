import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { send, sendJson } from '../helpers/http.ts';
import { WRITE_ROUTES } from '../../src/governance/routes.ts';
import { bearer, serviceOnTempRoot } from './_service.ts';
import type { RunningGovernance, TestLane } from './_service.ts';

let running: RunningGovernance;
let session: string;

serviceOnTempRoot((started) => {
  running = started;
});

const now = () => new Date().toISOString();
const dryRun = (tool: string) => ({
  identity: { tool_name: tool, owner: 'governance' },
  classification: { capability_class: 'read_only', runtime_kind: 'http', release_channel: 'stable', lifecycle_stage: 'active' },
  contract_families: [{ family: 'contracts', usage: 'producer' }],
  compatibility: { mode: 'backward' },
  lifecycle: { stage: 'active', deprecation_policy: 'v2 beside v1' },
  verify: { entrypoint: 'node dist/bin/governance-readiness.mjs', live_target: '/api/v1/contracts/registry' },
  readiness_targets: ['/health'],
  boundaries: { exclusions: [], fail_closed_conditions: ['artifact invalid'] },
  docs_evidence: { entrypoint: 'docs/governance.md', tool_profile: 'a', integrations: 'a', capabilities: 'a', api: 'a', oss_inventory: 'a', compatibility_posture: 'a', verify_metadata: 'a' },
});
const outboxEvent = (revision: number) => ({ event: 'planning.turn_answered', occurred_at: now(), payload: { session_id: 'ps_11111111-2222-4333-8444-555555555555', revision, planning_event_seq: 1 } });

/** Per write route: the lane it admits and two valid bodies that differ (`:session_id` is filled in). */
const WRITES: Record<string, { lane: TestLane; bodies: () => [unknown, unknown] }> = {
  '/api/v1/tools/admission/dry-run': { lane: 'operator', bodies: () => [dryRun('tool_one'), dryRun('tool_two')] },
  '/api/v1/contracts/compatibility/check': { lane: 'operator', bodies: () => [{ mode: 'NONE', previous: {}, proposed: {} }, { mode: 'FULL', previous: {}, proposed: {} }] },
  '/api/v1/planning/sessions': { lane: 'bff', bodies: () => [{ title: 'a', goal: 'a', requested_by: { kind: 'human', subject_id: 'u' } }, { title: 'b', goal: 'b', requested_by: { kind: 'human', subject_id: 'u' } }] },
  '/api/v1/planning/sessions/:session_id/turns': { lane: 'bff', bodies: () => [1, 2].map((n) => ({ turn_id: `t${n}`, based_on_revision: 1, question: 'q', answer: 'a', answered_by: { kind: 'human', subject_id: 'u' } })) as [unknown, unknown] },
  '/api/v1/planning/sessions/:session_id/review-rounds': { lane: 'operator', bodies: () => ['x', 'y'].map((body) => ({ revision: 1, package_intent: { kind: 'plan', body }, reviewer_summary: 's', round_synthesis: 's' })) as [unknown, unknown] },
  '/api/v1/planning/sessions/:session_id/owner-decision': { lane: 'operator', bodies: () => [{ decision: 'approved', revision: 1, rationale: 'r' }, { decision: 'rejected', revision: 1, rationale: 'r' }] },
  '/api/v1/identity/mail-management/projection': { lane: 'mail_producer', bodies: () => ['a', 'b'].map((m) => ({ scope: { tenant_id: 't', mailbox: `${m}@example.com` }, administrator: { subject_id: 'u', kind: 'human', role: 'administrator', active: true }, observed_at: now(), source: { system: 's', record_ref: 'r' } })) as [unknown, unknown] },
  '/api/v1/identity/product-entitlement/projection': { lane: 'entitlement_producer', bodies: () => ['p1', 'p2'].map((plan) => ({ scope: { tenant_id: 't', product: 'governance' }, entitlement: { state: 'active', plan }, observed_at: now(), valid_for_seconds: 60, source: { system: 's', record_ref: 'r' } })) as [unknown, unknown] },
  '/api/v1/context-composer/context': { lane: 'operator', bodies: () => [{ role: 'agent', include: ['bootstrap'] }, { role: 'agent', include: ['methodology'] }] },
  '/api/v1/events/outbox/*': { lane: 'operator', bodies: () => [outboxEvent(2), outboxEvent(3)] },
  '/api/v1/products/register': { lane: 'operator', bodies: () => [{ product: 'p-one', service: 'governance', title: 't', owner: 'airlock-governance', version: '1.0.0' }, { product: 'p-two', service: 'governance', title: 't', owner: 'airlock-governance', version: '1.0.0' }] },
  '/api/v1/updates/check': { lane: 'operator', bodies: () => [{ product: 'governance', installed_version: '1.0.0', channel: 'stable' }, { product: 'governance', installed_version: '2.0.0', channel: 'stable' }] },
  '/api/v1/updates/rollout-gate': { lane: 'operator', bodies: () => [{ product: 'governance', target_version: '1.0.0', stage: 'canary' }, { product: 'governance', target_version: '1.0.0', stage: 'fleet' }] },
  '/api/v1/sidecar/state/probe': { lane: 'operator', bodies: () => [{ sidecar_id: 's', state: 'attached', observed_at: now() }, { sidecar_id: 's', state: 'detached', observed_at: now() }] },
  '/api/v1/sidecar/invocation/self-health/probe': { lane: 'operator', bodies: () => [true, false].map((healthy) => ({ sidecar_id: 's', invocation_id: 'i', healthy, observed_at: now() })) as [unknown, unknown] },
};

function concrete(path: string): string {
  return path.replace(':session_id', session).replace('/*', '/planning');
}

test('every write route but the git-host webhook is covered by the bad-input table below', () => {
  const tabled = Object.keys(WRITES).sort();
  const routes = WRITE_ROUTES.filter((w) => w.idempotency !== 'delivery_id').map((w) => w.path).sort();
  assert.deepEqual(tabled, routes);
});

for (const route of WRITE_ROUTES.filter((w) => w.idempotency !== 'delivery_id')) {
  test(`POST ${route.path} refuses bad input: schema failure 422, another lane 403, no token 401, ${route.idempotency === 'required' ? 'no Idempotency-Key 400, ' : ''}a key replayed with another body 422`, async () => {
    if (session === undefined) {
      const created = await sendJson(`${running.worker}/api/v1/planning/sessions`, { title: 't', goal: 'g', requested_by: { kind: 'human', subject_id: 'u' } }, { headers: { ...bearer('bff'), 'idempotency-key': randomUUID() } });
      session = (created.json() as { session_id: string }).session_id;
    }
    const { lane, bodies } = WRITES[route.path]!;
    const [first, second] = bodies();
    const url = `${running.worker}${concrete(route.path)}`;
    const as = (who: TestLane | undefined, key?: string) => ({ headers: { ...(who ? bearer(who) : {}), ...(key ? { 'idempotency-key': `"${key}"` } : {}) } });

    const schema = await sendJson(url, {}, as(lane, randomUUID()));
    assert.equal(schema.status, 422, schema.text);
    assert.ok((schema.json() as { errors: unknown[] }).errors.length > 0);
    assert.equal((await sendJson(url, first, as(lane === 'operator' ? 'bff' : 'operator', randomUUID()))).status, 403);
    assert.equal((await sendJson(url, first, as(undefined, randomUUID()))).status, 401);
    if (route.idempotency === 'required') assert.equal((await sendJson(url, first, as(lane))).status, 400);
    const key = randomUUID();
    const original = await sendJson(url, first, as(lane, key));
    assert.ok(original.status < 500, original.text);
    const replayed = await sendJson(url, first, as(lane, key));
    assert.deepEqual([replayed.status, replayed.headers['idempotent-replayed'], replayed.text], [original.status, 'true', original.text]);
    const reused = await sendJson(url, second, as(lane, key));
    assert.equal(reused.status, 422, reused.text);
    assert.match(reused.text, /Idempotency-Key/);
    assert.ok([404, 405].includes((await send(`${running.platform}${concrete(route.path)}`, { method: 'POST' })).status), 'never on the platform listener');
  });
}
