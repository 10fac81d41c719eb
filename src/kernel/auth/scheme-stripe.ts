// Stripe-compatible signatures (ERP webhooks.payment_a):
// `Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>[,v1=...]`.
// The secret is used as its UTF-8 string; other schemes in the header (v0) are ignored.

import { decodeHexDigest } from './_hmac.ts';
import { decodeUtf8Secret } from './_secret-values.ts';
import {
  MAX_SIGNATURE_HEADER_LENGTH,
  MAX_SIGNATURES,
  SIGNATURE_HEADER_REASONS,
  failure,
  parseUnixSeconds,
  requireHeader,
} from './_header.ts';
import type { ParsedSignature, SchemeDefinition } from './_scheme.ts';
import type { IncomingHeaders, SignatureFailure, SignedHeaders } from './signature-types.ts';

// One `key=value` item: no whitespace anywhere, so a duplicated header joined by Node with
// ", " always fails here instead of being read as one list.
const ITEM = /^([a-z0-9]{1,16})=([\x21-\x7e]+)$/;

function parseHeaders(headers: IncomingHeaders): ParsedSignature | SignatureFailure {
  const header = requireHeader(headers, 'stripe-signature', SIGNATURE_HEADER_REASONS);
  if (typeof header !== 'string') return header;
  if (header.length > MAX_SIGNATURE_HEADER_LENGTH) return failure('malformed_signature');
  const items = header.split(',');
  if (items.length > MAX_SIGNATURES + 1) return failure('malformed_signature');
  let timestampText: string | undefined;
  const signatures: Buffer[] = [];
  for (const item of items) {
    const [, key, value = ''] = ITEM.exec(item) ?? [];
    if (key === undefined || (key === 't' && timestampText !== undefined)) return failure('malformed_signature');
    if (key === 't') timestampText = value;
    if (key !== 'v1') continue;
    const digest = decodeHexDigest(value);
    if (digest === undefined) return failure('malformed_signature');
    signatures.push(digest);
  }
  if (timestampText === undefined) return failure('missing_timestamp');
  const timestamp = parseUnixSeconds(timestampText);
  if (timestamp === undefined) return failure('malformed_timestamp');
  return { ok: true, prefix: signedPrefix(timestampText), signatures, timestamp };
}

function signedPrefix(timestamp: string): string {
  return `${timestamp}.`;
}

function formatHeaders(digests: readonly Buffer[], timestamp: string): SignedHeaders {
  const v1 = digests.map((digest) => `v1=${digest.toString('hex')}`);
  return { 'stripe-signature': [`t=${timestamp}`, ...v1].join(',') };
}

export const STRIPE_SCHEME: SchemeDefinition = {
  decodeSecret: decodeUtf8Secret,
  secretProblem: 'is empty',
  parseHeaders,
  signedPrefix,
  formatHeaders,
  signsWithEveryValue: true,
  usesTimestamp: true,
  requiresId: false,
};
