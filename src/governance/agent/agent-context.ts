// Agent bootstrap: the contracts catalog (computed from the route table), the bootstrap context
// filtered by the caller's role, and the action context of one module.

import { json, problem } from '../../kernel/index.ts';
import type { Reply, RequestContext } from '../../kernel/index.ts';
import { toolRegistry } from '../contracts/crossrefs.ts';
import { artifactMember, splitRef } from '../routing/read-route.ts';
import type { GovernanceRuntime } from '../runtime.ts';

const CATALOG_PREFIX = '/api/v1/agent/contracts/';

/** GET /api/v1/agent/contracts: every agent contract route, with its member's summary and state. */
export function agentCatalogReply(runtime: GovernanceRuntime): Reply {
  const contracts = runtime.reads
    .filter((read) => read.path.startsWith(CATALOG_PREFIX) && read.publish !== undefined)
    .map((read) => {
      const member = artifactMember(runtime, read.publish!);
      return { route: read.path, member: splitRef(read.publish!).member, summary: member?.summary ?? read.summary, projection_state: member?.projection_state ?? 'fail_closed' };
    });
  return json({ member: 'catalog', projection_state: 'published', contracts });
}

interface BootstrapItem {
  id: string;
  roles: string[];
  text: string;
  refs: string[];
}

/** GET /api/v1/agent/bootstrap?role=<role>: the items of one role. The role scopes relevance; it grants nothing. */
export function bootstrapReply(runtime: GovernanceRuntime, request: RequestContext): Reply {
  const bootstrap = artifactMember(runtime, 'agent_contracts/bootstrap')!;
  const roles = bootstrap['roles'] as string[];
  const role = request.query.getAll('role');
  if (role.length !== 1 || !roles.includes(role[0]!)) {
    const detail = role.length === 0 ? `Query parameter "role" is required: one of ${roles.join(', ')}` : `Role "${role.join(',')}" is not one of ${roles.join(', ')}`;
    return problem(422, 'Unknown role', { type: 'agent-bootstrap-role', detail, errors: [{ pointer: '/query/role', detail }], extensions: { roles } });
  }
  const items = (bootstrap['items'] as BootstrapItem[]).filter((item) => item.roles.includes(role[0]!)).map(({ id, text, refs }) => ({ id, text, refs }));
  return json({ role: role[0], items, roles, projection_state: bootstrap.projection_state, authority: 'bootstrap context grants no authority; each action carries its own auth truth' });
}

interface Module {
  module_key: string;
  capability_class: string;
  owner: string;
  tools: string[];
  action_intents: string[];
  reads: string[];
}

/** GET /api/v1/agent/action-context/{module_key}: 404 for a module the map does not name. */
export function actionContextReply(runtime: GovernanceRuntime, request: RequestContext): Reply {
  const modules = artifactMember(runtime, 'agent_contracts/capability-module-map')!['modules'] as Module[];
  const key = request.params['module_key'] ?? '';
  const module = modules.find((m) => m.module_key === key);
  if (!module) {
    return problem(404, 'Unknown module', { detail: `Module "${key}" is not in the capability-module map: known ${modules.map((m) => m.module_key).join(', ')}` });
  }
  const registry = toolRegistry(runtime) ?? [];
  return json({
    module_key: module.module_key,
    capability_class: module.capability_class,
    owner: module.owner,
    admitted_action_intents: module.action_intents,
    tools: module.tools.map((name) => registry.find((t) => t.tool_name === name) ?? { tool_name: name, state: 'unregistered' }),
    reads: module.reads,
    authority: module.action_intents.length === 0 ? 'none: no action intent is admitted for this module' : 'only the admitted action intents, each with its own auth truth',
  });
}

/** GET /api/v1/acp/projections/read-only-capability: the registry's tools without side effects. */
export function readOnlyCapabilityReply(runtime: GovernanceRuntime): Reply {
  const tools = (toolRegistry(runtime) ?? []).filter((t) => t.capability_class === 'read_only' || t.capability_class === 'context_read');
  return json({
    member: 'read-only-capability',
    projection_state: 'published',
    computed_from: 'acp_contracts/tool-action-registry',
    tools: tools.map((t) => ({ tool_name: t.tool_name, capability_class: t.capability_class, state: t.state, needs_assertion: t.assertable })),
  });
}
