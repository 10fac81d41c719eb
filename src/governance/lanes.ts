// Who may call what. Each lane (operator, the BFF consumer, the mail-management and
// product-entitlement producers and consumers) holds its own bearer token. The worker listener
// authenticates before route resolution (seed 001: operator authentication): the operator token
// passes that gate for every path; another lane's token passes it only for a route that admits
// that lane, so a consumer cannot tell real routes from fake ones (every other path is the same
// 401 as no token); a git-host delivery passes it too (POST to the webhook path with a
// well-formed X-Hub-Signature-256, since a git host cannot send a token). Then each route admits
// only its own lanes: 403 for another lane's token (the operator's, since only it passes the gate
// elsewhere). Every refusal of a credential or a signature is the same fixed 401, so a 401 proves
// nothing about a route.

import { DEFAULT_BODY_LIMIT, createRouter, mediaTypeOf, parseBearer, problem, whichToken } from '../kernel/index.ts';
import type { Authenticator, IncomingHeaders, Reply, RequestContext, Route } from '../kernel/index.ts';
import { LANES, PLATFORM_LISTENER, WORKER_LISTENER } from './config.ts';
import type { GovernanceConfig, Lane } from './config.ts';

export const GIT_HOST_WEBHOOK_PATH = '/api/v1/integrations/git-host/webhook';
const HUB_SIGNATURE = /^sha256=[0-9a-fA-F]{64}$/;

/** The listener's own authenticator, run before route resolution. */
export const WORKER_GATE = 'worker';

/** Route authenticators: the lanes each admits on each listener. */
export const ROUTE_LANES = {
  operator: { [WORKER_LISTENER]: ['operator'], [PLATFORM_LISTENER]: [] },
  bff: { [WORKER_LISTENER]: ['bff'], [PLATFORM_LISTENER]: ['bff'] },
  planning_reader: { [WORKER_LISTENER]: ['bff', 'operator'], [PLATFORM_LISTENER]: ['bff'] },
  mail_producer: { [WORKER_LISTENER]: ['mail_producer'], [PLATFORM_LISTENER]: [] },
  mail_consumer: { [WORKER_LISTENER]: ['mail_consumer'], [PLATFORM_LISTENER]: ['mail_consumer'] },
  entitlement_producer: { [WORKER_LISTENER]: ['entitlement_producer'], [PLATFORM_LISTENER]: [] },
  entitlement_consumer: { [WORKER_LISTENER]: ['entitlement_consumer'], [PLATFORM_LISTENER]: ['entitlement_consumer'] },
} as const satisfies Record<string, Record<string, readonly Lane[]>>;

export type LaneAuth = keyof typeof ROUTE_LANES;
/** The authenticator of a route: a lane authenticator, the git-host signature, or none. */
export type RouteAuth = LaneAuth | 'git_host' | 'none';

/** Security schemes of the export, one per route authenticator. */
export const SECURITY_SCHEMES: Record<Exclude<RouteAuth, 'none'>, Record<string, unknown>> = {
  operator: { type: 'http', scheme: 'bearer', description: 'GOVERNANCE_OPERATOR_TOKEN; worker listener only, checked before route resolution' },
  bff: { type: 'http', scheme: 'bearer', description: 'GOVERNANCE_BFF_TOKEN: the one BFF consumer of create_session and answer_turn' },
  planning_reader: { type: 'http', scheme: 'bearer', description: 'GOVERNANCE_BFF_TOKEN on either listener, or GOVERNANCE_OPERATOR_TOKEN on the worker listener' },
  mail_producer: { type: 'http', scheme: 'bearer', description: 'GOVERNANCE_MAIL_PRODUCER_TOKEN: writes mail-management administrator truth' },
  mail_consumer: { type: 'http', scheme: 'bearer', description: 'GOVERNANCE_MAIL_CONSUMER_TOKEN: reads mail-management decisions, admissions and revocations' },
  entitlement_producer: { type: 'http', scheme: 'bearer', description: 'GOVERNANCE_ENTITLEMENT_PRODUCER_TOKEN: writes product-entitlement truth' },
  entitlement_consumer: { type: 'http', scheme: 'bearer', description: 'GOVERNANCE_ENTITLEMENT_CONSUMER_TOKEN: reads product-entitlement decisions' },
  git_host: { type: 'apiKey', in: 'header', name: 'X-Hub-Signature-256', description: 'sha256=<hex HMAC-SHA256(GOVERNANCE_GIT_HOST_WEBHOOK_SECRET, raw body)>, verified over the raw bytes before parsing; a git host sends no bearer token' },
};

const REALMS: Record<string, string> = { [WORKER_LISTENER]: 'governance-worker', [PLATFORM_LISTENER]: 'governance-platform' };

/** The one 401 of a listener: missing, unknown or wrong-scheme token, and a bad git-host signature alike. */
export function unauthorized(listener: string): Reply {
  return problem(401, 'Unauthorized', {
    detail: 'Send Authorization: Bearer <token> of a lane admitted on this listener',
    headers: { 'www-authenticate': `Bearer realm="${REALMS[listener] ?? 'governance'}"` },
  });
}

function forbidden(context: RequestContext, lane: Lane, admitted: readonly Lane[]): Reply {
  const wanted = admitted.length === 0 ? 'no lane on this listener' : admitted.join(' or ');
  return problem(403, 'Lane not admitted', {
    type: 'lane-not-admitted',
    detail: `The ${lane} token is not admitted on ${context.method} "${context.path}": it admits ${wanted}`,
    extensions: { lane, admitted },
  });
}

/** The lane whose token `presented` is, comparing every lane (no early exit); undefined for none. */
export function laneOf(tokens: Readonly<Record<Lane, readonly string[]>>, presented: string | undefined): Lane | undefined {
  return whichToken(presented, tokens, LANES);
}

/** X-Hub-Signature-256 is present once and shaped like sha256=<64 hex>; the route verifies it. */
export function hasHubSignature(headers: IncomingHeaders): boolean {
  const value = headers['x-hub-signature-256'];
  return typeof value === 'string' && HUB_SIGNATURE.test(value);
}

/**
 * A request the gate lets through to the webhook route on its signature alone. It must also be a
 * JSON body within the limit: otherwise the route's 415 or 413 would tell an unauthenticated
 * caller that this path exists, where every other path answers 401.
 */
function isGitHostDelivery(context: RequestContext): boolean {
  const path = context.path.length > 1 && context.path.endsWith('/') ? context.path.slice(0, -1) : context.path;
  const type = mediaTypeOf(context.headers['content-type']);
  const length = context.headers['content-length'];
  const withinLimit = length !== undefined && /^\d{1,9}$/.test(length) && Number(length) <= DEFAULT_BODY_LIMIT;
  return context.method === 'POST' && path === GIT_HOST_WEBHOOK_PATH && hasHubSignature(context.headers) && type === 'application/json' && withinLimit;
}

/**
 * True when a route of the worker listener matches the request and admits `lane` there: the
 * only paths a non-operator token opens at the gate. A family member the route does not list
 * is no route either.
 */
function laneOpens(router: ReturnType<typeof createRouter>, context: RequestContext, lane: Lane): boolean {
  const match = router.match(context.method, context.path);
  if (match.kind !== 'found') return false;
  const { route, params } = match;
  if (route.members !== undefined && !route.members.includes(params['*'] ?? '')) return false;
  const admits = (ROUTE_LANES as Record<string, Record<string, readonly Lane[]>>)[route.auth]?.[WORKER_LISTENER] ?? [];
  return admits.includes(lane);
}

/**
 * Every authenticator of the service, by the name routes and listeners use. `workerRoutes` are
 * the routes of the worker listener: the gate opens a non-operator lane's token only for those
 * that admit its lane.
 */
export function authenticators(config: GovernanceConfig, workerRoutes: readonly Route[] = []): Record<string, Authenticator> {
  // The gate and the route's own authenticator both ask: the answer is worked out once per request.
  const lanes = new WeakMap<RequestContext, Lane | undefined>();
  const lane = (context: RequestContext): Lane | undefined => {
    if (lanes.has(context)) return lanes.get(context);
    const found = laneOf(config.laneTokens, parseBearer(context.headers.authorization));
    lanes.set(context, found);
    return found;
  };
  const router = createRouter(workerRoutes.filter((route) => route.listener === WORKER_LISTENER));
  const out: Record<string, Authenticator> = {
    [WORKER_GATE]: (context) => {
      const found = lane(context);
      if (found === 'operator' || (found !== undefined && laneOpens(router, context, found))) return { ok: true, principal: found };
      // Admitted provisionally: the webhook route verifies the signature over the raw body.
      if (isGitHostDelivery(context)) return { ok: true, principal: 'git_host' };
      return { ok: false, reply: unauthorized(context.listener) };
    },
    git_host: (context) => (hasHubSignature(context.headers) ? { ok: true, principal: 'git_host' } : { ok: false, reply: unauthorized(context.listener) }),
  };
  for (const [name, admits] of Object.entries(ROUTE_LANES)) {
    out[name] = (context) => {
      const found = lane(context);
      if (found === undefined) return { ok: false, reply: unauthorized(context.listener) };
      const admitted = (admits as Record<string, readonly Lane[]>)[context.listener] ?? [];
      return admitted.includes(found) ? { ok: true, principal: found } : { ok: false, reply: forbidden(context, found, admitted) };
    };
  }
  return out;
}
