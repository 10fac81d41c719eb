// The bridge's routes: GET /auth/oidc/login starts the code flow; GET /auth/oidc/callback
// checks state (against the browser's binding cookie and the pending table), exchanges the code,
// validates the ID token and starts a session; /auth/oidc/logout ends the session here and at
// the provider's end_session_endpoint. Every failure is a clear page for the person and a log
// line with the machine reason; nothing half-done survives it.

import type { Reply, RequestContext, Route } from '../../kernel/index.ts';
import { checkCsrf } from '../upload.ts';
import { RepositoryError } from '../repository.ts';
import { createSession, endSession, readCookie, setCookie } from '../sessions.ts';
import { html, page, redirect } from '../share/html.ts';
import { CALLBACK_PATH, LOGGED_OUT_PATH, LOGIN_PATH, LOGOUT_PATH, groupsClaim, sessionOf } from './bridge.ts';
import type { Bridge } from './bridge.ts';
import { validateIdToken } from './token-validation.ts';

const STATE_COOKIE_SECONDS = 600;

/** A local path to come back to after login; anything else lands on /share/. */
export function safeReturnTo(value: string | null): string {
  if (value === null || !value.startsWith('/') || value.startsWith('//') || value.includes('\\') || /[\u0000-\u001f]/.test(value)) return '/share/';
  return value;
}

function loginFailed(bridge: Bridge, context: RequestContext, init: { reason: string; shown: string; status?: number }): Reply {
  bridge.log.warn('login refused', { reason: init.reason, path: context.path, requestId: context.requestId });
  return page({
    title: 'Login failed',
    status: init.status ?? 400,
    headers: { 'set-cookie': setCookie(bridge.cookies.state, '', { secure: bridge.cookies.secure, maxAge: 0 }) },
    body: html`<div class="error" id="login-error"><p>${init.shown}</p><p class="note">Nothing was signed in. Reference: ${context.requestId}</p></div>
<p><a href="${LOGIN_PATH}">Start a new login</a></p>`,
  });
}

export function authRoutes(bridge: Bridge): Route[] {
  const login = async (context: RequestContext): Promise<Reply> => {
    let started;
    try {
      started = await bridge.rp.begin(safeReturnTo(context.query.get('return_to')));
    } catch (error) {
      return loginFailed(bridge, context, { reason: `cannot start login: ${(error as Error).message}`, shown: 'The sign-in service cannot be reached or is misconfigured. Try again later, or ask the operator.', status: 503 });
    }
    return redirect(started.url, { headers: { 'set-cookie': setCookie(bridge.cookies.state, started.state, { secure: bridge.cookies.secure, maxAge: STATE_COOKIE_SECONDS }) } });
  };

  const callback = async (context: RequestContext): Promise<Reply> => {
    const q = context.query;
    const error = q.get('error');
    if (error !== null) return loginFailed(bridge, context, { reason: `provider returned error "${error.slice(0, 64)}"`, shown: 'The sign-in service refused the login.' });
    const state = q.get('state');
    const code = q.get('code');
    if (!state || !code) return loginFailed(bridge, context, { reason: 'callback without state or code', shown: 'The login response is incomplete.' });
    const cookie = readCookie(context.headers['cookie'], bridge.cookies.state);
    if (cookie !== state) return loginFailed(bridge, context, { reason: 'state does not match the state cookie of this browser', shown: 'The login response does not belong to a login started from this browser.' });
    const pending = bridge.rp.take(state);
    if (!pending) return loginFailed(bridge, context, { reason: 'state unknown, expired or already used (replayed callback)', shown: 'This login response was already used or has expired.' });
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
    const cookies = [setCookie(bridge.cookies.session, id, { secure, maxAge: bridge.config.sessionTtlSeconds }), setCookie(bridge.cookies.state, '', { secure, maxAge: 0 })];
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
    { method: 'GET', path: LOGIN_PATH, auth: 'none', summary: 'Start an OIDC login (code flow, PKCE S256); return_to is a local path', tags: ['auth'], etag: false, handler: login },
    { method: 'GET', path: CALLBACK_PATH, auth: 'none', summary: 'OIDC redirect URI: checks state, exchanges the code, validates the ID token, starts a session', tags: ['auth'], etag: false, handler: callback },
    { method: 'GET', path: LOGOUT_PATH, auth: 'none', summary: 'A page with the logout form', tags: ['auth'], etag: false, handler: logoutPage },
    { method: 'POST', path: LOGOUT_PATH, auth: 'none', summary: 'End the session here (CSRF token) and at the provider\'s end_session_endpoint', tags: ['auth'], request: { raw: true, maxBytes: 4096, contentTypes: ['application/x-www-form-urlencoded'] }, handler: logout },
    { method: 'GET', path: LOGGED_OUT_PATH, auth: 'none', summary: 'Where the provider sends the browser after logout', tags: ['auth'], etag: false, handler: loggedOut },
  ];
}
