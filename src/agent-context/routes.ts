// The agent-context route table (seed 002, "Agent-context service"): open self-description, the
// six internal reads, the guarded live upstream context path, and the write and control routes.
// The router, the OpenAPI export, the manifest and the drift summary all read this one table.

import { HEALTH_TYPE, PROBLEM_TYPE } from '../kernel/index.ts';
import type { Handler, ResponseSpec, Route } from '../kernel/index.ts';
import { WRITE_SCHEMAS } from './writes.ts';

export const V1 = '/api/v1';
/** Write bodies are a few ids and short texts. */
export const REQUEST_LIMIT_BYTES = 64 * 1024;

export type WriteName = 'patchApply' | 'patchRollback' | 'runDispatch' | 'runResult' | 'controlPause' | 'controlResume' | 'proposalWrite' | 'proposalReview';
export type ReadName = 'inventory' | 'topologyDiff' | 'driftSummary' | 'rolloutsAudit' | 'controlStatus' | 'persistentAgents';

export interface AgentContextHandlers {
  health: Handler;
  ready: Handler;
  version: Handler;
  metrics: Handler;
  openapi: Handler;
  manifest: Handler;
  reads: Record<ReadName, Handler>;
  compose: Handler;
  writes: Record<WriteName, Handler>;
}

const unconfigured: Handler = () => {
  throw new TypeError('This route table was built without configuration (manifest, export): its handlers are never called');
};

/** Handlers for a table built without configuration (manifest, OpenAPI export): never called. */
export const UNCONFIGURED_HANDLERS: AgentContextHandlers = {
  health: unconfigured, ready: unconfigured, version: unconfigured, metrics: unconfigured, openapi: unconfigured, manifest: unconfigured, compose: unconfigured,
  reads: { inventory: unconfigured, topologyDiff: unconfigured, driftSummary: unconfigured, rolloutsAudit: unconfigured, controlStatus: unconfigured, persistentAgents: unconfigured },
  writes: { patchApply: unconfigured, patchRollback: unconfigured, runDispatch: unconfigured, runResult: unconfigured, controlPause: unconfigured, controlResume: unconfigured, proposalWrite: unconfigured, proposalReview: unconfigured },
};

const problemResponse = (status: number, description: string): ResponseSpec => ({ status, description, contentType: PROBLEM_TYPE, schema: { $ref: '#/components/schemas/Problem' } });
const UNAUTHORIZED = problemResponse(401, 'No bearer token, or not AGENT_CONTEXT_TOKEN');
const GOVERNANCE_503 = problemResponse(503, 'Fail closed: governance truth unavailable (GOVERNANCE_URL, AGENT_CONTEXT_SERVICE_AUTH_TOKEN, or the service does not answer)');
const WRITE_RESPONSES: readonly ResponseSpec[] = [
  { status: 201, description: 'Recorded: the effect, the projected authority, and the evidence rows (authority decision, outbox event)', schema: { type: 'object', required: ['authority', 'evidence'] } },
  UNAUTHORIZED,
  problemResponse(403, 'authority_context missing or incomplete, an intent the route does not perform, or one the governance composition does not admit'),
  problemResponse(404, 'Unknown agent, run or proposal'),
  problemResponse(409, 'Current state refuses it (already paused, run completed, proposal decided, nothing to roll back, id in use)'),
  problemResponse(422, 'The body fails its schema'),
  problemResponse(503, 'Fail closed: the authority projection is unavailable (no service auth token, governance unreachable)'),
];

const HEALTH_SCHEMA = { type: 'object', required: ['status', 'version', 'checks'], properties: { status: { enum: ['pass', 'warn', 'fail'] } } };

export function agentContextRoutes(h: AgentContextHandlers): Route[] {
  const open = (path: string, summary: string, handler: Handler, responses: readonly ResponseSpec[]): Route => ({
    method: 'GET', path, auth: 'none', summary, tags: ['self-description'], responses, handler,
    // A scrape never sends If-None-Match and changes every time: no ETag to hash.
    ...(path === '/metrics' && { etag: false }),
  });
  const read = (path: string, summary: string, handler: Handler, failClosed: boolean): Route => ({
    method: 'GET', path, auth: 'internal', summary, tags: ['internal-read'], handler,
    responses: [{ status: 200, description: summary, schema: { type: 'object' } }, UNAUTHORIZED, ...(failClosed ? [GOVERNANCE_503] : [])],
  });
  const write = (path: string, summary: string, handler: Handler, schema: unknown, tag: string): Route => ({
    method: 'POST', path, auth: 'internal', summary, tags: [tag], handler,
    request: { schema: schema as Record<string, unknown>, maxBytes: REQUEST_LIMIT_BYTES }, responses: WRITE_RESPONSES,
    ...(path.includes(':run_id') && { params: { run_id: { description: 'The run_id given at dispatch', example: 'run-0001' } } }),
    ...(path.includes(':proposal_id') && { params: { proposal_id: { description: 'The proposal_id given when written', example: 'proposal-0001' } } }),
  });
  return [
    open('/health', 'Liveness', h.health, [{ status: 200, description: 'Alive', contentType: HEALTH_TYPE, schema: HEALTH_SCHEMA }]),
    open('/ready', 'Readiness plus warnings, capability keys and self-description references', h.ready, [
      { status: 200, description: 'Ready (pass or warn)', contentType: HEALTH_TYPE, schema: HEALTH_SCHEMA },
      { status: 503, description: 'Not ready: the database does not answer', contentType: HEALTH_TYPE, schema: HEALTH_SCHEMA },
    ]),
    open('/version', 'The canonical version truth', h.version, [{ status: 200, description: 'Version', schema: { type: 'object', required: ['service', 'version'] } }]),
    open('/metrics', 'Prometheus text format 0.0.4: service, persistence, runtime, drift, outbox, control-agent and governance families', h.metrics, [
      { status: 200, description: 'Metrics', contentType: 'text/plain; version=0.0.4; charset=utf-8' },
    ]),
    open('/openapi.json', 'OpenAPI 3.1 export of this route table', h.openapi, [{ status: 200, description: 'The export', schema: { type: 'object', required: ['openapi', 'paths'] } }]),
    open('/governance-manifest.json', "This service's entry of governance-manifest.json", h.manifest, [{ status: 200, description: 'The manifest entry', schema: { type: 'object', required: ['service', 'exposed_surfaces'] } }]),

    read(`${V1}/runtime/inventory`, 'This process, its evidence tables, the persistent agents, and the governance declaration of this service', h.reads.inventory, false),
    read(`${V1}/topology/diff`, 'Declared topology (governance) against running: this listener, and each agent\'s desired against observed version', h.reads.topologyDiff, true),
    read(`${V1}/drift/summary`, 'The governance manifest\'s declaration of this service against what runs', h.reads.driftSummary, true),
    {
      ...read(`${V1}/rollouts/audit`, 'Runtime patches in order, a page at a time (after_seq, limit), the whole chain verified, beside the governance version truth', h.reads.rolloutsAudit, false),
      query: {
        after_seq: { description: 'Patches with a larger seq: 0 (default) for the first page, then the page\'s next_after_seq', schema: { type: 'string', pattern: '^[0-9]{1,16}$' }, example: '0' },
        limit: { description: 'Most patches on the page (1 to 500, default 100)', schema: { type: 'string', pattern: '^[0-9]{1,3}$' }, example: '100' },
      },
      responses: [{ status: 200, description: 'A page of patches, total, next_after_seq and the chain verification', schema: { type: 'object' } }, problemResponse(400, 'Unknown query parameter, or a bad after_seq or limit'), UNAUTHORIZED],
    },
    read(`${V1}/control-agent/status`, 'Control-agent mode, last command, and the governance module that admits control', h.reads.controlStatus, false),
    read(`${V1}/persistent-agents`, 'Persistent agents: desired and observed runtime, runs, patches', h.reads.persistentAgents, false),

    {
      method: 'POST', path: `${V1}/context/compose`, auth: 'internal', tags: ['live-upstream-context'], handler: h.compose,
      summary: 'Guarded live upstream context path: composes context through the governance context composer; needs AGENT_CONTEXT_SERVICE_AUTH_TOKEN',
      request: { schema: COMPOSE_SCHEMA, maxBytes: REQUEST_LIMIT_BYTES },
      responses: [{ status: 200, description: 'The governance composition as it answered', schema: { type: 'object', required: ['composition'] } }, UNAUTHORIZED, problemResponse(422, 'The body fails its schema, or governance refused it'), problemResponse(503, 'Fail closed: no service auth token, or governance unreachable')],
    },

    write(`${V1}/agent-runtime/patch/apply`, 'Apply a runtime patch: an agent\'s desired runtime and version', h.writes.patchApply, WRITE_SCHEMAS.patchApply, 'agent-runtime-patch'),
    write(`${V1}/agent-runtime/patch/rollback`, 'Roll an agent back to its previous version', h.writes.patchRollback, WRITE_SCHEMAS.patchRollback, 'agent-runtime-patch'),
    write(`${V1}/execution/runs`, 'Dispatch an execution run for a persistent agent (refused while the control agent is paused)', h.writes.runDispatch, WRITE_SCHEMAS.runDispatch, 'execution'),
    write(`${V1}/execution/runs/:run_id/result`, 'Record a run\'s outcome and the version the agent ran', h.writes.runResult, WRITE_SCHEMAS.runResult, 'execution'),
    write(`${V1}/control-agent/pause`, 'Pause the control agent: execution dispatch is refused until resumed', h.writes.controlPause, WRITE_SCHEMAS.control, 'control-agent'),
    write(`${V1}/control-agent/resume`, 'Resume the control agent', h.writes.controlResume, WRITE_SCHEMAS.control, 'control-agent'),
    write(`${V1}/learning-proposals`, 'Write a learning proposal for a persistent agent', h.writes.proposalWrite, WRITE_SCHEMAS.proposal, 'learning-proposals'),
    write(`${V1}/learning-proposals/:proposal_id/review`, 'Review a learning proposal: approved, rejected or needs_more_context (never by its author)', h.writes.proposalReview, WRITE_SCHEMAS.review, 'learning-proposals'),
  ];
}

/** The governance composer's request model, closed the same way (no caller authority). */
export const COMPOSE_SCHEMA = {
  type: 'object',
  required: ['role', 'include'],
  properties: {
    role: { enum: ['operator', 'reviewer', 'consumer', 'agent'] },
    module_key: { type: 'string', pattern: '^[a-z][a-z0-9-]{0,63}$' },
    include: { type: 'array', minItems: 1, uniqueItems: true, items: { enum: ['bootstrap', 'action_context', 'methodology', 'workflow', 'task_tool_selection', 'access_answers'] } },
  },
  additionalProperties: false,
} as const;
