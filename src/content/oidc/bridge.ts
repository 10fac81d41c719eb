// The OIDC bridge as the service sees it: the relying party, the provider, the session store,
// and the three authenticators (repository API: session or bearer access token, else 401 in
// Alfresco's shape; share UI: session, else a redirect into the login; probes: loopback).

import type { AuthOutcome, Authenticator, Logger, Reply, RequestContext, Store } from '../../kernel/index.ts';
import { REPOSITORY_PREFIX, alfrescoError, withLogId } from '../alfresco-shapes.ts';
import type { ContentPrincipal } from '../api-support.ts';
import type { ContentConfig } from '../config.ts';
import { cookieNames, findSession, readCookie } from '../sessions.ts';
import type { CookieNames, Session } from '../sessions.ts';
import { redirect } from '../share/html.ts';
import { createProvider } from './provider-metadata.ts';
import type { Provider } from './provider-metadata.ts';
import { createRelyingParty } from './relying-party.ts';
import type { RelyingParty } from './relying-party.ts';
import { validateAccessToken } from './token-validation.ts';

export const LOGIN_PATH = '/auth/oidc/login';
export const CALLBACK_PATH = '/auth/oidc/callback';
export const LOGOUT_PATH = '/auth/oidc/logout';
export const LOGGED_OUT_PATH = '/auth/oidc/logged-out';

export interface Bridge {
  config: ContentConfig;
  store: Store;
  provider: Provider;
  rp: RelyingParty;
  cookies: CookieNames;
  log: Logger;
  nowSeconds: () => number;
}

export function createBridge(init: { config: ContentConfig; store: Store; log: Logger; now?: () => number }): Bridge {
  const now = init.now ?? Date.now;
  const provider = createProvider(init.config.issuer, { now });
  const rp = createRelyingParty({
    provider,
    clientId: init.config.clientId,
    clientSecret: init.config.clientSecret,
    redirectUri: () => `${init.config.publicUrl}${CALLBACK_PATH}`,
    scopes: init.config.scopes,
    now,
  });
  return { config: init.config, store: init.store, provider, rp, cookies: cookieNames(init.config.publicUrl), log: init.log, nowSeconds: () => Math.floor(now() / 1000) };
}

/** The session of a request's cookie, if it is alive. */
export function sessionOf(bridge: Bridge, context: RequestContext): { id: string; session: Session } | undefined {
  const header = context.headers['cookie'];
  const id = readCookie(Array.isArray(header) ? header.join('; ') : header, bridge.cookies.session);
  const session = findSession(bridge.store, id, bridge.nowSeconds());
  return session && id ? { id, session } : undefined;
}

function sessionPrincipal(session: Session): ContentPrincipal {
  return { id: session.subject, displayName: session.displayName, via: 'session', groups: session.groups, sessionId: session.idHash, csrf: session.csrf };
}

/** The repository API: a live session, or a bearer access token the provider issued for our audience. */
export function repositoryAuthenticator(bridge: Bridge): Authenticator {
  // The listener's prefix check (repositoryPrefixAuthenticator) and the route's check see the
  // same request: the second one reuses the first one's outcome instead of checking twice.
  const outcomes = new WeakMap<RequestContext, AuthOutcome>();
  return async (context) => {
    const known = outcomes.get(context);
    if (known) return known;
    const outcome = await admitRepositoryCaller(bridge, context);
    outcomes.set(context, outcome.ok ? outcome : { ok: false, reply: withLogId(outcome.reply, context.requestId) });
    return outcomes.get(context)!;
  };
}

/**
 * Every path under /repository/ but the probes needs a credential before routing, so an unknown
 * route answers 401 to an anonymous caller like a known one, and only an admitted caller learns
 * which routes exist (404, 405).
 */
export function repositoryPrefixAuthenticator(repository: Authenticator, isOpen: (path: string) => boolean): Authenticator {
  return (context) => (context.path.startsWith(REPOSITORY_PREFIX) && !isOpen(context.path) ? repository(context) : { ok: true });
}

/** RFC 6750 3: the challenge of every 401; a token that was sent and refused is an invalid_token. */
function challenge(error?: 'invalid_token'): string {
  return error ? `Bearer realm="content", error="${error}", error_description="The access token is not valid for this repository"` : 'Bearer realm="content"';
}

async function admitRepositoryCaller(bridge: Bridge, context: RequestContext): Promise<AuthOutcome & ({ ok: true } | { ok: false; reply: Reply })> {
  const refuse = (summary: string, error?: 'invalid_token') => ({ ok: false as const, reply: alfrescoError(401, summary, { 'www-authenticate': challenge(error) }) });
  const authorization = context.headers['authorization'];
  if (typeof authorization === 'string' && /^bearer /i.test(authorization)) {
    const token = authorization.slice(7).trim();
    let result;
    try {
      result = await validateAccessToken(token, { provider: bridge.provider, audience: bridge.config.audience, nowSeconds: bridge.nowSeconds() });
    } catch (error) {
      bridge.log.warn('bearer token refused', { reason: `provider unavailable: ${(error as Error).message}`, requestId: context.requestId });
      return { ok: false, reply: alfrescoError(503, 'The OpenID provider cannot be reached to check the bearer token: try again later', { 'retry-after': '5' }) };
    }
    if (!result.ok) {
      bridge.log.warn('bearer token refused', { reason: result.reason, requestId: context.requestId });
      return refuse('Authentication failed: the bearer token is not valid for this repository', 'invalid_token');
    }
    const name = typeof result.claims['preferred_username'] === 'string' ? result.claims['preferred_username'] : String(result.claims['sub']);
    return { ok: true, principal: { id: String(result.claims['sub']), displayName: name, via: 'bearer', groups: groupsClaim(result.claims), scopes: scopesOf(result.claims) } satisfies ContentPrincipal };
  }
  const found = sessionOf(bridge, context);
  if (found) {
    // A cookie rides along with requests other pages make: a write by session must come from our own origin.
    const foreign = crossOriginWrite(bridge, context);
    if (foreign) {
      bridge.log.warn('cross-origin write refused', { reason: foreign, requestId: context.requestId });
      return { ok: false, reply: alfrescoError(403, 'Cross-origin request refused: a write with the session cookie must come from this repository\'s own pages') };
    }
    return { ok: true, principal: sessionPrincipal(found.session) };
  }
  return refuse('Authentication required: log in at /auth/oidc/login or send a bearer access token');
}

/** The provider's `groups` claim: the group names it lists (strings only; anything else counts as none). */
export function groupsClaim(claims: Record<string, unknown>): string[] {
  const groups = claims['groups'];
  return Array.isArray(groups) ? groups.filter((g): g is string => typeof g === 'string' && g !== '' && g.length <= 200).slice(0, 256) : [];
}

/** An access token's scopes: RFC 9068's space-separated `scope`, or the `scp` list some providers send. */
function scopesOf(claims: Record<string, unknown>): string[] {
  const scope = claims['scope'] ?? claims['scp'];
  if (typeof scope === 'string') return scope.split(' ').filter((s) => s !== '');
  return Array.isArray(scope) ? scope.filter((s): s is string => typeof s === 'string') : [];
}

/** The share UI: a live session, else a redirect into the bridge that comes back here. */
export function shareAuthenticator(bridge: Bridge): Authenticator {
  return (context) => {
    const found = sessionOf(bridge, context);
    if (found) return { ok: true, principal: sessionPrincipal(found.session) };
    const back = context.method === 'GET' && context.path.startsWith('/share/') ? context.path : '/share/';
    return { ok: false, reply: redirect(`${LOGIN_PATH}?return_to=${encodeURIComponent(back)}`) };
  };
}

/** Why a session-authenticated write looks cross-origin (Origin or Sec-Fetch-Site), if it does. */
function crossOriginWrite(bridge: Bridge, context: RequestContext): string | undefined {
  if (context.method === 'GET' || context.method === 'HEAD') return undefined;
  const origin = context.headers['origin'];
  if (typeof origin === 'string' && origin !== new URL(bridge.config.publicUrl).origin) return `Origin "${origin.slice(0, 100)}" is not the public URL's origin`;
  const site = context.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') return `Sec-Fetch-Site is "${site}"`;
  return undefined;
}
