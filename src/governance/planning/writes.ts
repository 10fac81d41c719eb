// The four planning writes. create_session and answer_turn are the BFF consumer's bounded
// runtime session writes; review rounds and owner decisions are the operator's. Each checks the
// session's state and appends its row (plus the outbox event announcing it) inside one
// transaction, so two concurrent writes can never both build on the same revision.

import { createHash, randomUUID } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import { json, problem, readRows, writeReply } from '../../kernel/index.ts';
import type { JsonValue, Reply, RequestContext, Transaction } from '../../kernel/index.ts';
import { planningEvents } from '../database.ts';
import { appendOutbox } from '../events/outbox-append.ts';
import type { GovernanceRuntime } from '../runtime.ts';
import { closingDecision, foldSession, missingReadbacks, resumeState, decisionReadbacks } from './session.ts';
import type { Actor, OwnerDecision, PlanningPayload, PlanningRow, RedactedIntent, Session, SuggestedRef } from './session.ts';

export const SESSION_ID = /^ps_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What a write grants: nothing beyond its own record. */
export const NO_AUTHORITY = { materialization: false, provider_execution: false, domain_write: false } as const;

type Outcome = { ok: true; reply: Reply } | { ok: false; reply: Reply };

export function loadSession(sqlite: DatabaseSync, sessionId: string): Session | undefined {
  if (!SESSION_ID.test(sessionId)) return undefined;
  return foldSession(sessionId, readRows(sqlite, planningEvents, { where: { session_id: sessionId } }) as unknown as PlanningRow[]);
}

export function unknownSession(sessionId: string): Reply {
  return problem(404, 'Unknown planning session', { detail: `No planning session "${sessionId}"` });
}

function conflict(reason: string, detail: string, extensions: Record<string, unknown> = {}): Reply {
  return problem(409, 'Planning session conflict', { type: `planning-${reason.replaceAll('_', '-')}`, detail, extensions: { reason, ...extensions } });
}

/** Appends one planning row and its outbox event in the caller's transaction. */
function record(tx: Transaction, sessionId: string, payload: PlanningPayload, at: string): PlanningRow {
  const row = tx.append(planningEvents, { session_id: sessionId, kind: payload.kind, payload: payload as unknown as JsonValue }) as unknown as PlanningRow;
  const event = { session_created: 'planning.session_created', turn_answered: 'planning.turn_answered', review_round_started: 'planning.review_round_started', owner_decision_recorded: 'planning.owner_decision_recorded' }[payload.kind];
  const summary: Record<string, unknown> = { session_id: sessionId, revision: payload.revision, planning_event_seq: row.seq };
  if (payload.kind === 'review_round_started') summary['round'] = payload.round;
  if (payload.kind === 'owner_decision_recorded') summary['decision'] = payload.decision;
  appendOutbox(tx, { family: 'planning', event, occurred_at: at, payload: summary, source: 'governance', correlation_id: sessionId });
  return row;
}

/** Runs `decide` on the session inside the write transaction; it either appends or refuses. */
async function withSession(runtime: GovernanceRuntime, context: RequestContext, decide: (session: Session, tx: Transaction, at: string) => Outcome): Promise<Reply> {
  const sessionId = context.params['session_id'] ?? '';
  const at = new Date(runtime.now()).toISOString();
  const work = (sqlite: DatabaseSync, tx: Transaction): Outcome => {
    const session = loadSession(sqlite, sessionId);
    if (!session) return { ok: false, reply: unknownSession(sessionId) };
    const closed = closingDecision(session);
    if (closed) return { ok: false, reply: conflict('session_closed', `Planning session "${sessionId}" is closed: the owner decided "${closed}"`) };
    return decide(session, tx, at);
  };
  return writeReply(context, { store: runtime.store, work, reply: (outcome) => outcome.reply });
}

function revisionConflict(session: Session, given: number): Reply | undefined {
  if (given === session.revision) return undefined;
  return conflict('revision_conflict', `Planning session "${session.session_id}" is at revision ${session.revision}, not ${given}: read it again`, { current_revision: session.revision });
}

function links(sessionId: string): Record<string, string> {
  const base = `/api/v1/planning/sessions/${sessionId}`;
  return { session: base, resume_state: `${base}/resume-state`, revision_ledger: `${base}/revision-ledger` };
}

/** POST /api/v1/planning/sessions (create_session, BFF lane). */
export function createSessionReply(runtime: GovernanceRuntime, context: RequestContext): Promise<Reply> {
  const body = context.body as { title: string; goal: string; requested_by: Actor; modules?: string[]; suggested_refs?: SuggestedRef[] };
  const sessionId = `ps_${randomUUID()}`;
  const at = new Date(runtime.now()).toISOString();
  const payload: PlanningPayload = {
    kind: 'session_created', revision: 1, title: body.title, goal: body.goal, requested_by: body.requested_by,
    modules: body.modules ?? [], suggested_refs: body.suggested_refs ?? [], created_by_lane: String(context.principal),
  };
  return writeReply(context, {
    store: runtime.store,
    work: (_sqlite, tx) => record(tx, sessionId, payload, at),
    reply: (row) => json({ session_id: sessionId, revision: 1, planning_event_seq: row.seq, links: links(sessionId), grants: NO_AUTHORITY, authority: 'a bounded runtime session write: no compose, materialization or execution authority' }, { status: 201 }),
  });
}

/** POST /api/v1/planning/sessions/{session_id}/turns (answer_turn, BFF lane). */
export function answerTurnReply(runtime: GovernanceRuntime, context: RequestContext): Promise<Reply> {
  const body = context.body as { turn_id: string; based_on_revision: number; question: string; answer: string; answered_by: Actor; suggested_refs?: SuggestedRef[] };
  return withSession(runtime, context, (session, tx, at) => {
    const stale = revisionConflict(session, body.based_on_revision);
    if (stale) return { ok: false, reply: stale };
    if (session.detail.turns.some((t) => t.turn_id === body.turn_id)) {
      return { ok: false, reply: conflict('turn_exists', `Turn "${body.turn_id}" was already answered in planning session "${session.session_id}"`) };
    }
    const revision = session.revision + 1;
    const row = record(tx, session.session_id, { kind: 'turn_answered', revision, turn_id: body.turn_id, question: body.question, answer: body.answer, answered_by: body.answered_by, suggested_refs: body.suggested_refs ?? [] }, at);
    return { ok: true, reply: json({ session_id: session.session_id, turn_id: body.turn_id, revision, planning_event_seq: row.seq, links: links(session.session_id), grants: NO_AUTHORITY }, { status: 201 }) };
  });
}

/** The package intent as stored and read back: its body only as SHA-256 and length. */
export function redactIntent(intent: { kind: string; refs?: string[]; body: string }): RedactedIntent {
  return { kind: intent.kind, refs: intent.refs ?? [], redacted: true, body_sha256: createHash('sha256').update(intent.body, 'utf8').digest('hex'), body_length: [...intent.body].length };
}

/** What a review round is not (seed 001, rule 3), as explicit false flags. */
export const REVIEW_ROUND_AUTHORITY = { provider_execution: false, score_approval: false, human_in_loop_approval: false, materialization: false, execution: false } as const;

/** POST /api/v1/planning/sessions/{session_id}/review-rounds (operator lane). */
export function reviewRoundReply(runtime: GovernanceRuntime, context: RequestContext): Promise<Reply> {
  const body = context.body as { revision: number; package_intent: { kind: string; refs?: string[]; body: string }; reviewer_summary: string; round_synthesis: string; score?: { value: number; rubric: string } };
  return withSession(runtime, context, (session, tx, at) => {
    const stale = revisionConflict(session, body.revision);
    if (stale) return { ok: false, reply: stale };
    const round = session.rounds.length + 1;
    const packageIntent = redactIntent(body.package_intent);
    const row = record(tx, session.session_id, { kind: 'review_round_started', revision: session.revision, round, package_intent: packageIntent, reviewer_summary: body.reviewer_summary, round_synthesis: body.round_synthesis, score: body.score ?? null }, at);
    return {
      ok: true,
      reply: json({
        session_id: session.session_id, round, revision: session.revision, package_intent: packageIntent, score: body.score ?? null, planning_event_seq: row.seq,
        authority: REVIEW_ROUND_AUTHORITY,
        statement: 'A review round is not provider execution, score approval, human-in-loop approval, materialization or execution authority',
      }, { status: 201 }),
    };
  });
}

/** POST /api/v1/planning/sessions/{session_id}/owner-decision (operator lane). */
export function ownerDecisionReply(runtime: GovernanceRuntime, context: RequestContext): Promise<Reply> {
  const body = context.body as { decision: OwnerDecision; revision: number; rationale: string };
  return withSession(runtime, context, (session, tx, at) => {
    const stale = revisionConflict(session, body.revision);
    if (stale) return { ok: false, reply: stale };
    const missing = missingReadbacks(session);
    if (missing.length > 0) {
      return {
        ok: false,
        reply: conflict('decision_not_actionable', `The owner decision on planning session "${session.session_id}" is not actionable: missing ${missing.join(', ')} readbacks`, { missing_readbacks: missing, readbacks: decisionReadbacks(session) }),
      };
    }
    record(tx, session.session_id, { kind: 'owner_decision_recorded', revision: session.revision, decision: body.decision, rationale: body.rationale, recorded_by_lane: String(context.principal) }, at);
    const after: Session = { ...session, decisions: [...session.decisions, { decision: body.decision, revision: session.revision, rationale: body.rationale, recorded_at: at }] };
    return {
      ok: true,
      reply: json({
        session_id: session.session_id, decision: body.decision, revision: session.revision, recorded: true, grants: NO_AUTHORITY,
        authority: 'A recorded decision grants no materialization, provider-execution or domain-write authority',
        resume_state: resumeState(after),
      }, { status: 201 }),
    };
  });
}
