// The governance route table: every read route of seed 001's Endpoints tables, as data. Each is
// served on both listeners (stampReadRoutes); the export, the manifest, the families and the
// drift check all read this one list.

import { exportOpenApi, HEALTH_TYPE } from '../kernel/index.ts';
import type { Route } from '../kernel/index.ts';
import { HEALTH_SCHEMA, healthReply } from './health.ts';
import { OPENAPI_INFO, SECURITY_SCHEMES } from './identity.ts';
import { stampReadRoutes } from './read-route.ts';
import type { ReadRoute } from './read-route.ts';
import type { GovernanceRuntime } from './runtime.ts';

export const READ_ROUTES: readonly ReadRoute[] = [
  {
    path: '/health', summary: 'Liveness: status, service, deployment role', capability: 'liveness', artifacts: [],
    schema: HEALTH_SCHEMA, contentType: HEALTH_TYPE, compute: healthReply,
    responses: [{ status: 503, description: 'The database does not answer', schema: HEALTH_SCHEMA, contentType: HEALTH_TYPE }],
  },
  {
    path: '/api/v1/openapi.json', summary: 'OpenAPI 3.1 export generated from the route table', capability: 'openapi-export', artifacts: [], cached: true,
    schema: { type: 'object', required: ['openapi', 'info', 'paths'], properties: { openapi: { const: '3.1.0' } } },
    compute: (runtime) => ({ status: 200, body: openApiDocument(runtime.routes) }),
  },
];

/** The whole table, both listeners; `runtime` is only called when a request is served. */
export function governanceRoutes(runtime: () => GovernanceRuntime): Route[] {
  return stampReadRoutes(READ_ROUTES, runtime);
}

/** The export of `routes`: the same document `npm run contracts` commits. */
export function openApiDocument(routes: readonly Route[]): Record<string, unknown> {
  return exportOpenApi({ info: OPENAPI_INFO, routes, securitySchemes: SECURITY_SCHEMES });
}
