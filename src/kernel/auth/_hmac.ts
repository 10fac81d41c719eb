// HMAC-SHA256 and the strict digest codecs every scheme shares. Comparisons go through
// timingSafeEqual on equal-length buffers only, so a short or long value never throws.

import { createHmac, hash, timingSafeEqual } from 'node:crypto';

export const DIGEST_BYTES = 32;

const HEX_DIGEST = /^[0-9a-f]{64}$/;
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** HMAC-SHA256(key, prefix || body), the body fed as bytes so it is never copied or re-encoded. */
export function hmacSha256(key: Uint8Array, prefix: string, body: Uint8Array): Buffer {
  return createHmac('sha256', key).update(prefix, 'utf8').update(body).digest();
}

export function sha256(text: string): Buffer {
  // The one-shot form makes no Hash object: a token check hashes on every request.
  return hash('sha256', text, 'buffer');
}

/** Constant time for equal lengths; unequal lengths are simply unequal. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * A SHA-256 digest written as `prefix` then 64 lower-case hex digits, the form every hex
 * scheme publishes; anything else (upper case, other length, whitespace) is undefined.
 */
export function decodeHexDigest(text: string, prefix = ''): Buffer | undefined {
  if (!text.startsWith(prefix)) return undefined;
  const hex = text.slice(prefix.length);
  return HEX_DIGEST.test(hex) ? Buffer.from(hex, 'hex') : undefined;
}

/**
 * Standard base64 with padding, refused unless canonical: Buffer.from alone skips stray
 * characters, which would let two different header values decode to the same bytes.
 */
export function decodeBase64(text: string): Buffer | undefined {
  if (text === '' || !CANONICAL_BASE64.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : undefined;
}
