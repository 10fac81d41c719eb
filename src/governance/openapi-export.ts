// The OpenAPI 3.1 export of the governance route table: served at /api/v1/openapi.json and
// committed by `npm run contracts` as contracts/api/governance_openapi_v1.json (same function).

import { exportOpenApi } from '../kernel/index.ts';
import type { Route } from '../kernel/index.ts';
import { OPENAPI_INFO, OPENAPI_SERVERS } from './identity.ts';
import { SECURITY_SCHEMES } from './lanes.ts';

export function openApiDocument(routes: readonly Route[]): Record<string, unknown> {
  return exportOpenApi({ info: OPENAPI_INFO, routes, securitySchemes: SECURITY_SCHEMES, servers: OPENAPI_SERVERS });
}
