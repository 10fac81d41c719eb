// Seed 001's "Agent bootstrap" routes as data: the agent contracts catalog and members, the
// role-filtered bootstrap, a module's action context and the event-modeling methodology.

import { actionContextReply, agentCatalogReply, bootstrapReply } from './agent-context.ts';
import type { ReadRoute } from '../routing/read-route.ts';
import { NOT_FOUND, published, V1 } from '../routing/table-helpers.ts';

export const AGENT_READS: readonly ReadRoute[] = [
  { path: `${V1}/agent/contracts`, summary: 'Catalog of the agent contracts', capability: 'agent-bootstrap', uses: ['agent_contracts'], cached: true, compute: agentCatalogReply },
  ...published('agent_contracts', [
    ['/agent/contracts/owner-matrix', 'owner-matrix', 'Owner of each service and the decisions it takes'],
    ['/agent/contracts/capability-module-map', 'capability-module-map', 'Modules with capability class, tools and admitted intents'],
    ['/agent/contracts/task-tool-selection', 'task-tool-selection', 'How an agent picks a tool'],
    ['/agent/contracts/access-answers', 'access-answers', 'Standard answers about access'],
    ['/agent/contracts/tool-usage', 'tool-usage', 'Limits on tool use'],
    ['/agent/contracts/learning-signal', 'learning-signal', 'Learning-signal collection (not deployed)'],
    ['/agent/contracts/workflow', 'workflow', 'Contract of the agent workflow'],
    ['/agent/workflow', 'workflow-truth', 'Workflow truth as this service holds it'],
  ]),
  {
    path: `${V1}/agent/bootstrap`, summary: 'Bootstrap context filtered by the caller\'s role', capability: 'agent-bootstrap', uses: ['agent_contracts/bootstrap'], compute: bootstrapReply,
    query: { role: { description: 'operator, reviewer, consumer or agent', required: true, example: 'agent', schema: { enum: ['operator', 'reviewer', 'consumer', 'agent'] } } },
    responses: [{ status: 422, description: 'Missing or unknown role' }],
  },
  {
    path: `${V1}/agent/action-context/:module_key`, summary: 'Action context of one module', capability: 'agent-bootstrap', uses: ['agent_contracts/capability-module-map', 'acp_contracts/tool-action-registry'], compute: actionContextReply,
    params: { module_key: { description: 'A module of the capability-module map', example: 'crm-context' } },
    responses: NOT_FOUND('No module with this key'),
  },
  ...published('event_modeling', [['/agent/methodology/event-modeling', 'methodology', 'Event-modeling methodology for agents']]),
];
