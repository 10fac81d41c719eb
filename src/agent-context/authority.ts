// The projected authority context every write and control route needs. The caller names who acts
// (actor), in which role, within which module and with which action intent; this service then
// asks the governance service's context composer (the live upstream context path) for that role
// and module, and admits the write only when the composed action context lists the intent and
// the intent is the one the route performs. Missing or incomplete context, a composition the
// governance service refuses or cannot give, and an intent it does not admit all fail closed.

import { problem } from '../kernel/index.ts';
import type { Reply } from '../kernel/index.ts';
import type { GovernanceClient } from './governance-client.ts';

export const AUTHORITY_FIELDS = ['role', 'module_key', 'action_intent', 'actor'] as const;

/** The authority_context member of every write body, as the schema allows it (every field optional, so the handler can say which is missing). */
export const AUTHORITY_CONTEXT_SCHEMA = {
  type: 'object',
  description: 'Who acts, in which role, within which governance module and with which action intent; projected through the governance context composer',
  properties: {
    role: { enum: ['operator', 'reviewer', 'consumer', 'agent'] },
    module_key: { type: 'string', pattern: '^[a-z][a-z0-9-]{0,63}$' },
    action_intent: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,63}$' },
    actor: { type: 'string', minLength: 1, maxLength: 128 },
  },
  additionalProperties: false,
} as const;

export interface AuthorityContext {
  role: string;
  module_key: string;
  action_intent: string;
  actor: string;
}

/** What an admitted write records: the caller's context and the governance composition that admitted it. */
export interface ProjectedAuthority extends AuthorityContext {
  capability_class: string;
  governance_evidence: { table: string; seq: number; sha256: string } | null;
}

export type AuthorityOutcome = { ok: true; authority: ProjectedAuthority } | { ok: false; reason: string; reply: Reply; context: Partial<AuthorityContext> | undefined };

function refuse(status: number, reason: string, detail: string, context: Partial<AuthorityContext> | undefined): AuthorityOutcome {
  const title = status === 503 ? 'Authority projection unavailable' : 'Authority context not admitted';
  return { ok: false, reason, context, reply: problem(status, title, { type: reason.replace(/_/g, '-'), detail, extensions: { reason } }) };
}

/**
 * Projects the authority of one write.
 *
 * @example
 * const outcome = await projectAuthority(body.authority_context, { intent: 'control_agent', governance, requestId });
 */
export async function projectAuthority(
  presented: unknown,
  options: { intent: string; governance: GovernanceClient; requestId: string },
): Promise<AuthorityOutcome> {
  if (presented === undefined || presented === null) {
    return refuse(403, 'authority_context_missing', 'The body carries no authority_context: name role, module_key, action_intent and actor', undefined);
  }
  const context = presented as Partial<AuthorityContext>;
  const missing = AUTHORITY_FIELDS.filter((field) => typeof context[field] !== 'string' || context[field].trim() === '');
  if (missing.length > 0) {
    return refuse(403, 'authority_context_incomplete', `authority_context lacks ${missing.map((m) => `"${m}"`).join(', ')}: the write fails closed`, context);
  }
  const complete = context as AuthorityContext;
  if (complete.action_intent !== options.intent) {
    return refuse(403, 'action_intent_mismatch', `This route performs "${options.intent}", but authority_context names "${complete.action_intent}"`, complete);
  }
  const composed = await options.governance.compose({ role: complete.role, module_key: complete.module_key, include: ['action_context'] }, options.requestId);
  if (!composed.ok) {
    // Only the composer's 422 judges the role and module; a 401, 403 or 404 is this service's wiring
    // (its token, or GOVERNANCE_URL on the platform listener, which serves no composer): 503.
    if (composed.outcome === 'http_error' && composed.status === 422) {
      return refuse(403, 'authority_not_projected', `The governance context composer refused role "${complete.role}" and module "${complete.module_key}": ${composed.reason}`, complete);
    }
    return refuse(503, `authority_projection_${composed.outcome}`, `Cannot project authority from the governance context composer: ${composed.reason}`, complete);
  }
  const body = composed.body as { context?: { action_context?: { admitted_action_intents?: unknown; capability_class?: unknown } }; evidence?: { table?: unknown; seq?: unknown; sha256?: unknown } };
  const action = body.context?.action_context;
  const intents = action?.admitted_action_intents;
  if (!Array.isArray(intents) || typeof action?.capability_class !== 'string') {
    return refuse(503, 'authority_projection_incomplete', 'The governance composition carries no action context with admitted_action_intents and capability_class', complete);
  }
  if (!intents.includes(complete.action_intent)) {
    return refuse(403, 'action_intent_not_admitted', `Module "${complete.module_key}" admits ${intents.length === 0 ? 'no action intent' : intents.map((i) => `"${String(i)}"`).join(', ')}, not "${complete.action_intent}"`, complete);
  }
  const evidence = body.evidence;
  return {
    ok: true,
    authority: {
      role: complete.role,
      module_key: complete.module_key,
      action_intent: complete.action_intent,
      actor: complete.actor,
      capability_class: action.capability_class,
      governance_evidence:
        typeof evidence?.table === 'string' && typeof evidence.seq === 'number' && typeof evidence.sha256 === 'string'
          ? { table: evidence.table, seq: evidence.seq, sha256: evidence.sha256 }
          : null,
    },
  };
}
