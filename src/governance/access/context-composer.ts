// POST /api/v1/context-composer/context: composes context for a role from admitted sources only
// (members of the agent and event-modeling contracts). The request model is closed, so a caller
// cannot hand in authority, grants, scopes or context of its own; the composition grants nothing.

import { json, problem, writeReply } from '../../kernel/index.ts';
import type { Reply, RequestContext } from '../../kernel/index.ts';
import { actionContextReply, bootstrapReply } from '../agent/agent-context.ts';
import { contextCompositions } from '../database.ts';
import { artifactMember, splitRef } from '../routing/read-route.ts';
import type { GovernanceRuntime } from '../runtime.ts';

/** Each admitted source: the artifact member it composes from. */
export const COMPOSER_SOURCES = {
  bootstrap: 'agent_contracts/bootstrap',
  action_context: 'agent_contracts/capability-module-map',
  methodology: 'event_modeling/methodology',
  workflow: 'agent_contracts/workflow',
  task_tool_selection: 'agent_contracts/task-tool-selection',
  access_answers: 'agent_contracts/access-answers',
} as const;

type Source = keyof typeof COMPOSER_SOURCES;

interface ComposeRequest {
  role: string;
  module_key?: string;
  include: Source[];
}

function bodyOf(reply: Reply): unknown {
  return reply.raw === undefined ? reply.body : JSON.parse(typeof reply.raw === 'string' ? reply.raw : Buffer.from(reply.raw).toString('utf8'));
}

export async function composeContextReply(runtime: GovernanceRuntime, context: RequestContext): Promise<Reply> {
  const request = context.body as ComposeRequest;
  if (request.include.includes('action_context') && request.module_key === undefined) {
    return problem(422, 'Request body is invalid', { detail: 'action_context needs module_key', errors: [{ pointer: '/module_key', detail: 'required when include names action_context' }] });
  }
  // A named module must be admitted whatever is included: an unknown one is refused, not composed around.
  if (request.module_key !== undefined && actionContextReply(runtime, { ...context, params: { module_key: request.module_key } }).status !== 200) {
    return problem(422, 'Module not admitted', { detail: `Module "${request.module_key}" is not in the capability-module map, so no context is composed`, errors: [{ pointer: '/module_key', detail: 'not an admitted module' }] });
  }
  const composed: Record<string, unknown> = {};
  const sources: { include: Source; member: string; artifact: { id: string; version: string | null; sha256: string | null } }[] = [];
  for (const include of request.include) {
    const ref = COMPOSER_SOURCES[include];
    let part: unknown;
    if (include === 'bootstrap') part = bodyOf(bootstrapReply(runtime, { ...context, query: new URLSearchParams({ role: request.role }) }));
    else if (include === 'action_context') {
      part = bodyOf(actionContextReply(runtime, { ...context, params: { module_key: request.module_key! } }));
    } else part = artifactMember(runtime, ref);
    composed[include] = part;
    const artifact = runtime.artifacts.get(splitRef(ref).artifact);
    sources.push({ include, member: ref, artifact: { id: artifact.id, version: artifact.version ?? null, sha256: artifact.sha256 ?? null } });
  }
  return writeReply(context, {
    store: runtime.store,
    work: (_sqlite, tx) => tx.append(contextCompositions, {
    role: request.role,
    verdict: 'composed',
    payload: { include: request.include, module_key: request.module_key ?? null, sources: sources.map((s) => ({ member: s.member, sha256: s.artifact.sha256 })) },
  }),
    reply: (row) => json({
    role: request.role,
    module_key: request.module_key ?? null,
    context: composed,
    sources,
    caller_authority: 'refused: the request admits no authority, grants, scopes or caller context',
    authority: 'none: composed context grants nothing; each action carries its own auth truth',
    evidence: { table: contextCompositions.name, seq: row.seq, sha256: row.sha256 },
  }),
  });
}
