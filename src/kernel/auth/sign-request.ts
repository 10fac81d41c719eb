// Signing for our own outbound callers and for tests: the headers a request needs so that
// verifySignature accepts it under the same scheme and secret.

import { AirlockError } from '../errors.ts';
import { hmacSha256 } from './_hmac.ts';
import { isDeliveryId } from './_header.ts';
import { decodeKeys } from './_scheme.ts';
import { schemeDefinition } from './_scheme-registry.ts';
import { splitSecretValues } from './_secret-values.ts';
import { checkSecret } from './check-secret.ts';
import type { SignRequestOptions, SignatureScheme, SignedHeaders } from './signature-types.ts';

/**
 * The signature headers for `rawBody`. With a rotating secret (`"new,old"`), stripe and
 * standard-webhooks carry one signature per value; github and house carry one signature, made
 * with the first value, so list the current value first.
 *
 * @example
 * const headers = signRequest('house', { rawBody, secret, now: Math.floor(Date.now() / 1000) });
 * // { 'x-signature': 'v1=…', 'x-signature-timestamp': '1767225600' }
 */
export function signRequest(scheme: SignatureScheme, options: SignRequestOptions): SignedHeaders {
  const definition = schemeDefinition(scheme);
  const { rawBody, secret, now, id } = options;
  if (!(rawBody instanceof Uint8Array)) throw new TypeError('Invalid signRequest() option "rawBody": expected a Uint8Array');
  if (definition.usesTimestamp && !(typeof now === 'number' && Number.isSafeInteger(now) && now >= 0)) {
    throw new TypeError(`Invalid signRequest() option "now" for scheme "${scheme}": expected whole unix seconds`);
  }
  if (id === undefined ? definition.requiresId : !isDeliveryId(id)) {
    throw new TypeError(`Invalid signRequest() option "id" for scheme "${scheme}": expected 1 to 255 visible ASCII characters without "," or "."`);
  }
  const check = checkSecret(scheme, secret);
  if (!check.ok) throw new AirlockError('config_invalid', `Cannot sign a request with scheme "${scheme}": ${check.detail}`);
  const values = splitSecretValues(secret);
  const keys = decodeKeys(definition, definition.signsWithEveryValue ? values : values.slice(0, 1));
  const timestamp = definition.usesTimestamp ? String(now) : '';
  const prefix = definition.signedPrefix(timestamp, id);
  return definition.formatHeaders(keys.map((key) => hmacSha256(key, prefix, rawBody)), timestamp, id);
}
