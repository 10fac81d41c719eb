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
  // A lone surrogate would be hashed as U+FFFD, so two different strings could share a digest.
  if (typeof presented !== 'string' || presented === '' || !presented.isWellFormed()) return false;
  const presentedDigest = sha256(presented);
  let matched = false;
  for (const digest of acceptedDigests(accepted)) matched = timingSafeEqual(presentedDigest, digest) || matched;
  return matched;
}

/**
 * The digests of the accepted values, made once per configured list: a service checks every
 * request against the same lists, and hashing them again each time was most of what a token
 * check cost (governance compares each request with every lane, twice). A list changed in place
 * since is hashed again.
 */
const digestsByList = new WeakMap<readonly string[], { values: readonly string[]; digests: readonly Buffer[] }>();

function acceptedDigests(accepted: readonly string[]): readonly Buffer[] {
  const known = digestsByList.get(accepted);
  if (known !== undefined && known.values.length === accepted.length && known.values.every((value, i) => value === accepted[i])) return known.digests;
  const digests = splitSecretValues(accepted).filter((token) => token !== '').map((token) => sha256(token));
  digestsByList.set(accepted, { values: [...accepted], digests });
  return digests;
}
