// The governance route table: seed 001's Endpoints tables, one slice per family folder, as data.
// Each read is served on both listeners (stampReadRoutes), each write on the worker; the export,
// the manifest, the families, the projection catalog and the drift check all read this one list.
// `publish` routes serve an artifact member as it is; `compute` routes derive their answer and
// name what they read.

import type { Route } from '../kernel/index.ts';
import { IDENTITY_READS, IDENTITY_WRITES } from './access/routes.ts';
import { AGENT_READS } from './agent/routes.ts';
import { CORE_READS, CORE_WRITES } from './contracts/routes.ts';
import { EVENTS_READS, EVENTS_WRITES } from './events/routes.ts';
import { PLANNING_READS, PLANNING_WRITES } from './planning/routes.ts';
import { PLATFORM_READS, PLATFORM_WRITES } from './platform/routes.ts';
import { PRODUCT_DOMAIN_READS } from './product-domain/routes.ts';
import { stampReadRoutes } from './routing/read-route.ts';
import type { ReadRoute } from './routing/read-route.ts';
import { stampWriteRoutes } from './routing/write-route.ts';
import type { WriteRoute } from './routing/write-route.ts';
import type { GovernanceRuntime } from './runtime.ts';
import { TOOLS_READS, TOOLS_WRITES } from './tools/routes.ts';

/** Every read, in the order of the seed's tables. */
export const READ_ROUTES: readonly ReadRoute[] = [
  ...CORE_READS,
  ...IDENTITY_READS,
  ...AGENT_READS,
  ...TOOLS_READS,
  ...PLATFORM_READS,
  ...EVENTS_READS,
  ...PRODUCT_DOMAIN_READS,
  ...PLANNING_READS,
];

/** The guarded writes, worker listener only. */
export const WRITE_ROUTES: readonly WriteRoute[] = [
  ...CORE_WRITES,
  ...PLANNING_WRITES,
  ...IDENTITY_WRITES,
  ...TOOLS_WRITES,
  ...EVENTS_WRITES,
  ...PLATFORM_WRITES,
];

/** The whole table, both listeners; `runtime` is only called when a request is served. */
export function governanceRoutes(runtime: () => GovernanceRuntime): Route[] {
  return [...stampReadRoutes(READ_ROUTES, runtime), ...stampWriteRoutes(WRITE_ROUTES, runtime)];
}
