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
  for (const token of splitSecretValues(accepted)) {
    if (token !== '') matched = timingSafeEqual(presentedDigest, sha256(token)) || matched;
  }
  return matched;
}
