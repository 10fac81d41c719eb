// Verification of a signed request over its raw body, for the four schemes of DESIGN.md
// ("Signed requests"). Hostile header values give a reason, never an exception.

import { equalBytes, hmacSha256 } from './_hmac.ts';
import { failure } from './_header.ts';
import { decodeKeys, type ParsedSignature } from './_scheme.ts';
import { schemeDefinition } from './_scheme-registry.ts';
import { hasAnyValue, splitSecretValues } from './_secret-values.ts';
import {
  SIGNATURE_TOLERANCE_SECONDS,
  type SignatureResult,
  type SignatureScheme,
  type VerifySignatureOptions,
} from './signature-types.ts';

/**
 * Checks the request's signature headers against every value of every configured secret.
 * Order: configuration, header syntax, timestamp tolerance, then the HMAC comparison.
 *
 * @example
 * const result = verifySignature('house', { rawBody, headers: req.headers, secrets: [secret], now: clock() });
 * if (!result.ok) return unauthorized(); // log result.reason, tell the caller one fixed thing
 */
export function verifySignature(scheme: SignatureScheme, options: VerifySignatureOptions): SignatureResult {
  const definition = schemeDefinition(scheme);
  assertVerifyOptions(options);
  const values = splitSecretValues(options.secrets);
  if (!hasAnyValue(values)) return failure('no_secret_configured');
  const parsed = definition.parseHeaders(options.headers);
  if (!parsed.ok) return parsed;
  // Written so that a NaN difference fails closed.
  if (parsed.timestamp !== undefined && !(Math.abs(options.now - parsed.timestamp) <= SIGNATURE_TOLERANCE_SECONDS)) {
    return failure('timestamp_out_of_tolerance');
  }
  // Unusable values are skipped: they show up in checkSecret, not as a distinct answer here.
  if (!anySignatureMatches(decodeKeys(definition, values), parsed, options.rawBody)) {
    return failure('no_matching_signature');
  }
  return {
    ok: true,
    ...(parsed.id === undefined ? {} : { id: parsed.id }),
    ...(parsed.timestamp === undefined ? {} : { timestamp: parsed.timestamp }),
  };
}

/** Compares every key with every signature, with no early exit. */
function anySignatureMatches(keys: readonly Buffer[], parsed: ParsedSignature, rawBody: Uint8Array): boolean {
  let matched = false;
  for (const key of keys) {
    const expected = hmacSha256(key, parsed.prefix, rawBody);
    for (const signature of parsed.signatures) matched = equalBytes(expected, signature) || matched;
  }
  return matched;
}

function assertVerifyOptions(options: VerifySignatureOptions): void {
  const { rawBody, headers, secrets, now } = options;
  if (!(rawBody instanceof Uint8Array)) throw new TypeError('Invalid verifySignature() option "rawBody": expected a Uint8Array');
  if (typeof headers !== 'object' || headers === null) throw new TypeError('Invalid verifySignature() option "headers": expected an object');
  if (!Array.isArray(secrets) || !secrets.every((secret) => typeof secret === 'string')) throw new TypeError('Invalid verifySignature() option "secrets": expected an array of strings');
  if (!Number.isFinite(now)) throw new TypeError('Invalid verifySignature() option "now": expected unix seconds');
}
