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
  for (const entry of accepted) {
    for (const digest of digestsOfEntry(entry)) matched = timingSafeEqual(presentedDigest, digest) || matched;
  }
  return matched;
}

/**
 * Digests of accepted entries, by entry: a service checks every request against the same
 * configured tokens, and splitting and hashing them again each time was most of what a check cost
 * (governance compared each request with every lane, twice). Keyed by the configured entry, never
 * by what a caller presented, so a lookup says nothing about the presented token; a rotated value
 * is simply another key. Bounded, since a caller may pass values that are not configuration.
 */
const digestsByEntry = new Map<string, readonly Buffer[]>();
const MAX_REMEMBERED_ENTRIES = 1024;

/** The digests of an accepted entry's non-empty values (an entry may list several, comma-separated). */
function digestsOfEntry(entry: string): readonly Buffer[] {
  let digests = digestsByEntry.get(entry);
  if (digests === undefined) {
    if (digestsByEntry.size >= MAX_REMEMBERED_ENTRIES) digestsByEntry.clear();
    digests = splitSecretValues(entry).filter((value) => value !== '').map((value) => sha256(value));
    digestsByEntry.set(entry, digests);
  }
  return digests;
}
