// The OIDC bridge against the provider double: the happy path (PKCE S256, state, nonce,
// client_secret_basic, RS256 and ES256), cookies, logout here and at the provider, bearer
// access tokens, and every tampering failing closed with a clear page and a log reason.

import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { API, Browser, login, startContent } from './_service.ts';
import { stateCookieName } from '../../src/content/oidc/auth-routes.ts';
import type { Harness } from './_service.ts';
import { send } from '../helpers/http.ts';

let h: Harness;
before(async () => {
  h = await startContent();
});
after(() => h.close());
beforeEach(() => {
  h.op.misbehave = {};
});

/** Starts a login and returns the provider's redirect back to us (not yet followed). */
async function startLogin(browser: Browser): Promise<string> {
  const start = await browser.get(`${h.base}/auth/oidc/login?return_to=/share/`);
  assert.equal(start.status, 302);
  const authorize = await browser.get(String(start.headers.location));
  assert.equal(authorize.status, 302, authorize.text);
  return String(authorize.headers.location);
}

function lastReason(): string {
  const refused = h.logs.filter((l) => l['msg'] === 'login refused');
  return String(refused.at(-1)?.['reason'] ?? '');
}

test('GET / and /share/ without a session redirect into the bridge; the login request carries PKCE S256, state and nonce', async () => {
  const browser = new Browser();
  for (const path of ['/', '/share/']) {
    const r = await browser.get(`${h.base}${path}`);
    assert.equal(r.status, 302);
    assert.match(String(r.headers.location), /^\/auth\/oidc\/login\?return_to=/);
  }
  const start = await browser.get(`${h.base}/auth/oidc/login?return_to=/share/`);
  const url = new URL(String(start.headers.location));
  assert.equal(url.origin, h.op.issuer);
  assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
  assert.match(url.searchParams.get('code_challenge')!, /^[A-Za-z0-9_-]{43}$/);
  assert.ok(url.searchParams.get('state')!.length >= 43 && url.searchParams.get('nonce')!.length >= 43);
  assert.equal(url.searchParams.get('redirect_uri'), `${h.base}/auth/oidc/callback`);
  const stateCookie = ([] as string[]).concat(start.headers['set-cookie'] ?? []).find((c) => c.startsWith('content_oidc_state_'))!;
  assert.match(stateCookie, /HttpOnly; SameSite=Lax/);
});

for (const alg of ['ES256', 'RS256'] as const) {
  test(`a login with an ${alg} ID token lands on the share UI with an HttpOnly SameSite=Lax session cookie`, async () => {
    h.op.misbehave = { alg };
    const browser = new Browser();
    const back = await startLogin(browser);
    const callback = await browser.get(back);
    assert.equal(callback.status, 302);
    assert.equal(callback.headers.location, '/share/');
    const cookie = ([] as string[]).concat(callback.headers['set-cookie'] ?? []).find((c) => c.startsWith('content_session='))!;
    assert.match(cookie, /; Path=\/; HttpOnly; SameSite=Lax; Max-Age=28800$/);
    assert.doesNotMatch(cookie, /Secure/, 'http public URL: no Secure flag');
    const token = h.op.tokenRequests.at(-1)!;
    assert.match(token.authorization!, /^Basic /);
    assert.equal(createHash('sha256').update(token.body.get('code_verifier')!).digest('base64url').length, 43);
    assert.equal((await browser.get(`${h.base}/share/`)).status, 200);
  });
}

const TAMPERING: [string, () => void, RegExp][] = [
  ['wrong nonce', () => (h.op.misbehave = { nonce: 'wrong' }), /nonce does not match/],
  ['missing nonce', () => (h.op.misbehave = { nonce: 'missing' }), /nonce does not match/],
  ['expired ID token', () => (h.op.misbehave = { expired: true }), /expired/],
  ['ID token signed by a key outside the JWKS', () => (h.op.misbehave = { foreignKey: true }), /signature does not verify/],
  ['RS256 token signed by a foreign key', () => (h.op.misbehave = { foreignKey: true, alg: 'RS256' }), /signature does not verify/],
  ['alg none', () => (h.op.misbehave = { algNone: true }), /algorithm "none" is not accepted/],
  ['issuer not the configured one', () => (h.op.misbehave = { iss: 'http://evil.example' }), /iss "http:\/\/evil.example" is not the configured issuer/],
  ['audience of another client', () => (h.op.misbehave = { aud: 'someone-else' }), /aud does not contain/],
];

for (const [name, arrange, reason] of TAMPERING) {
  test(`callback: ${name} fails closed with a clear page, a log reason and no session`, async () => {
    arrange();
    const browser = new Browser();
    const callback = await browser.get(await startLogin(browser));
    assert.equal(callback.status, 400);
    assert.match(callback.text, /id="login-error"/);
    assert.match(callback.text, /identity token from the sign-in service is not valid/);
    assert.match(lastReason(), reason);
    assert.equal(browser.cookies.has('content_session'), false);
    assert.equal((await browser.get(`${h.base}/share/`)).status, 302);
  });
}

test('callback: a wrong state fails closed before any code exchange', async () => {
  const browser = new Browser();
  const back = new URL(await startLogin(browser));
  const exchanges = h.op.tokenRequests.length;
  back.searchParams.set('state', 'forged-state');
  const r = await browser.get(back.href);
  assert.equal(r.status, 400);
  assert.match(r.text, /does not belong to a login started from this browser/);
  assert.match(lastReason(), /state does not match/);
  assert.equal(h.op.tokenRequests.length, exchanges);
});

test('callback: a state from another browser (no binding cookie) fails closed', async () => {
  const victim = new Browser();
  const back = await startLogin(victim);
  const attacker = new Browser();
  const r = await attacker.get(back);
  assert.equal(r.status, 400);
  assert.match(lastReason(), /state does not match/);
});

test('callback: a replayed callback (same state and code) fails closed; a replayed code with a fresh state is refused by the provider', async () => {
  const browser = new Browser();
  const back = await startLogin(browser);
  assert.equal((await browser.get(back)).status, 302);
  const stateCookie = new URL(back).searchParams.get('state')!;
  browser.cookies.set(stateCookieName('content_oidc_state', stateCookie), stateCookie);
  browser.cookies.delete('content_session');
  const replay = await browser.get(back);
  assert.equal(replay.status, 400);
  assert.match(lastReason(), /already used/);
  // The same code under a fresh login: the provider answers invalid_grant.
  const other = new Browser();
  const fresh = new URL(await startLogin(other));
  fresh.searchParams.set('code', new URL(back).searchParams.get('code')!);
  const r = await other.get(fresh.href);
  assert.equal(r.status, 400);
  assert.match(lastReason(), /code exchange failed: token endpoint answered HTTP 400 \(invalid_grant\)/);
});

test('callback: a provider error parameter and a missing code fail closed', async () => {
  const browser = new Browser();
  assert.equal((await browser.get(`${h.base}/auth/oidc/callback?error=access_denied&state=x`)).status, 400);
  assert.match(lastReason(), /provider returned error "access_denied"/);
  assert.equal((await browser.get(`${h.base}/auth/oidc/callback?state=x`)).status, 400);
});

test('two logins started at once in one browser (two tabs) both succeed; the later callback finds the session and goes to its own return_to', async () => {
  const browser = new Browser();
  const first = await browser.get(`${h.base}/auth/oidc/login?return_to=${encodeURIComponent('/share/search?q=first')}`);
  const second = await browser.get(`${h.base}/auth/oidc/login?return_to=${encodeURIComponent('/share/search?q=second')}`);
  assert.equal([...browser.cookies.keys()].filter((name) => name.startsWith('content_oidc_state_')).length, 2, 'one binding cookie per attempt');
  const backFirst = String((await browser.get(String(first.headers.location))).headers.location);
  const backSecond = String((await browser.get(String(second.headers.location))).headers.location);
  const exchanges = h.op.tokenRequests.length;
  const done = await browser.get(backSecond);
  assert.equal(done.status, 302);
  assert.equal(done.headers.location, '/share/search?q=second');
  const late = await browser.get(backFirst);
  assert.equal(late.status, 302, 'not a failed login');
  assert.equal(late.headers.location, '/share/search?q=first');
  assert.equal(h.op.tokenRequests.length, exchanges + 1, 'the late callback exchanges no code: the session exists');
  assert.equal([...browser.cookies.keys()].filter((name) => name.startsWith('content_oidc_state_')).length, 0, 'both binding cookies are cleared');
});

test('the redirect into login keeps the query: /share/search?q=... comes back to the same search', async () => {
  const browser = new Browser();
  const r = await browser.get(`${h.base}/share/search?q=quokka+census&skip=0`);
  assert.equal(r.status, 302);
  const returnTo = new URL(String(r.headers.location), h.base).searchParams.get('return_to');
  assert.equal(returnTo, '/share/search?q=quokka+census&skip=0');
  const { hops } = await browser.follow(`${h.base}${String(r.headers.location)}`);
  assert.equal(new URL(hops.at(-1)!).pathname + new URL(hops.at(-1)!).search, '/share/search?q=quokka+census&skip=0');
});

test('RFC 9207: an authorization response whose iss is another issuer fails closed; the right iss passes', async () => {
  h.op.misbehave = { responseIss: 'http://evil.example' };
  const browser = new Browser();
  const exchanges = h.op.tokenRequests.length;
  const refused = await browser.get(await startLogin(browser));
  assert.equal(refused.status, 400);
  assert.match(lastReason(), /iss "http:\/\/evil.example" is not the issuer/);
  assert.equal(h.op.tokenRequests.length, exchanges, 'no code exchange');
  h.op.misbehave = { responseIss: h.op.issuer };
  const ok = new Browser();
  assert.equal((await ok.get(await startLogin(ok))).status, 302);
  assert.equal(ok.cookies.has('content_session'), true);
  h.op.misbehave = {};
});

test('a callback that repeats iss, state or code fails closed before any exchange (RFC 6749 3.1: a parameter at most once)', async () => {
  for (const [name, value] of [['iss', 'http://evil.example'], ['state', 'other'], ['code', 'other']] as const) {
    h.op.misbehave = { responseIss: h.op.issuer };
    const browser = new Browser();
    const exchanges = h.op.tokenRequests.length;
    const refused = await browser.get(`${await startLogin(browser)}&${name}=${encodeURIComponent(value)}`);
    assert.equal(refused.status, 400, name);
    assert.match(lastReason(), new RegExp(`"${name}" more than once`));
    assert.equal(h.op.tokenRequests.length, exchanges, 'no code exchange');
    assert.equal(browser.cookies.has('content_session'), false);
  }
});

test('RFC 9207: when discovery promises iss, a response without it fails closed', async () => {
  const other = await startContent();
  try {
    other.op.misbehave = { issParameterSupported: true };
    const browser = new Browser();
    const start = await browser.get(`${other.base}/auth/oidc/login`);
    const back = String((await browser.get(String(start.headers.location))).headers.location);
    const r = await browser.get(back);
    assert.equal(r.status, 400);
    assert.match(String(other.logs.filter((l) => l['msg'] === 'login refused').at(-1)?.['reason']), /without iss/);
  } finally {
    await other.close();
  }
});

test('return_to accepts local paths only', async () => {
  const browser = new Browser();
  for (const evil of ['//evil.example/', 'https://evil.example/', '/\\evil.example']) {
    const start = await browser.get(`${h.base}/auth/oidc/login?return_to=${encodeURIComponent(evil)}`);
    const authorize = await browser.get(String(start.headers.location));
    const callback = await browser.get(String(authorize.headers.location));
    assert.equal(callback.headers.location, '/share/', evil);
  }
});

test('logout ends the session here and at the end_session_endpoint; afterwards the API answers 401 and the UI redirects again', async () => {
  const { browser, csrf } = await login(h);
  assert.equal((await browser.get(`${h.base}${API}/nodes/-root-`)).status, 200);
  const oldCookie = browser.cookies.get('content_session')!;
  const refused = await browser.request(`${h.base}/auth/oidc/logout`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '_csrf=wrong' });
  assert.equal(refused.status, 403);
  assert.equal((await browser.get(`${h.base}${API}/nodes/-root-`)).status, 200, 'a refused logout keeps the session');
  const out = await browser.request(`${h.base}/auth/oidc/logout`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `_csrf=${encodeURIComponent(csrf)}` });
  assert.equal(out.status, 200);
  const providerLogout = /id="provider-logout" href="([^"]+)"/.exec(out.text)![1]!.replace(/&#38;/g, '&');
  const url = new URL(providerLogout);
  assert.equal(url.origin + url.pathname, `${h.op.issuer}/end-session`);
  assert.equal(url.searchParams.get('post_logout_redirect_uri'), `${h.base}/auth/oidc/logged-out`);
  assert.ok(url.searchParams.get('id_token_hint'));
  const api = await send(`${h.base}${API}/nodes/-root-`, { headers: { cookie: `content_session=${oldCookie}` } });
  assert.equal(api.status, 401);
  assert.equal((api.json() as { error: { statusCode: number } }).error.statusCode, 401);
  assert.equal((await send(`${h.base}/share/`, { headers: { cookie: `content_session=${oldCookie}` } })).status, 302);
});

test('logout without the session\'s CSRF token does nothing: a cross-site POST (no cookie) or a wrong token gets 403 and no Set-Cookie', async () => {
  const { browser } = await login(h);
  const cookie = browser.cookies.get('content_session')!;
  // What a cross-site form delivers: SameSite=Lax keeps the cookie back, so neither cookie nor token arrives.
  const crossSite = await send(`${h.base}/auth/oidc/logout`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'origin': 'https://evil.example', 'sec-fetch-site': 'cross-site' }, body: '' });
  assert.equal(crossSite.status, 403);
  assert.equal(crossSite.headers['set-cookie'], undefined, 'the browser\'s cookie is not cleared');
  const wrong = await send(`${h.base}/auth/oidc/logout`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `content_session=${cookie}` }, body: '_csrf=wrong' });
  assert.equal(wrong.status, 403);
  assert.equal(wrong.headers['set-cookie'], undefined);
  assert.equal((await browser.get(`${h.base}${API}/nodes/-root-`)).status, 200, 'the session is alive');
});

test('bearer access tokens: one the provider issued for this audience is admitted; others get 401 with a log reason', async () => {
  const ok = await send(`${h.base}${API}/nodes/-root-`, { headers: { authorization: `Bearer ${h.op.accessToken()}` } });
  assert.equal(ok.status, 200);
  const cases: [string, string, RegExp][] = [
    ['expired', h.op.accessToken({ expired: true }), /expired/],
    ['other audience', h.op.accessToken({ aud: 'other-api' }), /aud does not contain/],
    ['foreign key', h.op.accessToken({ foreignKey: true }), /signature does not verify/],
    ['ID-token typ', h.op.accessToken({ typ: 'JWT' }), /not at\+jwt/],
    ['other issuer', h.op.accessToken({ iss: 'http://evil.example' }), /is not the configured issuer/],
    ['garbage', 'not.a.jwt', /base64url JSON|compact JWS/],
  ];
  for (const [name, token, reason] of cases) {
    const r = await send(`${h.base}${API}/nodes/-root-`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(r.status, 401, name);
    assert.equal(r.headers['www-authenticate'], 'Bearer realm="content", error="invalid_token", error_description="The access token is not valid for this repository"', name);
    assert.match(String(h.logs.filter((l) => l['msg'] === 'bearer token refused').at(-1)?.['reason']), reason, name);
  }
  assert.equal((await send(`${h.base}${API}/nodes/-root-`)).status, 401);
});

test('a discovery document naming another issuer stops the login with a 503 page', async () => {
  const other = await startContent();
  try {
    other.op.misbehave = { discoveryIssuer: 'http://evil.example' };
    const r = await new Browser().get(`${other.base}/auth/oidc/login`);
    assert.equal(r.status, 503);
    assert.match(String(other.logs.find((l) => l['msg'] === 'login refused')?.['reason']), /names issuer "http:\/\/evil.example"/);
  } finally {
    await other.close();
  }
});

test('a write with the session cookie from another origin is refused with 403; the same origin and plain clients pass', async () => {
  const { browser } = await login(h);
  const body = JSON.stringify({ name: 'CSRF folder', nodeType: 'cm:folder' });
  const post = (headers: Record<string, string>) => browser.request(`${h.base}${API}/nodes/-root-/children`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  assert.equal((await post({ origin: 'http://127.0.0.1:9' })).status, 403);
  assert.equal((await post({ 'sec-fetch-site': 'same-site' })).status, 403);
  assert.equal((await browser.get(`${h.base}${API}/nodes/-root-/children`, { 'sec-fetch-site': 'cross-site' })).status, 200, 'reads are not writes');
  assert.equal((await post({ origin: h.base })).status, 201);
  assert.match(String(h.logs.filter((l) => l['msg'] === 'cross-origin write refused').at(-1)?.['reason']), /Sec-Fetch-Site/);
});
