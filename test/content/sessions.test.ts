// Session cookies: the attributes for http and https public URLs, and reading a cookie only
// when it is present exactly once.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cookieNames, readCookie, setCookie } from '../../src/content/sessions.ts';

test('cookieNames() uses the __Host- prefix and Secure on an https public URL only', () => {
  assert.deepEqual(cookieNames('https://content.example'), { session: '__Host-content_session', state: '__Host-content_oidc_state', secure: true });
  assert.deepEqual(cookieNames('http://127.0.0.1:18060'), { session: 'content_session', state: 'content_oidc_state', secure: false });
  assert.equal(setCookie('__Host-content_session', 'v', { secure: true, maxAge: 60 }), '__Host-content_session=v; Path=/; HttpOnly; SameSite=Lax; Secure; Max-Age=60');
  assert.equal(setCookie('content_session', '', { secure: false, maxAge: 0 }), 'content_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0');
});

test('readCookie() finds a cookie present once and refuses a repeated one', () => {
  assert.equal(readCookie('a=1; content_session=abc; b=2', 'content_session'), 'abc');
  assert.equal(readCookie('content_session=abc; content_session=def', 'content_session'), undefined);
  assert.equal(readCookie('xcontent_session=abc', 'content_session'), undefined);
  assert.equal(readCookie(undefined, 'content_session'), undefined);
});
