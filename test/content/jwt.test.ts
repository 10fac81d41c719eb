// The compact JWS checks of the OIDC bridge on their own: RFC 7515 4.1.11 says a JWS whose
// "crit" header names extensions the recipient does not understand must be refused.

import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import { test } from 'node:test';
import { decodeJwt, verifyJwtSignature } from '../../src/content/oidc/jwt.ts';
import type { Jwk } from '../../src/content/oidc/jwt.ts';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const keys: Jwk[] = [{ ...(publicKey.export({ format: 'jwk' }) as Jwk), kid: 'k1' }];
const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

function signed(header: Record<string, unknown>): string {
  const input = `${part(header)}.${part({ iss: 'http://op', sub: 'u1' })}`;
  return `${input}.${sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}

function check(token: string) {
  const decoded = decodeJwt(token);
  return decoded.ok ? verifyJwtSignature(decoded.jwt, keys) : decoded;
}

test('a JWS signed by a JWKS key verifies; the same with a "crit" header is refused', () => {
  assert.deepEqual(check(signed({ alg: 'ES256', kid: 'k1' })), { ok: true });
  for (const crit of [['exp'], ['b64'], [], 'exp']) {
    const result = check(signed({ alg: 'ES256', kid: 'k1', crit, exp: 1, b64: false }));
    assert.equal(result.ok, false, JSON.stringify(crit));
    assert.match((result as { reason: string }).reason, /crit/);
  }
});
