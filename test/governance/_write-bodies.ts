// Valid bodies of every governance write route but the git-host webhook, with the lane each
// admits: the bad-input table of write-routes.test.ts and the prototype-name sweep share them.

import type { TestLane } from './_service.ts';

const now = () => new Date().toISOString();
export const dryRun = (tool: string) => ({
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
export const WRITES: Record<string, { lane: TestLane; bodies: () => [unknown, unknown] }> = {
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

