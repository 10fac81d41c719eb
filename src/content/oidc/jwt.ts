// Compact JWS (RFC 7515) as OpenID Connect uses it: decode, and verify an RS256 or ES256
// signature against a JSON Web Key Set on node:crypto. "none", HMAC and every other algorithm
// are refused: an ID token signed with the client secret would let anyone holding it forge one.

import { createPublicKey, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';

export const ALLOWED_ALGORITHMS = ['RS256', 'ES256'] as const;
export type JwsAlgorithm = (typeof ALLOWED_ALGORITHMS)[number];

export interface Jwk {
  kty?: string;
  crv?: string;
  kid?: string;
  [member: string]: unknown;
  use?: string;
  alg?: string;
}

export interface DecodedJwt {
  header: { alg: string; kid?: string; typ?: string };
  payload: Record<string, unknown>;
  signingInput: Buffer;
  signature: Buffer;
}

export type JwtCheck = { ok: true; jwt: DecodedJwt } | { ok: false; reason: string };

const SEGMENT = /^[A-Za-z0-9_-]*$/;

/** Splits and parses a compact JWS without checking its signature. */
export function decodeJwt(token: string): JwtCheck {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((p) => SEGMENT.test(p))) return { ok: false, reason: 'not a compact JWS (three base64url segments)' };
  try {
    const header = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8')) as DecodedJwt['header'];
    const payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (typeof header !== 'object' || header === null || typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
      return { ok: false, reason: 'header or payload is not a JSON object' };
    }
    return { ok: true, jwt: { header, payload, signingInput: Buffer.from(`${parts[0]}.${parts[1]}`), signature: Buffer.from(parts[2]!, 'base64url') } };
  } catch {
    // The parser's message could quote token bytes; the reason says enough.
    return { ok: false, reason: 'header or payload is not base64url JSON' };
  }
}

/** The keys of `keys` that could have signed a JWS with this header. */
export function candidateKeys(keys: readonly Jwk[], header: DecodedJwt['header']): Jwk[] {
  const kty = header.alg === 'RS256' ? 'RSA' : 'EC';
  return keys.filter((key) => key.kty === kty && (key.use === undefined || key.use === 'sig') && (key.alg === undefined || key.alg === header.alg) && (header.kid === undefined || key.kid === header.kid));
}

// The provider's JWKS stays cached (provider-metadata.ts) and every bearer request verifies
// against it: each key is imported once, not once per request.
const imported = new WeakMap<Jwk, KeyObject>();

function publicKeyOf(jwk: Jwk): KeyObject {
  let key = imported.get(jwk);
  if (key === undefined) {
    key = createPublicKey({ key: jwk as import('node:crypto').JsonWebKeyInput['key'], format: 'jwk' });
    imported.set(jwk, key);
  }
  return key;
}

/** Verifies the signature of a decoded JWS with one of `keys`. */
export function verifyJwtSignature(jwt: DecodedJwt, keys: readonly Jwk[]): { ok: true } | { ok: false; reason: string; unknownKey?: boolean } {
  const alg = jwt.header.alg;
  // RFC 7515 4.1.11: extensions listed in "crit" must be understood or the JWS refused; we know none.
  if ('crit' in jwt.header) return { ok: false, reason: 'the header has "crit" extensions, which this relying party does not support' };
  if (!(ALLOWED_ALGORITHMS as readonly string[]).includes(alg)) return { ok: false, reason: `algorithm "${String(alg)}" is not accepted (RS256 or ES256)` };
  const candidates = candidateKeys(keys, jwt.header);
  if (candidates.length === 0) return { ok: false, reason: `no key in the issuer's JWKS matches kid "${jwt.header.kid ?? ''}" and alg ${alg}`, unknownKey: true };
  for (const jwk of candidates) {
    try {
      const key = publicKeyOf(jwk);
      if (alg === 'ES256' && (jwk.crv !== 'P-256' || jwt.signature.length !== 64)) continue;
      const valid = verify('sha256', jwt.signingInput, alg === 'ES256' ? { key, dsaEncoding: 'ieee-p1363' } : key, jwt.signature);
      if (valid) return { ok: true };
    } catch {
      // A malformed key in the set cannot verify anything; try the next one.
      continue;
    }
  }
  return { ok: false, reason: 'signature does not verify with the issuer\'s keys' };
}
