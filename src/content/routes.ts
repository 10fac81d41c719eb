// The content repository's one route table: the share UI, the OIDC bridge, the repository API
// (nodes, versions, renditions, search, probes, the assistant's reference surface). The
// manifest builds it without configuration; handlers then are never called.

import type { Route } from '../kernel/index.ts';
import { API_BASE, JS_API_BASE } from './api-support.ts';
import type { ContentDeps } from './api-support.ts';
import { nodeRoutes } from './node-routes.ts';
import { authRoutes } from './oidc/auth-routes.ts';
import type { Bridge } from './oidc/bridge.ts';
import { probeRoutes } from './probes.ts';
import { searchRoutes } from './search-route.ts';
import { shareRoutes } from './share/routes.ts';
import { transcriptRoutes } from './transcript-references.ts';
import { trashcanRoutes } from './trashcan-routes.ts';
import { versionRoutes } from './version-routes.ts';

export function contentRoutes(deps: ContentDeps, bridge: Bridge): Route[] {
  return withJsApiPaths([...shareRoutes(deps), ...authRoutes(bridge), ...nodeRoutes(deps), ...versionRoutes(deps), ...trashcanRoutes(deps), ...searchRoutes(deps), ...probeRoutes(deps), ...transcriptRoutes(deps)]);
}

/** Every route under API_BASE once more under JS_API_BASE: the same handler, so the same answers. */
function withJsApiPaths(routes: Route[]): Route[] {
  const aliases = routes
    .filter((route) => route.path.startsWith(`${API_BASE}/`))
    .map((route) => ({ ...route, path: `${JS_API_BASE}${route.path.slice(API_BASE.length)}`, summary: `${route.summary} (at the path @alfresco/js-api builds)` }));
  return [...routes, ...aliases];
}

/** Stand-ins for the manifest's table: route factories only keep references, they call nothing. */
export const UNCONFIGURED_DEPS = { store: {}, blobs: {}, config: {}, log: {} } as unknown as ContentDeps;
export const UNCONFIGURED_BRIDGE = {} as unknown as Bridge;
