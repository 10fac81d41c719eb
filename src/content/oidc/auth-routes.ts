// The bridge's routes: GET /auth/oidc/login starts the code flow; GET /auth/oidc/callback
// checks state (against the browser's binding cookie and the pending table), exchanges the code,
// validates the ID token and starts a session; /auth/oidc/logout ends the session here and at
// the provider's end_session_endpoint. Every failure is a clear page for the person and a log
// line with the machine reason; nothing half-done survives it.

import { createHash } from 'node:crypto';
import type { Reply, RequestContext, Route } from '../../kernel/index.ts';
import { checkCsrf } from '../upload.ts';
import { RepositoryError } from '../repository.ts';
import { createSession, endSession, readCookie, setCookie } from '../sessions.ts';
import { html, page, redirect } from '../share/html.ts';
import { CALLBACK_PATH, LOGGED_OUT_PATH, LOGIN_PATH, LOGOUT_PATH, groupsClaim, sessionOf } from './bridge.ts';
import type { Bridge } from './bridge.ts';
import { validateIdToken } from './token-validation.ts';

const STATE_COOKIE_SECONDS = 600;

/**
 * One binding cookie per login attempt, named for its state: two tabs that start a login at
 * once each keep their own (one cookie for all would let the second overwrite the first).
 */
export function stateCookieName(prefix: string, state: string): string {
  return `${prefix}_${createHash('sha256').update(state).digest('base64url').slice(0, 16)}`;
}

/** A local path to come back to after login; anything else lands on /share/. */
export function safeReturnTo(value: string | null): string {
  if (value === null || !value.startsWith('/') || value.startsWith('//') || value.includes('\\') || /[\u0000-\u001f]/.test(value)) return '/share/';
  return value;
}

function loginFailed(bridge: Bridge, context: RequestContext, init: { reason: string; shown: string; status?: number }): Reply {
  bridge.log.warn('login refused', { reason: init.reason, path: context.path, requestId: context.requestId });
  const state = context.query.get('state');
  return page({
    title: 'Login failed',
    status: init.status ?? 400,
    ...(state && { headers: { 'set-cookie': setCookie(stateCookieName(bridge.cookies.state, state), '', { secure: bridge.cookies.secure, maxAge: 0 }) } }),
    body: html`<div class="error" id="login-error"><p>${init.shown}</p><p class="note">Nothing was signed in. Reference: ${context.requestId}</p></div>
<p><a href="${LOGIN_PATH}">Start a new login</a></p>`,
  });
}

const HTML_PAGE = { status: 200, description: 'The page', contentType: 'text/html; charset=utf-8', schema: { type: 'string' } } as const;

export function authRoutes(bridge: Bridge): Route[] {
  const login = async (context: RequestContext): Promise<Reply> => {
    let started;
    try {
      started = await bridge.rp.begin(safeReturnTo(context.query.get('return_to')));
    } catch (error) {
      return loginFailed(bridge, context, { reason: `cannot start login: ${(error as Error).message}`, shown: 'The sign-in service cannot be reached or is misconfigured. Try again later, or ask the operator.', status: 503 });
    }
    return redirect(started.url, { headers: { 'set-cookie': setCookie(stateCookieName(bridge.cookies.state, started.state), started.state, { secure: bridge.cookies.secure, maxAge: STATE_COOKIE_SECONDS }) } });
  };

  const callback = async (context: RequestContext): Promise<Reply> => {
    const q = context.query;
    const error = q.get('error');
    if (error !== null) return loginFailed(bridge, context, { reason: `provider returned error "${error.slice(0, 64)}"`, shown: 'The sign-in service refused the login.' });
    // RFC 6749 3.1: no parameter twice. get() reads the first, so a second iss would pass unchecked.
    const repeated = ['state', 'code', 'iss'].find((name) => q.getAll(name).length > 1);
    if (repeated) return loginFailed(bridge, context, { reason: `authorization response names "${repeated}" more than once (RFC 6749 3.1)`, shown: 'The login response is malformed.' });
    const state = q.get('state');
    const code = q.get('code');
    if (!state || !code) return loginFailed(bridge, context, { reason: 'callback without state or code', shown: 'The login response is incomplete.' });
    const cookieName = stateCookieName(bridge.cookies.state, state);
    const clearState = setCookie(cookieName, '', { secure: bridge.cookies.secure, maxAge: 0 });
    const bound = readCookie(context.headers['cookie'], cookieName) === state;
    // Already signed in (the other tab's login finished first): no second session, just go where this login was headed.
    if (sessionOf(bridge, context)) {
      const pending = bound ? bridge.rp.take(state) : undefined;
      return redirect(pending?.returnTo ?? '/share/', { headers: { 'set-cookie': clearState } });
    }
    if (!bound) return loginFailed(bridge, context, { reason: 'state does not match the state cookie of this browser', shown: 'The login response does not belong to a login started from this browser.' });
    const pending = bridge.rp.take(state);
    if (!pending) return loginFailed(bridge, context, { reason: 'state unknown, expired or already used (replayed callback)', shown: 'This login response was already used or has expired.' });
    // RFC 9207: a response that names its issuer must name ours; a provider that promises to name it must.
    const iss = q.get('iss');
    let metadata;
    try {
      metadata = await bridge.rp.metadata();
    } catch (error) {
      return loginFailed(bridge, context, { reason: `cannot check the response issuer: ${(error as Error).message}`, shown: 'The sign-in service cannot be reached or is misconfigured. Try again later, or ask the operator.', status: 503 });
    }
    if (iss !== null ? iss !== metadata.issuer : metadata.authorization_response_iss_parameter_supported === true) {
      return loginFailed(bridge, context, { reason: iss === null ? 'authorization response without iss, which the provider says it sends (RFC 9207)' : `authorization response iss "${iss.slice(0, 200)}" is not the issuer "${metadata.issuer}" (RFC 9207: a mix-up)`, shown: 'The login response comes from another sign-in service than this repository uses.' });
    }
    let tokens;
    try {
      tokens = await bridge.rp.exchange(code, pending);
    } catch (error) {
      return loginFailed(bridge, context, { reason: `code exchange failed: ${(error as Error).message}`, shown: 'The sign-in service did not accept the login code (it may have been used already).' });
    }
    let checked;
    try {
      checked = await validateIdToken(tokens.idToken, { provider: bridge.provider, clientId: bridge.config.clientId, nonce: pending.nonce, nowSeconds: bridge.nowSeconds() });
    } catch (error) {
      return loginFailed(bridge, context, { reason: `cannot check ID token: ${(error as Error).message}`, shown: 'The sign-in service\'s keys cannot be fetched.', status: 503 });
    }
    if (!checked.ok) return loginFailed(bridge, context, { reason: `ID token refused: ${checked.reason}`, shown: 'The identity token from the sign-in service is not valid.' });
    const claims = checked.claims;
    const displayName = [claims['name'], claims['preferred_username'], claims['email'], claims['sub']].find((v): v is string => typeof v === 'string' && v !== '')!;
    const { id } = await createSession(bridge.store, { subject: String(claims['sub']), displayName: displayName.slice(0, 200), idToken: tokens.idToken, groups: groupsClaim(claims), ttlSeconds: bridge.config.sessionTtlSeconds, nowSeconds: bridge.nowSeconds() });
    bridge.log.info('login', { subject: String(claims['sub']), requestId: context.requestId });
    const secure = bridge.cookies.secure;
    // Two cookies: node:http writes an array value as two Set-Cookie lines.
    const cookies = [setCookie(bridge.cookies.session, id, { secure, maxAge: bridge.config.sessionTtlSeconds }), clearState];
    return redirect(pending.returnTo, { headers: { 'set-cookie': cookies as unknown as string } });
  };

  const logoutPage = (context: RequestContext): Reply => {
    const found = sessionOf(bridge, context);
    if (!found) return redirect(LOGGED_OUT_PATH);
    return page({ title: 'Log out', user: { name: found.session.displayName, csrf: found.session.csrf }, body: html`<p>Use the button at the top right to log out here and at the sign-in service.</p>` });
  };

  const logout = async (context: RequestContext): Promise<Reply> => {
    const found = sessionOf(bridge, context);
    const clear = setCookie(bridge.cookies.session, '', { secure: bridge.cookies.secure, maxAge: 0 });
    // Without the session's CSRF token nothing happens, not even clearing the cookie: a
    // cross-site form (which arrives without the SameSite=Lax cookie) must not log anyone out.
    const given = new URLSearchParams(context.rawBody?.toString('utf8') ?? '').get('_csrf') ?? undefined;
    try {
      if (!found) throw new RepositoryError(403, 'No session to log out of: the form must come from a page of this repository');
      checkCsrf(found.session.csrf, given);
    } catch (error) {
      if (!(error instanceof RepositoryError)) throw error;
      bridge.log.warn('logout refused', { reason: found ? 'csrf token missing or wrong' : 'no session cookie', requestId: context.requestId });
      return page({ title: 'Logout refused', status: 403, body: html`<div class="error"><p>${error.message}</p></div><p><a href="${LOGOUT_PATH}">Back</a></p>` });
    }
    await endSession(bridge.store, found.session);
    bridge.log.info('logout', { subject: found.session.subject, requestId: context.requestId });
    let providerLogout: string | undefined;
    try {
      const endpoint = (await bridge.rp.metadata()).end_session_endpoint;
      if (endpoint) {
        const url = new URL(endpoint);
        url.searchParams.set('id_token_hint', found.session.idToken);
        url.searchParams.set('client_id', bridge.config.clientId);
        url.searchParams.set('post_logout_redirect_uri', `${bridge.config.publicUrl}${LOGGED_OUT_PATH}`);
        providerLogout = url.href;
      }
    } catch (error) {
      // The local session is gone either way; the provider's session ends when it expires.
      bridge.log.warn('provider logout skipped', { reason: (error as Error).message, requestId: context.requestId });
    }
    if (!providerLogout) return redirect(LOGGED_OUT_PATH, { status: 303, headers: { 'set-cookie': clear } });
    // A page, not a 303: the CSP's form-action 'self' would stop a form's redirect to another
    // origin, while a meta refresh (no script) is a plain navigation.
    return page({
      title: 'Logging out',
      headers: { 'set-cookie': clear },
      head: html`<meta http-equiv="refresh" content="0;url=${providerLogout}">`,
      body: html`<p id="logging-out">You are logged out of the repository. <a id="provider-logout" href="${providerLogout}">Continue to log out at the sign-in service</a>.</p>`,
    });
  };

  const loggedOut = (): Reply => page({ title: 'Logged out', body: html`<p id="logged-out">You are logged out.</p><p><a href="${LOGIN_PATH}">Log in again</a></p>` });

  return [
    { method: 'GET', path: LOGIN_PATH, auth: 'none', summary: 'Start an OIDC login (code flow, PKCE S256); return_to is a local path', tags: ['auth'], etag: false, responses: [{ status: 302, description: 'To the provider\'s authorization endpoint' }, { status: 503, description: 'The provider cannot be reached (a page)' }], handler: login },
    { method: 'GET', path: CALLBACK_PATH, auth: 'none', summary: 'OIDC redirect URI: checks state, exchanges the code, validates the ID token, starts a session', tags: ['auth'], etag: false, responses: [{ status: 302, description: 'Signed in: to return_to' }, { status: 400, description: 'The login failed (a page saying why)' }], handler: callback },
    { method: 'GET', path: LOGOUT_PATH, auth: 'none', summary: 'A page with the logout form', tags: ['auth'], etag: false, responses: [HTML_PAGE, { status: 302, description: 'No session: to the logged-out page' }], handler: logoutPage },
    { method: 'POST', path: LOGOUT_PATH, auth: 'none', summary: 'End the session here (CSRF token) and at the provider\'s end_session_endpoint', tags: ['auth'], request: { raw: true, maxBytes: 4096, contentTypes: ['application/x-www-form-urlencoded'] }, responses: [{ ...HTML_PAGE, description: 'Logged out here: a page that continues at the provider\'s end_session_endpoint' }, { status: 303, description: 'No session, or no provider logout: to the logged-out page' }, { status: 403, description: 'The CSRF token is missing or wrong (a page)' }], handler: logout },
    { method: 'GET', path: LOGGED_OUT_PATH, auth: 'none', summary: 'Where the provider sends the browser after logout', tags: ['auth'], etag: false, responses: [HTML_PAGE], handler: loggedOut },
  ];
}
