// The writes as an operator uses them, against a real governance service: each admitted write
// records its effect, the authority decision (with the governance composition that admitted it)
// and an outbox event in one transaction; state refuses what it must (409, 404, self-review);
// the six reads show what was written beside the governance truth.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { verifyAllChains } from '../../src/kernel/index.ts';
import { send, sendJson } from '../helpers/http.ts';
import { AUTH, authority, INTENTS, rowCounts, startStack } from './_stack.ts';
import type { Stack } from './_stack.ts';

let stack: Stack;
before(async () => (stack = await startStack()));
after(() => stack.stop());

async function write(path: string, intent: string, body: Record<string, unknown>, actor?: string) {
  const response = await sendJson(`${stack.url}${path}`, { ...body, authority_context: authority(intent, actor) }, { headers: AUTH });
  return { status: response.status, body: response.json() as Record<string, any> };
}

async function read(path: string): Promise<Record<string, any>> {
  const response = await send(`${stack.url}${path}`, { headers: AUTH });
  assert.equal(response.status, 200, `${path}: ${response.text}`);
  return response.json() as Record<string, any>;
}

test('patch, roll back, dispatch, complete, pause, resume, propose and review, each with its evidence', async () => {
  const applied = await write('/api/v1/agent-runtime/patch/apply', INTENTS.patch, { agent_id: 'agent-1', runtime: 'node', version: '1.0.0', reason: 'first' });
  assert.equal(applied.status, 201);
  assert.equal(applied.body['authority']['capability_class'], 'guarded_write');
  assert.equal(applied.body['authority']['governance_evidence']['table'], 'context_compositions');
  assert.equal(applied.body['evidence']['outbox_event']['event'], 'agent_runtime.patch_applied');
  assert.equal((await write('/api/v1/agent-runtime/patch/apply', INTENTS.patch, { agent_id: 'agent-1', runtime: 'node', version: '1.0.0', reason: 'again' })).status, 409);
  assert.equal((await write('/api/v1/agent-runtime/patch/rollback', INTENTS.patch, { agent_id: 'agent-1', reason: 'none before' })).status, 409);
  assert.equal((await write('/api/v1/agent-runtime/patch/rollback', INTENTS.patch, { agent_id: 'agent-9', reason: 'unknown' })).status, 404);
  assert.equal((await write('/api/v1/agent-runtime/patch/apply', INTENTS.patch, { agent_id: 'agent-1', runtime: 'node', version: '1.1.0', reason: 'upgrade' })).status, 201);
  const rolled = await write('/api/v1/agent-runtime/patch/rollback', INTENTS.patch, { agent_id: 'agent-1', reason: 'regression' });
  assert.deepEqual([rolled.status, rolled.body['desired_version'], rolled.body['rolled_back_from']], [201, '1.0.0', '1.1.0']);

  assert.equal((await write('/api/v1/execution/runs', INTENTS.execution, { agent_id: 'agent-9', run_id: 'run-1', action: 'x' })).status, 404);
  assert.equal((await write('/api/v1/execution/runs', INTENTS.execution, { agent_id: 'agent-1', run_id: 'run-1', action: 'summarize' })).status, 201);
  assert.equal((await write('/api/v1/execution/runs', INTENTS.execution, { agent_id: 'agent-1', run_id: 'run-1', action: 'summarize' })).status, 409);
  assert.equal((await write('/api/v1/execution/runs/run-2/result', INTENTS.execution, { outcome: 'succeeded' })).status, 404);
  assert.equal((await write('/api/v1/execution/runs/run-1/result', INTENTS.execution, { outcome: 'succeeded', observed_version: '1.1.0' })).status, 201);
  assert.equal((await write('/api/v1/execution/runs/run-1/result', INTENTS.execution, { outcome: 'failed' })).status, 409);

  assert.equal((await write('/api/v1/control-agent/resume', INTENTS.control, { reason: 'not paused' })).status, 409);
  assert.equal((await write('/api/v1/control-agent/pause', INTENTS.control, { reason: 'maintenance' })).status, 201);
  const paused = await write('/api/v1/execution/runs', INTENTS.execution, { agent_id: 'agent-1', run_id: 'run-2', action: 'summarize' });
  assert.deepEqual([paused.status, paused.body['type']], [409, 'urn:airlock:problem:control-agent-paused']);
  assert.equal((await read('/api/v1/control-agent/status'))['mode'], 'paused');
  assert.equal((await write('/api/v1/control-agent/resume', INTENTS.control, { reason: 'done' })).status, 201);

  assert.equal((await write('/api/v1/learning-proposals', INTENTS.propose, { proposal_id: 'proposal-1', agent_id: 'agent-1', summary: 'Cache lookups', evidence_refs: ['run-1'] })).status, 201);
  assert.equal((await write('/api/v1/learning-proposals', INTENTS.propose, { proposal_id: 'proposal-1', agent_id: 'agent-1', summary: 'again' })).status, 409);
  const self = await write('/api/v1/learning-proposals/proposal-1/review', INTENTS.review, { decision: 'approved' });
  assert.deepEqual([self.status, self.body['type']], [403, 'urn:airlock:problem:proposal-self-review']);
  assert.equal((await write('/api/v1/learning-proposals/proposal-1/review', INTENTS.review, { decision: 'needs_more_context' }, 'rev-bob')).status, 201);
  assert.equal((await write('/api/v1/learning-proposals/proposal-1/review', INTENTS.review, { decision: 'approved', note: 'ok' }, 'rev-bob')).status, 201);
  assert.equal((await write('/api/v1/learning-proposals/proposal-1/review', INTENTS.review, { decision: 'rejected' }, 'rev-carol')).status, 409);
  assert.equal((await write('/api/v1/learning-proposals/proposal-9/review', INTENTS.review, { decision: 'rejected' }, 'rev-carol')).status, 404);

  // 3 patches, 2 run rows, 2 control commands, 3 proposal rows: one admitted decision and one event each.
  const counts = rowCounts(stack);
  assert.deepEqual(counts, { runtime_patches: 3, execution_runs: 2, control_commands: 2, learning_proposals: 3, authority_decisions: 10, outbox_events: 10 });
  assert.ok(verifyAllChains(stack.service.store.sqlite).every((c) => c.ok));
  const events = stack.service.store.sqlite.prepare('SELECT event FROM outbox_events ORDER BY seq').all().map((r) => r['event']);
  assert.deepEqual(events, [
    'agent_runtime.patch_applied', 'agent_runtime.patch_applied', 'agent_runtime.patch_rolled_back', 'execution.run_dispatched', 'execution.run_completed',
    'control_agent.paused', 'control_agent.running', 'learning_proposal.proposed', 'learning_proposal.reviewed', 'learning_proposal.reviewed',
  ]);
});

test('the six reads show the state beside the governance truth', async () => {
  const inventory = await read('/api/v1/runtime/inventory');
  assert.equal(inventory['service']['name'], 'agent-context');
  assert.equal(inventory['governance']['state'], 'available');
  assert.equal(inventory['governance']['declaration']['service'], 'agent-context');
  assert.deepEqual(inventory['agents'], [{ agent_id: 'agent-1', runtime: 'node', desired_version: '1.0.0', observed_version: '1.1.0' }]);

  const topology = await read('/api/v1/topology/diff');
  assert.deepEqual(topology['summary'], { agents: 1, in_sync: 0, drifted: 1, unobserved: 0 });
  assert.equal(topology['self']['declared_port'], 18050);
  assert.equal(topology['self']['state'], 'overridden');
  assert.deepEqual(topology['declared_services'].map((s: { service: string }) => s.service), ['agent-context', 'governance']);

  const drift = await read('/api/v1/drift/summary');
  assert.deepEqual([drift['drift'], drift['findings']], [false, []]);

  const audit = await read('/api/v1/rollouts/audit');
  assert.deepEqual(audit['rollouts'].map((r: { action: string; version: string }) => `${r.action} ${r.version}`), ['apply 1.0.0', 'apply 1.1.0', 'rollback 1.0.0']);
  assert.equal(audit['chain']['verified'], true);
  assert.equal(typeof audit['governance_version_truth'], 'object');

  const control = await read('/api/v1/control-agent/status');
  assert.deepEqual([control['mode'], control['commands'], control['last_command']['command']], ['running', 2, 'resume']);
  assert.ok(control['authority_module']['admitted_action_intents'].includes('control_agent'));

  const agents = await read('/api/v1/persistent-agents');
  assert.equal(agents['count'], 1);
  assert.deepEqual(agents['agents'][0]['runs'], { dispatched: 1, succeeded: 1, failed: 0 });
  assert.deepEqual(agents['governance']['admitted_action_intents'], ['patch_agent_runtime', 'dispatch_execution', 'control_agent', 'write_learning_proposal', 'review_learning_proposal']);
});

test('the counters moved with what was done', async () => {
  const metrics = (await send(`${stack.url}/metrics`)).text;
  const value = (line: string) => Number(new RegExp(`^${line.replace(/[{}"/.]/g, '\\$&')} (\\S+)$`, 'm').exec(metrics)?.[1]);
  assert.equal(value('agent_context_control_agent_commands_total{command="pause"}'), 1);
  assert.equal(value('agent_context_control_agent_commands_total{command="resume"}'), 1);
  assert.equal(value('agent_context_outbox_events_total{event="learning_proposal.reviewed"}'), 2);
  assert.equal(value('agent_context_authority_decisions_total{reason="admitted",verdict="admitted"}'), 10);
  assert.equal(value('agent_context_evidence_rows{table="runtime_patches"}'), 3);
  assert.equal(value('agent_context_http_requests_total{code="409",method="POST",route="/api/v1/execution/runs",status_class="4xx"}'), 2);
  assert.ok(value('agent_context_governance_requests_total{outcome="ok",route="/api/v1/context-composer/context"}') >= 10);
  assert.equal(value('agent_context_drift_findings'), 0);
});
