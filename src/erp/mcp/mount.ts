// /mcp on the ERP listener: the kernel MCP server with the ERP's tools, its Origin allowlist from
// ERP_MCP_ALLOWED_ORIGINS, and the Frappe token or session authentication workflows.* uses as its
// hook. One mount per service (keyed by its DepsRef): the route slice and the service's
// authenticator table read the same server.

import { createMcpServer, mcpRoutes } from '../../kernel/index.ts';
import type { McpMount } from '../../kernel/index.ts';
import type { DepsRef, ErpRoute } from '../erp-route.ts';
import { frappeAuthenticator } from '../frappe/authenticator.ts';
import { SERVICE_NAME } from '../identity.ts';
import { erpTools } from './tools.ts';

export const MCP_PATH = '/mcp';
export const MCP_AUTH = 'erp_mcp';

const mounts = new WeakMap<DepsRef, McpMount>();

function origins(deps: DepsRef): readonly string[] {
  try {
    return deps().config.outbound.mcpAllowedOrigins;
  } catch {
    // The manifest builds the route table without a running service; nothing is served from it.
    return [];
  }
}

export function erpMcpMount(deps: DepsRef): McpMount {
  let mount = mounts.get(deps);
  if (mount) return mount;
  let version = '0.0.0';
  try {
    version = deps().version;
  } catch {
    // As above: the manifest's table carries no version.
  }
  const server = createMcpServer({
    info: { name: `airlock-${SERVICE_NAME}`, version },
    instructions: 'Tools over the ERP integration service: read integration status, business documents, open approval packets, dead letters and support context; request_approval is the one writing tool (an Approval Packet for one document).',
    tools: erpTools(deps),
    allowedOrigins: origins(deps),
    authenticate: (context) => {
      const { config, sessions } = deps();
      return frappeAuthenticator(config.apiKeys, sessions)(context);
    },
  });
  mount = mcpRoutes(server, { path: MCP_PATH, auth: MCP_AUTH });
  mounts.set(deps, mount);
  return mount;
}

export function mcpRoutesOf(deps: DepsRef): ErpRoute[] {
  // The kernel names the mount's own authenticator; callers meet Frappe's token or session auth behind the Origin check.
  return erpMcpMount(deps).routes.map((route) => ({ ...route, family: 'mcp', stability: 'stable', authLabel: 'frappe (after the Origin allowlist)' }));
}
