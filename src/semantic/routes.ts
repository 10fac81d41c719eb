// The semantic API's route table: the seed's Endpoints table as data. The router, the OpenAPI
// export (contracts/api/semantic_openapi_v1.json), the manifest and the CDC check all read it.
// No endpoint takes query parameters: any is refused with 400 before the handler runs.

import { openApiRoute, problem, PROBLEM_TYPE } from '../kernel/index.ts';
import type { Handler, ResponseSpec, Route } from '../kernel/index.ts';
import { CONTEXT_SCHEMA, fixtureResponseSchema, HEALTH_SCHEMA, PROJECTION_SCHEMA, STATUS_SCHEMA, TOPOLOGY_SCHEMA } from './api-schemas.ts';
import { FIXTURES } from './fixtures.ts';
import type { FixtureName } from './fixture-contract.ts';
import { PROJECTION_REQUEST_SCHEMA } from './projection-verification.ts';

export const API_PREFIX = '/api/v1/semantic';
export const STATUS_PATH = `${API_PREFIX}/runtime/status`;
export const CONTEXT_PATH = `${API_PREFIX}/context/readback`;
export const TOPOLOGY_PATH = `${API_PREFIX}/topology/metrics/readback`;
export const PROJECTION_PATH = `${API_PREFIX}/projection-verification/runs`;
export const FIXTURE_PREFIX = `${API_PREFIX}/fixtures`;

/** Body limit of every semantic request: requests are a few ids. */
export const REQUEST_LIMIT_BYTES = 16 * 1024;

export interface SemanticHandlers {
  healthz: Handler;
  readyz: Handler;
  status: Handler;
  context: Handler;
  topology: Handler;
  projection: Handler;
  fixture(name: FixtureName): Handler;
}

/** Handlers for a table built without configuration (manifest, OpenAPI export): never called. */
export const UNCONFIGURED_HANDLERS: SemanticHandlers = {
  healthz: unconfigured,
  readyz: unconfigured,
  status: unconfigured,
  context: unconfigured,
  topology: unconfigured,
  projection: unconfigured,
  fixture: () => unconfigured,
};

const problemResponse = (status: number, description: string): ResponseSpec => ({
  status,
  description,
  contentType: PROBLEM_TYPE,
  schema: { $ref: '#/components/schemas/Problem' },
});
const QUERY_REFUSED = problemResponse(400, 'A query parameter was sent: no endpoint takes any');
const HEALTH_TYPE = 'application/health+json';

/**
 * The route table over `handlers`.
 *
 * @example
 * createService({ name: 'semantic', routes: semanticRoutes(handlers), ... });
 */
export function semanticRoutes(handlers: SemanticHandlers): Route[] {
  const routes: Route[] = [
    {
      method: 'GET', path: '/healthz', auth: 'none', tags: ['health'], operationId: 'getHealthz',
      summary: 'Internal health readback (open on loopback)',
      responses: [{ status: 200, description: 'The process answers', contentType: HEALTH_TYPE, schema: HEALTH_SCHEMA }, QUERY_REFUSED],
      handler: handlers.healthz,
    },
    {
      method: 'GET', path: '/readyz', auth: 'none', tags: ['health'], operationId: 'getReadyz',
      summary: 'Internal readiness readback: control database, worker, allowlist, consumers, runtime-owner artifact, upstreams',
      responses: [
        { status: 200, description: 'Ready (pass) or degraded (warn)', contentType: HEALTH_TYPE, schema: HEALTH_SCHEMA },
        { status: 503, description: 'Not ready: the control database is unmigrated or its schema check fails', contentType: HEALTH_TYPE, schema: HEALTH_SCHEMA },
        QUERY_REFUSED,
      ],
      handler: handlers.readyz,
    },
    {
      method: 'GET', path: STATUS_PATH, auth: 'consumer', tags: ['readback'], operationId: 'getRuntimeStatus',
      summary: 'Runtime status readback (ETag); consumers admitted by ts01_consumer_matrix only',
      responses: [{ status: 200, description: 'Runtime status', schema: STATUS_SCHEMA }, QUERY_REFUSED],
      handler: handlers.status,
    },
    {
      method: 'GET', path: CONTEXT_PATH, auth: 'consumer', tags: ['readback'], operationId: 'getContextReadback',
      summary: 'Context availability: service-owned provenance, freshness, schema-derived degradation, authority-boundary flags (all false)',
      responses: [{ status: 200, description: 'Context availability', schema: CONTEXT_SCHEMA }, QUERY_REFUSED],
      handler: handlers.context,
    },
    {
      method: 'GET', path: TOPOLOGY_PATH, auth: 'operator', tags: ['operator'], operationId: 'getTopologyMetrics',
      summary: 'Exactly six allowlisted topology metrics from the runtime-owner artifact; unavailable ones are marked, never zero',
      responses: [{ status: 200, description: 'The six metrics', schema: TOPOLOGY_SCHEMA }, QUERY_REFUSED],
      handler: handlers.topology,
    },
    {
      method: 'POST', path: PROJECTION_PATH, auth: 'projection', tags: ['operator'], operationId: 'createProjectionVerificationRun',
      summary: 'S0 projection-verification run: seven deterministic synthetic receipts for an admitted ts02: case ref',
      request: { schema: PROJECTION_REQUEST_SCHEMA, maxBytes: REQUEST_LIMIT_BYTES },
      responses: [
        { status: 200, description: 'Receipts (a replay of a known correlation id answers the same body)', schema: PROJECTION_SCHEMA },
        problemResponse(403, 'Case ref not in SEMANTIC_PROJECTION_CASE_ALLOWLIST'),
        problemResponse(422, 'Body fails its schema, or the correlation id was used with another body'),
        problemResponse(503, 'No case allowlist configured: fails closed'),
        QUERY_REFUSED,
      ],
      handler: handlers.projection,
    },
    ...FIXTURES.map((fixture): Route => ({
      method: 'POST',
      path: `${FIXTURE_PREFIX}/${fixture.name}`,
      auth: 'operator',
      tags: ['fixtures'],
      operationId: `createFixture_${fixture.name.replace(/-/g, '_')}`,
      summary: `Synthetic fixture (S0): ${fixture.summary}`,
      request: { schema: fixture.request, maxBytes: REQUEST_LIMIT_BYTES, ...(fixture.optionalBody && { optional: true }) },
      responses: [{ status: 200, description: 'Synthetic receipt: asserted, never executed', schema: fixtureResponseSchema(fixture.name) }, QUERY_REFUSED],
      handler: handlers.fixture(fixture.name),
    })),
    openApiRoute('/openapi.json', async () => (await import('./manifest.ts')).manifest),
  ];
  return routes.map((route) => ({ ...route, handler: refuseQuery(route.handler) }));
}

function refuseQuery(handler: Handler): Handler {
  return (context) => {
    if (context.query.size === 0) return handler(context);
    const names = [...new Set(context.query.keys())].map((name) => `"${name}"`).join(', ');
    return problem(400, 'Query parameter not accepted', { type: 'query_not_accepted', detail: `Cannot accept query parameter ${names}: this endpoint takes none` });
  };
}

function unconfigured(): never {
  throw new TypeError('This route table was built without configuration (manifest or export): its handlers cannot run');
}

