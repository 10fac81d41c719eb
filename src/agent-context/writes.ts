// The seven write and control routes (seed 002: agent-runtime patch, execution, control agent,
// learning-proposal write and review): their bodies, the action intent each performs, the
// precondition each checks against current state, and the evidence each appends.

import { problem } from '../kernel/index.ts';
import type { JsonValue } from '../kernel/index.ts';
import { AUTHORITY_CONTEXT_SCHEMA } from './authority.ts';
import { controlCommands, executionRuns, learningProposals, runtimePatches } from './database.ts';
import type { GuardedWrite } from './guarded-write.ts';
import { agentKnown, agentRuntime, controlState, proposalState, runState } from './state.ts';

const ID = { type: 'string', pattern: '^[a-z0-9][a-z0-9._-]{0,63}$' } as const;
const TEXT = (max: number) => ({ type: 'string', minLength: 1, maxLength: max }) as const;

function bodySchema(properties: Record<string, unknown>, required: readonly string[]): Record<string, unknown> {
  return { type: 'object', required: [...required], properties: { authority_context: AUTHORITY_CONTEXT_SCHEMA, ...properties }, additionalProperties: false };
}

export const WRITE_SCHEMAS = {
  patchApply: bodySchema({ agent_id: ID, runtime: TEXT(64), version: TEXT(64), config_sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' }, reason: TEXT(500) }, ['agent_id', 'runtime', 'version', 'reason']),
  patchRollback: bodySchema({ agent_id: ID, reason: TEXT(500) }, ['agent_id', 'reason']),
  runDispatch: bodySchema({ agent_id: ID, run_id: ID, action: TEXT(128) }, ['agent_id', 'run_id', 'action']),
  runResult: bodySchema({ outcome: { enum: ['succeeded', 'failed'] }, observed_version: TEXT(64), detail: TEXT(1000) }, ['outcome']),
  control: bodySchema({ reason: TEXT(500) }, ['reason']),
  proposal: bodySchema({ proposal_id: ID, agent_id: ID, summary: TEXT(2000), evidence_refs: { type: 'array', maxItems: 20, items: TEXT(256), uniqueItems: true } }, ['proposal_id', 'agent_id', 'summary']),
  review: bodySchema({ decision: { enum: ['approved', 'rejected', 'needs_more_context'] }, note: TEXT(2000) }, ['decision']),
} as const;

type Body = Record<string, string | undefined> & { evidence_refs?: string[] };
const bodyOf = (body: unknown) => body as Body;

const unknownAgent = (id: string) => problem(404, 'Unknown agent', { type: 'agent-unknown', detail: `Agent "${id}" has no applied runtime patch: apply one first` });

export const PATCH_APPLY: GuardedWrite = {
  intent: 'patch_agent_runtime',
  check(sqlite, context) {
    const b = bodyOf(context.body);
    const agent = agentRuntime(sqlite, b['agent_id']!);
    if (agent && agent.runtime === b['runtime'] && agent.desired_version === b['version'] && agent.config_sha256 === (b['config_sha256'] ?? null)) {
      return problem(409, 'Patch changes nothing', { type: 'patch-no-change', detail: `Agent "${agent.agent_id}" already runs ${agent.runtime} ${agent.desired_version} with this configuration` });
    }
    return undefined;
  },
  apply(tx, context, authority) {
    const b = bodyOf(context.body);
    const row = tx.append(runtimePatches, { agent_id: b['agent_id']!, action: 'apply', payload: { runtime: b['runtime']!, version: b['version']!, config_sha256: b['config_sha256'] ?? null, reason: b['reason']!, actor: authority.actor } });
    return {
      rows: { [runtimePatches.name]: 1 },
      event: { name: 'agent_runtime.patch_applied', subject: row.agent_id, payload: { agent_id: row.agent_id, version: b['version']!, patch_seq: row.seq } },
      status: 201,
      body: { agent_id: row.agent_id, action: 'apply', runtime: b['runtime'], desired_version: b['version'], patch: { seq: row.seq, sha256: row.sha256 } },
    };
  },
};

export const PATCH_ROLLBACK: GuardedWrite = {
  intent: 'patch_agent_runtime',
  check(sqlite, context) {
    const id = bodyOf(context.body)['agent_id']!;
    const agent = agentRuntime(sqlite, id);
    if (!agent) return unknownAgent(id);
    if (agent.previous_versions.length === 0) return problem(409, 'Nothing to roll back', { type: 'rollback-nothing-previous', detail: `Agent "${id}" has no version before ${agent.desired_version}` });
    return undefined;
  },
  apply(tx, context, authority, sqlite) {
    const b = bodyOf(context.body);
    const agent = agentRuntime(sqlite, b['agent_id']!)!;
    const restored = agent.previous_versions.at(-1)!;
    const row = tx.append(runtimePatches, {
      agent_id: agent.agent_id,
      action: 'rollback',
      payload: { runtime: agent.runtime, version: restored, config_sha256: null, reason: b['reason']!, actor: authority.actor, rolled_back_from: agent.desired_version },
    });
    return {
      rows: { [runtimePatches.name]: 1 },
      event: { name: 'agent_runtime.patch_rolled_back', subject: agent.agent_id, payload: { agent_id: agent.agent_id, version: restored, from_version: agent.desired_version, patch_seq: row.seq } },
      status: 201,
      body: { agent_id: agent.agent_id, action: 'rollback', runtime: agent.runtime, desired_version: restored, rolled_back_from: agent.desired_version, patch: { seq: row.seq, sha256: row.sha256 } },
    };
  },
};

export const RUN_DISPATCH: GuardedWrite = {
  intent: 'dispatch_execution',
  check(sqlite, context) {
    const b = bodyOf(context.body);
    if (!agentKnown(sqlite, b['agent_id']!)) return unknownAgent(b['agent_id']!);
    if (runState(sqlite, b['run_id']!)) return problem(409, 'Run id in use', { type: 'run-id-in-use', detail: `Run "${b['run_id']}" was already dispatched: choose another run_id` });
    if (controlState(sqlite).mode === 'paused') return problem(409, 'Control agent paused', { type: 'control-agent-paused', detail: 'The control agent is paused: resume it before dispatching execution' });
    return undefined;
  },
  apply(tx, context, authority) {
    const b = bodyOf(context.body);
    const row = tx.append(executionRuns, { run_id: b['run_id']!, agent_id: b['agent_id']!, kind: 'dispatched', payload: { action: b['action']!, actor: authority.actor } });
    return {
      rows: { [executionRuns.name]: 1 },
      event: { name: 'execution.run_dispatched', subject: row.run_id, payload: { run_id: row.run_id, agent_id: row.agent_id, action: b['action']! } },
      status: 201,
      body: { run_id: row.run_id, agent_id: row.agent_id, state: 'dispatched', run: { seq: row.seq, sha256: row.sha256 } },
    };
  },
};

export const RUN_RESULT: GuardedWrite = {
  intent: 'dispatch_execution',
  check(sqlite, context) {
    const id = context.params['run_id'] ?? '';
    const run = runState(sqlite, id);
    if (!run) return problem(404, 'Unknown run', { type: 'run-unknown', detail: `Run "${id}" was never dispatched` });
    if (run.state === 'completed') return problem(409, 'Run already completed', { type: 'run-completed', detail: `Run "${id}" already has the outcome "${run.outcome}"` });
    return undefined;
  },
  apply(tx, context, authority, sqlite) {
    const b = bodyOf(context.body);
    const run = runState(sqlite, context.params['run_id']!)!;
    const payload: Record<string, JsonValue> = { outcome: b['outcome']!, actor: authority.actor };
    if (b['observed_version'] !== undefined) payload['observed_version'] = b['observed_version'];
    if (b['detail'] !== undefined) payload['detail'] = b['detail'];
    const row = tx.append(executionRuns, { run_id: run.run_id, agent_id: run.agent_id, kind: 'completed', payload });
    return {
      rows: { [executionRuns.name]: 1 },
      event: { name: 'execution.run_completed', subject: run.run_id, payload: { run_id: run.run_id, agent_id: run.agent_id, outcome: b['outcome']! } },
      status: 201,
      body: { run_id: run.run_id, agent_id: run.agent_id, state: 'completed', outcome: b['outcome'], observed_version: b['observed_version'] ?? null, run: { seq: row.seq, sha256: row.sha256 } },
    };
  },
};

function controlWrite(command: 'pause' | 'resume'): GuardedWrite {
  const target = command === 'pause' ? 'paused' : 'running';
  return {
    intent: 'control_agent',
    check(sqlite) {
      return controlState(sqlite).mode === target ? problem(409, `Control agent already ${target}`, { type: `control-agent-already-${target}`, detail: `The control agent is already ${target}: nothing to ${command}` }) : undefined;
    },
    apply(tx, context, authority) {
      const row = tx.append(controlCommands, { command, payload: { reason: bodyOf(context.body)['reason']!, actor: authority.actor } });
      return {
        rows: { [controlCommands.name]: 1 },
        event: { name: `control_agent.${target}`, subject: 'control-agent', payload: { command, command_seq: row.seq } },
        status: 201,
        body: { mode: target, command: { command, seq: row.seq, sha256: row.sha256 } },
      };
    },
    counted: (metrics) => metrics.controlCommands.inc({ command }),
  };
}

export const CONTROL_PAUSE = controlWrite('pause');
export const CONTROL_RESUME = controlWrite('resume');

export const PROPOSAL_WRITE: GuardedWrite = {
  intent: 'write_learning_proposal',
  check(sqlite, context) {
    const b = bodyOf(context.body);
    if (!agentKnown(sqlite, b['agent_id']!)) return unknownAgent(b['agent_id']!);
    if (proposalState(sqlite, b['proposal_id']!)) return problem(409, 'Proposal id in use', { type: 'proposal-id-in-use', detail: `Learning proposal "${b['proposal_id']}" exists: choose another proposal_id` });
    return undefined;
  },
  apply(tx, context, authority) {
    const b = bodyOf(context.body);
    const row = tx.append(learningProposals, {
      proposal_id: b['proposal_id']!,
      kind: 'proposed',
      payload: { agent_id: b['agent_id']!, summary: b['summary']!, evidence_refs: b.evidence_refs ?? [], actor: authority.actor },
    });
    return {
      rows: { [learningProposals.name]: 1 },
      event: { name: 'learning_proposal.proposed', subject: row.proposal_id, payload: { proposal_id: row.proposal_id, agent_id: b['agent_id']! } },
      status: 201,
      body: { proposal_id: row.proposal_id, agent_id: b['agent_id'], decision: 'pending', proposal: { seq: row.seq, sha256: row.sha256 } },
    };
  },
};

export const PROPOSAL_REVIEW: GuardedWrite = {
  intent: 'review_learning_proposal',
  check(sqlite, context, authority) {
    const id = context.params['proposal_id'] ?? '';
    const proposal = proposalState(sqlite, id);
    if (!proposal) return problem(404, 'Unknown learning proposal', { type: 'proposal-unknown', detail: `Learning proposal "${id}" was never written` });
    if (proposal.decision === 'approved' || proposal.decision === 'rejected') {
      return problem(409, 'Proposal already decided', { type: 'proposal-decided', detail: `Learning proposal "${id}" was ${proposal.decision}; a decision is final` });
    }
    if (proposal.author === authority.actor) return problem(403, 'Self-review refused', { type: 'proposal-self-review', detail: `Actor "${authority.actor}" wrote proposal "${id}" and cannot review it` });
    return undefined;
  },
  apply(tx, context, authority) {
    const b = bodyOf(context.body);
    const id = context.params['proposal_id']!;
    const row = tx.append(learningProposals, { proposal_id: id, kind: 'reviewed', payload: { decision: b['decision']!, note: b['note'] ?? null, actor: authority.actor } });
    return {
      rows: { [learningProposals.name]: 1 },
      event: { name: 'learning_proposal.reviewed', subject: id, payload: { proposal_id: id, decision: b['decision']! } },
      status: 201,
      body: { proposal_id: id, decision: b['decision'], grants: 'nothing: a review records a decision and applies no change', review: { seq: row.seq, sha256: row.sha256 } },
    };
  },
};
