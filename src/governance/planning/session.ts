// A planning session is the fold of its rows in planning_events: created, turns answered,
// review rounds, owner decisions. Nothing is updated in place; every readback (current revision,
// review bundle, score gate, resume state...) is computed from the same rows, so the same
// recorded rows always give the same answer.

import { createHash } from 'node:crypto';
import { canonicalJson } from '../../kernel/index.ts';
import type { EvidenceRow, JsonValue } from '../../kernel/index.ts';

export const OWNER_DECISIONS = ['approved', 'rejected', 'needs_more_context'] as const;
export type OwnerDecision = (typeof OWNER_DECISIONS)[number];

/** The readbacks an owner decision needs (seed 001, rule 1). */
export const DECISION_READBACKS = ['score', 'human_in_loop', 'owner_packet_source'] as const;
export type DecisionReadback = (typeof DECISION_READBACKS)[number];

export interface Actor {
  kind: 'human' | 'agent';
  subject_id: string;
}

export interface SuggestedRef {
  kind: 'issue' | 'wave';
  ref: string;
}

/** What each kind of row carries in its payload. */
export type PlanningPayload =
  | { kind: 'session_created'; revision: 1; title: string; goal: string; requested_by: Actor; modules: string[]; suggested_refs: SuggestedRef[]; created_by_lane: string }
  | { kind: 'turn_answered'; revision: number; turn_id: string; question: string; answer: string; answered_by: Actor; suggested_refs: SuggestedRef[] }
  | { kind: 'review_round_started'; revision: number; round: number; package_intent: RedactedIntent; reviewer_summary: string; round_synthesis: string; score: { value: number; rubric: string } | null }
  | { kind: 'owner_decision_recorded'; revision: number; decision: OwnerDecision; rationale: string; recorded_by_lane: string };

export interface RedactedIntent {
  kind: string;
  refs: string[];
  redacted: true;
  body_sha256: string;
  body_length: number;
}

export type PlanningRow = EvidenceRow<{ session_id: 'text'; kind: 'text' }, PlanningPayload>;

export interface Session {
  session_id: string;
  created_at: string;
  requested_by: Actor;
  revision: number;
  detail: {
    title: string;
    goal: string;
    modules: string[];
    suggested_refs: SuggestedRef[];
    turns: { turn_id: string; revision: number; question: string; answer: string; answered_by: Actor }[];
  };
  rounds: (Omit<Extract<PlanningPayload, { kind: 'review_round_started' }>, 'kind'> & { recorded_at: string })[];
  decisions: { decision: OwnerDecision; revision: number; rationale: string; recorded_at: string }[];
  rows: PlanningRow[];
}

/** The session folded from its rows (in seq order); undefined when it was never created. */
export function foldSession(sessionId: string, rows: readonly PlanningRow[]): Session | undefined {
  const first = rows[0];
  if (!first || first.payload.kind !== 'session_created') return undefined;
  const created = first.payload;
  const session: Session = {
    session_id: sessionId,
    created_at: first.recorded_at,
    requested_by: created.requested_by,
    revision: 1,
    detail: { title: created.title, goal: created.goal, modules: created.modules, suggested_refs: [...created.suggested_refs], turns: [] },
    rounds: [],
    decisions: [],
    rows: [...rows],
  };
  for (const row of rows.slice(1)) {
    const event = row.payload;
    if (event.kind === 'turn_answered') {
      session.revision = event.revision;
      session.detail.turns.push({ turn_id: event.turn_id, revision: event.revision, question: event.question, answer: event.answer, answered_by: event.answered_by });
      session.detail.suggested_refs.push(...event.suggested_refs);
    } else if (event.kind === 'review_round_started') {
      const { kind: _kind, ...round } = event;
      session.rounds.push({ ...round, recorded_at: row.recorded_at });
    } else if (event.kind === 'owner_decision_recorded') {
      session.decisions.push({ decision: event.decision, revision: event.revision, rationale: event.rationale, recorded_at: row.recorded_at });
    }
  }
  return session;
}

/** approved and rejected close a session; needs_more_context keeps it open. */
export function closingDecision(session: Session): OwnerDecision | undefined {
  const last = session.decisions.at(-1)?.decision;
  return last === 'approved' || last === 'rejected' ? last : undefined;
}

/** Which of the readbacks an owner decision needs are present now. */
export function decisionReadbacks(session: Session): Record<DecisionReadback, boolean> {
  return {
    score: session.rounds.some((r) => r.score !== null),
    human_in_loop: session.detail.turns.some((t) => t.answered_by.kind === 'human'),
    owner_packet_source: session.rounds.some((r) => r.revision === session.revision),
  };
}

export function missingReadbacks(session: Session): DecisionReadback[] {
  const present = decisionReadbacks(session);
  return DECISION_READBACKS.filter((name) => !present[name]);
}

export interface ResumeState {
  session_id: string;
  revision: number;
  posture: 'awaiting_human_turn' | 'awaiting_review_round' | 'awaiting_owner_decision' | 'needs_more_context' | 'closed_approved' | 'closed_rejected';
  next_step: 'answer_turn' | 'start_review_round' | 'owner_decision' | 'none';
  next_lane: 'bff' | 'operator' | null;
  missing_readbacks: DecisionReadback[];
  last_decision: OwnerDecision | null;
  /** SHA-256 of the fields above: equal readbacks give an equal digest, whenever they were recorded. */
  resume_digest: string;
}

/** The resume posture: a pure function of the recorded readbacks, never of the clock. */
export function resumeState(session: Session): ResumeState {
  const missing = missingReadbacks(session);
  const last = session.decisions.at(-1);
  const lastAtRevision = last?.revision === session.revision ? last.decision : undefined;
  let posture: ResumeState['posture'];
  if (last?.decision === 'approved') posture = 'closed_approved';
  else if (last?.decision === 'rejected') posture = 'closed_rejected';
  else if (lastAtRevision === 'needs_more_context') posture = 'needs_more_context';
  else if (missing.includes('human_in_loop')) posture = 'awaiting_human_turn';
  else if (missing.length > 0) posture = 'awaiting_review_round';
  else posture = 'awaiting_owner_decision';
  const next: Record<ResumeState['posture'], [ResumeState['next_step'], ResumeState['next_lane']]> = {
    closed_approved: ['none', null],
    closed_rejected: ['none', null],
    needs_more_context: ['answer_turn', 'bff'],
    awaiting_human_turn: ['answer_turn', 'bff'],
    awaiting_review_round: ['start_review_round', 'operator'],
    awaiting_owner_decision: ['owner_decision', 'operator'],
  };
  const [nextStep, nextLane] = next[posture];
  const state = { session_id: session.session_id, revision: session.revision, posture, next_step: nextStep, next_lane: nextLane, missing_readbacks: missing, last_decision: last?.decision ?? null };
  return { ...state, resume_digest: createHash('sha256').update(canonicalJson(state as unknown as JsonValue)).digest('hex') };
}
