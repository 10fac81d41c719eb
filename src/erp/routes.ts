// The ERP route table: one slice per endpoint family (STYLE.md "A service of many families").
// This file only concatenates; later families (approvals and dispatch, callbacks, workspace
// binding, support cases, identity projections, MCP) are new slices added here.

import { approvalRoutes } from './approvals/routes.ts';
import { callbackRoutes } from './callbacks/routes.ts';
import type { DepsRef, ErpRoute } from './erp-route.ts';
import { loginRoutes } from './frappe/login-routes.ts';
import { healthRoutes } from './health/routes.ts';
import { clientMethodRoutes } from './resources/client-methods.ts';
import { resourceRoutes } from './resources/routes.ts';
import { webhookRoutes } from './webhooks/routes.ts';
import { workflowRoutes } from './workflows/routes.ts';
import { workspaceBindingRoutes } from './workspace-binding/routes.ts';
import { supportRoutes } from './support-cases/routes.ts';
import { identityRoutes } from './identity-projections/routes.ts';
import { mcpRoutesOf } from './mcp/mount.ts';

export function erpRoutes(deps: DepsRef): readonly ErpRoute[] {
  return [
    ...healthRoutes(deps), ...loginRoutes(deps), ...resourceRoutes(deps), ...clientMethodRoutes(deps), ...webhookRoutes(deps), ...workflowRoutes(deps),
    ...approvalRoutes(deps), ...workspaceBindingRoutes(deps), ...callbackRoutes(deps),
    ...supportRoutes(deps), ...identityRoutes(deps), ...mcpRoutesOf(deps),
  ];
}
