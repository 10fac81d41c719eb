// Current state, folded from the evidence rows (a change of state is a new row): the persistent
// agents with their desired and observed runtime, the control agent's mode, and the learning
// proposals. Readers and the writes' precondition checks share these folds.

import type { DatabaseSync } from 'node:sqlite';
import { readRows, statement } from '../kernel/index.ts';
import type { EvidenceRow } from '../kernel/index.ts';
import { executionRuns, learningProposals, runtimePatches } from './database.ts';
import { readRunCounts } from './run-counts.ts';

export interface PatchPayload {
  runtime: string;
  version: string;
  config_sha256: string | null;
  reason: string;
  actor: string;
  /** The version a rollback restored from (rollback rows only). */
  rolled_back_from?: string;
}

export interface PersistentAgent {
  agent_id: string;
  runtime: string;
  desired_version: string;
  config_sha256: string | null;
  /** Versions applied before the current one, oldest first: what a rollback restores. */
  previous_versions: string[];
  patches: number;
  last_patch: { seq: number; action: string; recorded_at: string; actor: string };
  observed_version: string | null;
  runs: { dispatched: number; succeeded: number; failed: number };
  last_run_id: string | null;
}

type PatchRow = EvidenceRow<typeof runtimePatches.columns>;

/** An agent after one more runtime patch (apply or rollback). */
function withPatch(current: PersistentAgent | undefined, row: PatchRow): PersistentAgent {
  const p = row.payload as unknown as PatchPayload;
  const previous = current ? (row.action === 'rollback' ? current.previous_versions.slice(0, -1) : [...current.previous_versions, current.desired_version]) : [];
  return {
    agent_id: row.agent_id,
    runtime: p.runtime,
    desired_version: p.version,
    config_sha256: p.config_sha256,
    previous_versions: previous,
    patches: (current?.patches ?? 0) + 1,
    last_patch: { seq: row.seq, action: row.action, recorded_at: row.recorded_at, actor: p.actor },
    observed_version: current?.observed_version ?? null,
    runs: current?.runs ?? { dispatched: 0, succeeded: 0, failed: 0 },
    last_run_id: current?.last_run_id ?? null,
  };
}

/**
 * The agents folded incrementally: each advance() folds only the patches appended since the last
 * one, and takes each agent's run counts from the counters a trigger keeps (run-counts.ts), so a
 * read costs the rows a write added, not the history, the first read after a start too (issue
 * 24). Call it outside a write transaction: a row of a batch later rolled back would stay.
 */
export function createAgentsFold(): { advance(sqlite: DatabaseSync): Map<string, PersistentAgent>; folded(): number } {
  const agents = new Map<string, PersistentAgent>();
  let patchSeq = 0;
  let folded = 0;
  return {
    advance(sqlite) {
      for (const row of readRows(sqlite, runtimePatches, { afterSeq: patchSeq })) {
        agents.set(row.agent_id, withPatch(agents.get(row.agent_id), row));
        patchSeq = row.seq;
        folded++;
      }
      const counts = readRunCounts(sqlite);
      for (const agent of agents.values()) {
        const c = counts.get(agent.agent_id);
        agent.runs = { dispatched: c?.dispatched ?? 0, succeeded: c?.succeeded ?? 0, failed: c?.failed ?? 0 };
        agent.last_run_id = c?.last_run_id ?? null;
        agent.observed_version = c?.observed_version ?? null;
      }
      return agents;
    },
    folded: () => folded,
  };
}

/**
 * One agent's runtime (desired and previous versions) from its own patches, by the agent_id
 * index: what a write's precondition needs. Its run counts are not folded (zero).
 */
export function agentRuntime(sqlite: DatabaseSync, agentId: string): PersistentAgent | undefined {
  let agent: PersistentAgent | undefined;
  for (const row of readRows(sqlite, runtimePatches, { where: { agent_id: agentId } })) agent = withPatch(agent, row);
  return agent;
}

/**
 * Whether the agent has an applied patch: one row by the agent_id index, what dispatch and a
 * learning proposal check on every write, however many rollouts the agent has had (issue 24).
 */
export function agentKnown(sqlite: DatabaseSync, agentId: string): boolean {
  return statement(sqlite, `SELECT 1 FROM ${runtimePatches.name} WHERE agent_id = ? LIMIT 1`).get(agentId) !== undefined;
}

export interface RunState {
  run_id: string;
  agent_id: string;
  state: 'dispatched' | 'completed';
  action: string;
  outcome: string | null;
}

export function runState(sqlite: DatabaseSync, runId: string): RunState | undefined {
  let state: RunState | undefined;
  for (const row of readRows(sqlite, executionRuns, { where: { run_id: runId } })) {
    const p = row.payload as { action?: string; outcome?: string };
    state = row.kind === 'dispatched'
      ? { run_id: runId, agent_id: row.agent_id, state: 'dispatched', action: p.action ?? '', outcome: null }
      : { ...state!, state: 'completed', outcome: p.outcome ?? null };
  }
  return state;
}

export interface ControlState {
  mode: 'running' | 'paused';
  commands: number;
  last: { seq: number; command: string; recorded_at: string; actor: string; reason: string } | null;
}

/** The control agent's state from its last command alone (the table is gap-free: its last seq is the count). */
export const LAST_CONTROL_COMMAND_SQL = 'SELECT seq, recorded_at, command, payload FROM control_commands ORDER BY seq DESC LIMIT 1';

export function controlState(sqlite: DatabaseSync): ControlState {
  const row = statement(sqlite, LAST_CONTROL_COMMAND_SQL).get();
  if (row === undefined) return { mode: 'running', commands: 0, last: null };
  const p = JSON.parse(String(row['payload'])) as { actor: string; reason: string };
  const command = String(row['command']);
  return { mode: command === 'pause' ? 'paused' : 'running', commands: Number(row['seq']), last: { seq: Number(row['seq']), command, recorded_at: String(row['recorded_at']), actor: p.actor, reason: p.reason } };
}

export interface ProposalState {
  proposal_id: string;
  agent_id: string;
  author: string;
  summary: string;
  decision: 'pending' | 'approved' | 'rejected' | 'needs_more_context';
  reviews: number;
}

export function proposalState(sqlite: DatabaseSync, proposalId: string): ProposalState | undefined {
  let state: ProposalState | undefined;
  for (const row of readRows(sqlite, learningProposals, { where: { proposal_id: proposalId } })) {
    const p = row.payload as { agent_id?: string; actor: string; summary?: string; decision?: ProposalState['decision'] };
    state = row.kind === 'proposed'
      ? { proposal_id: proposalId, agent_id: p.agent_id ?? '', author: p.actor, summary: p.summary ?? '', decision: 'pending', reviews: 0 }
      : { ...state!, decision: p.decision ?? state!.decision, reviews: state!.reviews + 1 };
  }
  return state;
}
