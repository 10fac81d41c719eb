// The planning readbacks (GET /api/v1/planning/sessions/{session_id} and its sub-routes),
// folded from planning_events. Each carries a projection-state marker. They fail closed: a
// session whose planning_events rows do not verify answers 503 (fail_closed) instead of detail that
// cannot be trusted, and the materialization admission, whose owner is not connected, answers
// `awaiting_transport_owner` and admits nothing.

import { GENESIS_SHA256, json, rowHash } from '../../kernel/index.ts';
import type { Reply, RequestContext } from '../../kernel/index.ts';
import { planningEvents } from '../database.ts';
import { artifactMember, failClosed } from '../routing/read-route.ts';
import type { GovernanceRuntime } from '../runtime.ts';
import { closingDecision, decisionReadbacks, missingReadbacks, resumeState } from './session.ts';
import type { Session } from './session.ts';
import { loadSession, NO_AUTHORITY, REVIEW_ROUND_AUTHORITY, unknownSession } from './writes.ts';

/**
 * Why the session's rows cannot be trusted, if they cannot: each row's sha256 must be the hash of
 * its fields and its prev_sha256 the sha256 of the row before it in the table.
 */
function chainProblem(runtime: GovernanceRuntime, session: Session): Reply | undefined {
  const previous = runtime.store.sqlite.prepare(`SELECT sha256 FROM ${planningEvents.name} WHERE seq = ?`);
  for (const row of session.rows) {
    const before = row.seq === 1 ? GENESIS_SHA256 : previous.get(row.seq - 1)?.['sha256'];
    const fields = { seq: row.seq, recorded_at: row.recorded_at, prev_sha256: row.prev_sha256, payload: row.payload, session_id: row.session_id, kind: row.kind };
    const reason = row.prev_sha256 !== before ? 'prev_sha256 does not match the row before it' : rowHash(fields) !== row.sha256 ? "sha256 does not match the row's fields" : undefined;
    if (reason) {
      return failClosed(`Cannot read planning session "${session.session_id}": its evidence does not verify (planning_events seq ${row.seq}: ${reason})`, { reason: 'evidence_chain_broken' });
    }
  }
  return undefined;
}

/** A readback of one session: 404 for an unknown one, 503 when the evidence is not trustworthy. */
export function sessionRead(build: (session: Session, runtime: GovernanceRuntime) => Record<string, unknown>): (runtime: GovernanceRuntime, context: RequestContext) => Reply {
  return (runtime, context) => {
    const sessionId = context.params['session_id'] ?? '';
    const session = loadSession(runtime.store.sqlite, sessionId);
    if (!session) return unknownSession(sessionId);
    const broken = chainProblem(runtime, session);
    if (broken) return broken;
    return json({ session_id: session.session_id, projection_state: 'published', ...build(session, runtime) });
  };
}

function state(session: Session): string {
  return closingDecision(session) ?? (session.decisions.at(-1)?.revision === session.revision ? 'needs_more_context' : 'open');
}

export const sessionReply = sessionRead((session) => ({
  state: state(session),
  created_at: session.created_at,
  requested_by: session.requested_by,
  current_revision: { revision: session.revision, detail: session.detail },
  review_rounds: session.rounds.length,
  decisions: session.decisions.length,
}));

export const reviewBundleReply = sessionRead((session) => {
  const latest = session.rounds.at(-1);
  return {
    revision: session.revision,
    reviewer_summary: latest?.reviewer_summary ?? null,
    round_synthesis: latest?.round_synthesis ?? null,
    latest_round: latest?.round ?? null,
    latest_round_is_current: latest?.revision === session.revision,
    rounds: session.rounds,
    authority: REVIEW_ROUND_AUTHORITY,
  };
});

export const scoreGateReply = sessionRead((session, runtime) => {
  const threshold = Number(artifactMember(runtime, 'planning/owner-decision')?.['score_gate_threshold'] ?? 1);
  const scored = session.rounds.filter((r) => r.score !== null);
  const latest = scored.at(-1);
  return {
    readback: latest ? 'present' : 'missing',
    score: latest?.score ?? null,
    scored_at_revision: latest?.revision ?? null,
    threshold,
    passed: latest ? latest.score!.value >= threshold : null,
    authority: 'a score gate is a readback: it approves nothing and grants nothing',
  };
});

export const materializationAdmissionReply = sessionRead((session) => ({
  projection_state: 'awaiting_transport_owner',
  admitted: false,
  reason: 'No materialization owner is connected to governance; a planning session, its review rounds and its owner decision grant no materialization authority',
  owner_decision: closingDecision(session) ?? null,
  grants: NO_AUTHORITY,
}));

interface Module {
  module_key: string;
  action_intents: string[];
}

export const executionContextReply = sessionRead((session, runtime) => {
  const modules = (artifactMember(runtime, 'agent_contracts/capability-module-map')?.['modules'] ?? []) as Module[];
  const known = session.detail.modules.map((key) => modules.find((m) => m.module_key === key)).filter((m): m is Module => m !== undefined);
  return {
    revision: session.revision,
    suggested_refs: session.detail.suggested_refs,
    admitted_action_intents: known.map((m) => ({ module_key: m.module_key, intents: m.action_intents })),
    refused_modules: session.detail.modules.filter((key) => !known.some((m) => m.module_key === key)),
    intents_source: '/api/v1/agent/contracts/capability-module-map',
    grants: NO_AUTHORITY,
    authority: 'only the action intents the capability-module map admits, each with its own auth truth; this readback executes nothing',
  };
});

export const revisionLedgerReply = sessionRead((session) => ({
  append_only: true,
  evidence_table: planningEvents.name,
  entries: session.rows.map((row) => ({ seq: row.seq, recorded_at: row.recorded_at, kind: row.kind, revision: row.payload.revision, sha256: row.sha256, prev_sha256: row.prev_sha256 })),
}));

export const resumeStateReply = sessionRead((session) => ({ ...resumeState(session) }));

export const ownerDecisionReadReply = sessionRead((session) => {
  const missing = missingReadbacks(session);
  const closed = closingDecision(session);
  return {
    decision: session.decisions.at(-1) ?? null,
    history: session.decisions,
    actionable: missing.length === 0 && closed === undefined,
    missing_readbacks: missing,
    readbacks: decisionReadbacks(session),
    grants: NO_AUTHORITY,
    authority: 'A recorded decision grants no materialization, provider-execution or domain-write authority',
    resume_posture: resumeState(session).posture,
  };
});
