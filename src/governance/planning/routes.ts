// The planning routes as data: the seed's per-session GET readbacks (BFF or operator token) and
// the four writes: create_session and answer_turn on dedicated POST routes for the one BFF
// consumer, review rounds and owner decisions for the operator.

import type { ReadRoute } from '../routing/read-route.ts';
import { published } from '../routing/table-helpers.ts';
import type { WriteRoute } from '../routing/write-route.ts';
import CREATE_SESSION from '../../../contracts/governance/schemas/planning_create_session_input_v1.schema.json' with { type: 'json' };
import ANSWER_TURN from '../../../contracts/governance/schemas/planning_answer_turn_input_v1.schema.json' with { type: 'json' };
import REVIEW_ROUND from '../../../contracts/governance/schemas/planning_review_round_input_v1.schema.json' with { type: 'json' };
import OWNER_DECISION from '../../../contracts/governance/schemas/planning_owner_decision_input_v1.schema.json' with { type: 'json' };
import {
  executionContextReply, materializationAdmissionReply, ownerDecisionReadReply, resumeStateReply, reviewBundleReply, revisionLedgerReply, scoreGateReply, sessionReply,
} from './reads.ts';
import { answerTurnReply, createSessionReply, ownerDecisionReply, reviewRoundReply } from './writes.ts';

const SESSIONS = '/api/v1/planning/sessions';
const SESSION_PARAM = { session_id: { description: 'A planning session id (ps_<uuid>); the sample names none, so it answers 404', example: 'ps_00000000-0000-4000-8000-000000000000' } };
const SESSION_READ = { type: 'object', required: ['session_id', 'projection_state'], properties: { session_id: { type: 'string' }, projection_state: { enum: ['published', 'awaiting_transport_owner'] } } } as const;
const UNKNOWN = [{ status: 404, description: 'No planning session with this id' }];
const CONFLICT = { status: 409, description: 'Session closed, revision not current, or (owner decision) readbacks missing: the body lists them' };
const CREATED = (description: string, required: readonly string[]) => ({ status: 201, description, schema: { type: 'object', required: ['session_id', ...required] } });

function read(path: string, summary: string, compute: ReadRoute['compute'], uses: readonly string[] = []): ReadRoute {
  return { path: `${SESSIONS}/:session_id${path}`, summary, capability: 'planning-sessions', auth: 'planning_reader', params: SESSION_PARAM, schema: SESSION_READ, uses: ['planning/contracts', ...uses], compute, responses: UNKNOWN };
}

export const PLANNING_READS: readonly ReadRoute[] = [
  ...published('planning', [
    ['/planning/contracts', 'contracts', 'Planning family: resources and session routes'],
    ['/planning/interaction-lanes', 'interaction-lanes', 'Lane catalog'],
    ['/planning/interaction-lanes/create-session', 'create-session', 'create_session lane descriptor'],
    ['/planning/interaction-lanes/answer-turn', 'answer-turn', 'answer_turn lane descriptor'],
    ['/planning/interaction-lanes/owner-decision', 'owner-decision', 'Owner-decision lane descriptor'],
    ['/planning/interaction-lanes/start-review-round', 'start-review-round', 'Review-round lane descriptor'],
    ['/planning/events/catalog', 'events-catalog', 'Planning event vocabulary'],
  ]),
  read('', 'Planning session with its current revision detail', sessionReply),
  read('/review-bundle', 'Review bundle: reviewer summary and round synthesis of every round (package intents redacted)', reviewBundleReply),
  read('/score-gate', 'Score gate readback: latest score against the threshold; approves nothing', scoreGateReply, ['planning/owner-decision']),
  read('/materialization-admission', 'Materialization admission: no owner connected (awaiting_transport_owner), admits nothing', materializationAdmissionReply),
  read('/execution-context', 'Execution context: suggested issue/wave refs and the admitted action intents of the session\'s modules', executionContextReply, ['agent_contracts/capability-module-map']),
  read('/revision-ledger', 'Append-only revision ledger: every evidence entry of the session with its hash chain', revisionLedgerReply),
  read('/resume-state', 'Deterministic resume state: posture, next step and lane, missing readbacks', resumeStateReply),
  read('/owner-decision', 'Owner decision readback: latest decision, whether one is actionable, explicit false grants', ownerDecisionReadReply, ['planning/owner-decision']),
];

export const PLANNING_WRITES: readonly WriteRoute[] = [
  {
    path: SESSIONS, summary: 'create_session: a bounded runtime session write for the one BFF consumer', auth: 'bff', capability: 'planning-sessions',
    schema: CREATE_SESSION, idempotency: 'required', keyJoinsEffect: true, uses: ['planning/create-session'],
    responses: [CREATED('Session created at revision 1', ['revision', 'links'])], handle: createSessionReply,
  },
  {
    path: `${SESSIONS}/:session_id/turns`, summary: 'answer_turn: a bounded runtime session write for the one BFF consumer; appends the next revision', auth: 'bff', capability: 'planning-sessions',
    schema: ANSWER_TURN, idempotency: 'required', keyJoinsEffect: true, uses: ['planning/answer-turn'], params: SESSION_PARAM,
    responses: [CREATED('Turn recorded; the session moved to the next revision', ['turn_id', 'revision']), ...UNKNOWN, CONFLICT], handle: answerTurnReply,
  },
  {
    path: `${SESSIONS}/:session_id/review-rounds`, summary: 'Start a review round (package intent stored redacted); not execution, approval or materialization authority', auth: 'operator', capability: 'planning-sessions',
    schema: REVIEW_ROUND, idempotency: 'required', keyJoinsEffect: true, uses: ['planning/start-review-round'], params: SESSION_PARAM,
    responses: [CREATED('Round recorded with explicit false authority flags', ['round', 'revision', 'authority']), ...UNKNOWN, CONFLICT], handle: reviewRoundReply,
  },
  {
    path: `${SESSIONS}/:session_id/owner-decision`, summary: 'Record an owner decision (approved, rejected, needs_more_context); 409 until the score, human-in-loop and owner-packet readbacks exist', auth: 'operator', capability: 'planning-sessions',
    schema: OWNER_DECISION, idempotency: 'required', keyJoinsEffect: true, uses: ['planning/owner-decision'], params: SESSION_PARAM,
    responses: [CREATED('Decision recorded; grants no materialization, provider-execution or domain-write authority', ['decision', 'grants', 'resume_state']), ...UNKNOWN, CONFLICT], handle: ownerDecisionReply,
  },
];
