import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey, verify } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jwkThumbprint, loadSigningKey } from '../../src/governance/access/signing-key.ts';
import { signCompactJws } from '../../src/governance/access/jws.ts';

// RFC 8037, appendix A.1 to A.3.
const RFC8037 = { kty: 'OKP', crv: 'Ed25519', d: 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' };

test('jwkThumbprint() gives the RFC 8037 A.3 thumbprint', () => {
  assert.equal(jwkThumbprint(RFC8037), 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k');
});

test('signCompactJws() signs header.payload with EdDSA, deterministically, verifiable with the public key alone', () => {
  const privateKey = createPrivateKey({ key: RFC8037, format: 'jwk' });
  const key = { kid: jwkThumbprint(RFC8037), privateKey };
  const token = signCompactJws({ sub: 'a', n: 1 }, key);
  assert.equal(signCompactJws({ n: 1, sub: 'a' }, key), token, 'canonical claims, deterministic signature');
  const [header, payload, signature] = token.split('.') as [string, string, string];
  assert.deepEqual(JSON.parse(Buffer.from(header, 'base64url').toString()), { alg: 'EdDSA', kid: key.kid, typ: 'JWT' });
  const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: RFC8037.x }, format: 'jwk' });
  assert.equal(verify(null, Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature, 'base64url')), true);
  assert.equal(verify(null, Buffer.from(`${header}.${payload}x`), publicKey, Buffer.from(signature, 'base64url')), false);
});

test('loadSigningKey() creates the key once (mode 0600, no temporary file left) and reads it back', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-signing-key-'));
  try {
    const file = join(dir, 'key.json');
    const first = loadSigningKey(file, { create: true });
    const second = loadSigningKey(file, { create: true });
    assert.ok(first.ok && second.ok);
    assert.deepEqual([first.created, second.created, second.kid], [true, false, first.kid]);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(dir), ['key.json']);
    assert.equal(first.kid, jwkThumbprint(first.publicJwk));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('loadSigningKey() refuses a missing named file, a readable-by-others file, and a file that is not a matching Ed25519 JWK', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-signing-key-'));
  try {
    const cases: [string, string | undefined, number, RegExp][] = [
      ['absent.json', undefined, 0o600, /does not exist/],
      ['loose.json', JSON.stringify(RFC8037), 0o640, /mode 0640/],
      ['rsa.json', JSON.stringify({ kty: 'RSA', n: 'x', e: 'AQAB', d: 'y' }), 0o600, /not hold a private Ed25519 JWK/],
      ['public.json', JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: RFC8037.x }), 0o600, /not hold a private Ed25519 JWK/],
      ['mismatch.json', JSON.stringify({ ...RFC8037, x: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }), 0o600, /unusable: Invalid JWK/],
      ['text.json', 'not json', 0o600, /unusable/],
    ];
    for (const [name, content, mode, reason] of cases) {
      const file = join(dir, name);
      if (content !== undefined) writeFileSync(file, content, { mode });
      const key = loadSigningKey(file, { create: false });
      assert.equal(key.ok, false, name);
      assert.match(key.ok ? '' : key.reason, reason, name);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
