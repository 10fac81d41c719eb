// The relying party's table of logins in progress is bounded, but a flood of unauthenticated
// GET /auth/oidc/login must not lock real users out: the oldest pending login makes room.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_PENDING_LOGINS, PENDING_LOGIN_TTL_MS, createRelyingParty } from '../../src/content/oidc/relying-party.ts';
import type { Provider } from '../../src/content/oidc/provider-metadata.ts';

const provider: Provider = {
  metadata: async () => ({ issuer: 'http://op', authorization_endpoint: 'http://op/authorize', token_endpoint: 'http://op/token', jwks_uri: 'http://op/jwks' }),
  keys: async () => [],
};

test('a full table of pending logins drops the oldest instead of refusing every new login', async () => {
  let clock = 1_000_000;
  const rp = createRelyingParty({ provider, clientId: 'c', clientSecret: 's', redirectUri: () => 'http://rp/cb', scopes: 'openid', now: () => clock });
  const first = await rp.begin('/share/');
  for (let i = 1; i < MAX_PENDING_LOGINS; i++) await rp.begin('/share/');
  const latecomer = await rp.begin('/share/');
  assert.ok(rp.take(latecomer.state), 'the newest login is pending');
  assert.equal(rp.take(first.state), undefined, 'the oldest made room');
  clock += PENDING_LOGIN_TTL_MS + 1;
  const later = await rp.begin('/share/');
  assert.ok(rp.take(later.state));
});
