// Operator and bearer tokens: a constant-time check of a presented token against the
// configured ones, each of which may hold several comma-separated values (rotation).

import { timingSafeEqual } from 'node:crypto';
import { sha256 } from './_hmac.ts';
import { splitSecretValues } from './_secret-values.ts';

/**
 * True when `presented` equals one of the accepted tokens. SHA-256 digests of both sides are
 * compared, so lengths never leak and never throw, and every accepted value is compared.
 *
 * @example
 * if (!verifyToken(parseBearer(req.headers.authorization), [operatorToken])) return unauthorized();
 */
export function verifyToken(presented: string | undefined, accepted: readonly string[]): boolean {
  const presentedDigest = digestOfPresented(presented);
  return presentedDigest !== undefined && matchesAny(presentedDigest, accepted);
}

/**
 * The first name in `order` whose accepted tokens include `presented`, or undefined. Like
 * verifyToken() for each name, with the presented token hashed once: every value of every name
 * is still compared (no early exit), so the time says nothing about which one matched.
 *
 * @example
 * const lane = whichToken(parseBearer(req.headers.authorization), { operator: [op], bff: [bff] }, ['operator', 'bff']);
 */
export function whichToken<K extends string>(presented: string | undefined, accepted: Readonly<Record<K, readonly string[]>>, order: readonly K[]): K | undefined {
  const presentedDigest = digestOfPresented(presented);
  if (presentedDigest === undefined) return undefined;
  let found: K | undefined;
  for (const name of order) if (matchesAny(presentedDigest, accepted[name]) && found === undefined) found = name;
  return found;
}

function digestOfPresented(presented: string | undefined): Buffer | undefined {
  // A lone surrogate would be hashed as U+FFFD, so two different strings could share a digest.
  if (typeof presented !== 'string' || presented === '' || !presented.isWellFormed()) return undefined;
  return sha256(presented);
}

function matchesAny(presentedDigest: Buffer, accepted: readonly string[]): boolean {
  let matched = false;
  for (const token of splitSecretValues(accepted)) {
    if (token !== '') matched = timingSafeEqual(presentedDigest, acceptedDigest(token)) || matched;
  }
  return matched;
}

/**
 * Digests of accepted values, by value: a service checks every request against the same
 * configured tokens, and hashing them again each time was most of what a check cost (governance
 * compared each request with every lane, twice). Keyed by the configured value, never by what a
 * caller presented, so a lookup says nothing about the presented token; a rotated value is simply
 * another key. Bounded, since a caller may pass values that are not configuration.
 */
const digestsByValue = new Map<string, Buffer>();
const MAX_REMEMBERED_DIGESTS = 1024;

function acceptedDigest(token: string): Buffer {
  let digest = digestsByValue.get(token);
  if (digest === undefined) {
    if (digestsByValue.size >= MAX_REMEMBERED_DIGESTS) digestsByValue.clear();
    digest = sha256(token);
    digestsByValue.set(token, digest);
  }
  return digest;
}
