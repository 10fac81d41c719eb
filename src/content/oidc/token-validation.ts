// ID token validation as OpenID Connect Core 1.0 section 3.1.3.7 says (signature against the
// issuer's JWKS, iss, aud, azp, exp, iat, nonce), and bearer access tokens that the provider
// issued for this resource (a JWT: signature, iss, aud naming our audience, exp, nbf). Both
// return data: the claims, or the machine reason a log records.

import { timingSafeEqual } from 'node:crypto';
import { decodeJwt, verifyJwtSignature } from './jwt.ts';
import type { DecodedJwt } from './jwt.ts';
import type { Provider } from './provider-metadata.ts';

/** Clock skew tolerated on exp, iat and nbf. */
export const CLOCK_SKEW_SECONDS = 60;
/** An ID token issued longer ago than this is refused (3.1.3.7 item 10: iat too far from now). */
export const MAX_ID_TOKEN_AGE_SECONDS = 600;

export type TokenCheck = { ok: true; claims: Record<string, unknown> } | { ok: false; reason: string };

async function verifiedClaims(jwt: DecodedJwt, provider: Provider): Promise<TokenCheck> {
  let result = verifyJwtSignature(jwt, await provider.keys());
  // A key we do not know may be a rotation: fetch the JWKS again once, then decide.
  if (!result.ok && result.unknownKey) result = verifyJwtSignature(jwt, await provider.keys(true));
  if (!result.ok) return { ok: false, reason: result.reason };
  return { ok: true, claims: jwt.payload };
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function checkTimes(claims: Record<string, unknown>, nowSeconds: number, options: { requireIat: boolean }): string | undefined {
  const { exp, iat, nbf } = claims;
  if (typeof exp !== 'number') return 'exp is missing or not a number';
  if (nowSeconds > exp + CLOCK_SKEW_SECONDS) return `token expired at ${exp} (now ${nowSeconds})`;
  if (nbf !== undefined && (typeof nbf !== 'number' || nowSeconds + CLOCK_SKEW_SECONDS < nbf)) return 'token is not valid yet (nbf)';
  if (options.requireIat || iat !== undefined) {
    if (typeof iat !== 'number') return 'iat is missing or not a number';
    if (iat > nowSeconds + CLOCK_SKEW_SECONDS) return `iat ${iat} is in the future`;
    if (options.requireIat && iat < nowSeconds - MAX_ID_TOKEN_AGE_SECONDS) return `iat ${iat} is more than ${MAX_ID_TOKEN_AGE_SECONDS} s old`;
  }
  return undefined;
}

/** OIDC Core 3.1.3.7: the ID token of a code flow we started with `nonce`. */
export async function validateIdToken(token: string, options: { provider: Provider; clientId: string; nonce: string; nowSeconds: number }): Promise<TokenCheck> {
  const decoded = decodeJwt(token);
  if (!decoded.ok) return decoded;
  const verified = await verifiedClaims(decoded.jwt, options.provider);
  if (!verified.ok) return verified;
  const claims = verified.claims;
  const { issuer } = await options.provider.metadata();
  if (claims['iss'] !== issuer) return { ok: false, reason: `iss "${String(claims['iss'])}" is not the configured issuer "${issuer}"` };
  const aud = claims['aud'];
  const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) && aud.every((a) => typeof a === 'string') ? (aud as string[]) : undefined;
  if (!audiences || !audiences.includes(options.clientId)) return { ok: false, reason: `aud does not contain the client id "${options.clientId}"` };
  const azp = claims['azp'];
  if (audiences.length > 1 && azp === undefined) return { ok: false, reason: 'several audiences but no azp' };
  if (azp !== undefined && azp !== options.clientId) return { ok: false, reason: `azp "${String(azp)}" is not the client id` };
  const times = checkTimes(claims, options.nowSeconds, { requireIat: true });
  if (times) return { ok: false, reason: times };
  if (typeof claims['nonce'] !== 'string' || !sameText(claims['nonce'], options.nonce)) return { ok: false, reason: 'nonce does not match the one sent with the authorization request' };
  if (typeof claims['sub'] !== 'string' || claims['sub'] === '') return { ok: false, reason: 'sub is missing' };
  return { ok: true, claims };
}

/** A bearer access token (RFC 9068 JWT profile): signed by the issuer, for our audience, unexpired. */
export async function validateAccessToken(token: string, options: { provider: Provider; audience: string; nowSeconds: number }): Promise<TokenCheck> {
  const decoded = decodeJwt(token);
  if (!decoded.ok) return decoded;
  // RFC 9068 2.1: typ "at+jwt"; refusing typ "JWT" ID tokens keeps an ID token from being replayed as a bearer.
  const typ = String(decoded.jwt.header.typ ?? '').toLowerCase();
  if (typ !== 'at+jwt' && typ !== 'application/at+jwt') return { ok: false, reason: `typ "${typ}" is not at+jwt: only access tokens are bearer tokens` };
  const verified = await verifiedClaims(decoded.jwt, options.provider);
  if (!verified.ok) return verified;
  const claims = verified.claims;
  const { issuer } = await options.provider.metadata();
  if (claims['iss'] !== issuer) return { ok: false, reason: `iss "${String(claims['iss'])}" is not the configured issuer` };
  const aud = claims['aud'];
  const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
  if (!audiences.includes(options.audience)) return { ok: false, reason: `aud does not contain "${options.audience}"` };
  const times = checkTimes(claims, options.nowSeconds, { requireIat: false });
  if (times) return { ok: false, reason: times };
  if (typeof claims['sub'] !== 'string' || claims['sub'] === '') return { ok: false, reason: 'sub is missing' };
  return { ok: true, claims };
}
