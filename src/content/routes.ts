// The content repository's one route table: the share UI, the OIDC bridge, the repository API
// (nodes, versions, renditions, search, probes, the assistant's reference surface). The
// manifest builds it without configuration; handlers then are never called.

import { openApiRoute } from '../kernel/index.ts';
import type { Route } from '../kernel/index.ts';
import type { ContentDeps } from './api-support.ts';
import { nodeRoutes } from './node-routes.ts';
import { authRoutes } from './oidc/auth-routes.ts';
import type { Bridge } from './oidc/bridge.ts';
import { probeRoutes } from './probes.ts';
import { searchRoutes } from './search-route.ts';
import { shareRoutes } from './share/routes.ts';
import { transcriptRoutes } from './transcript-references.ts';
import { versionRoutes } from './version-routes.ts';

export function contentRoutes(deps: ContentDeps, bridge: Bridge): Route[] {
  const served = openApiRoute('/openapi.json', async () => (await import('./manifest.ts')).manifest);
  return [...shareRoutes(deps), ...authRoutes(bridge), ...nodeRoutes(deps), ...versionRoutes(deps), ...searchRoutes(deps), ...probeRoutes(deps), ...transcriptRoutes(deps), served];
}

/** Stand-ins for the manifest's table: route factories only keep references, they call nothing. */
export const UNCONFIGURED_DEPS = { store: {}, blobs: {}, config: {}, log: {} } as unknown as ContentDeps;
export const UNCONFIGURED_BRIDGE = {} as unknown as Bridge;
