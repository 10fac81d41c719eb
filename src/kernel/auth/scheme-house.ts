// Airlock's house scheme, for every other HMAC surface (supplier and contact intake,
// callbacks, support desk inbound, workspace guest callers):
// `X-Signature: v1=<hex HMAC-SHA256(secret, "<ts>.<raw body>")>` with
// `X-Signature-Timestamp: <unix seconds>`. Exactly one signature per request.

import { decodeHexDigest } from './_hmac.ts';
import { decodeUtf8Secret } from './_secret-values.ts';
import {
  SIGNATURE_HEADER_REASONS,
  TIMESTAMP_HEADER_REASONS,
  failure,
  parseUnixSeconds,
  requireHeader,
} from './_header.ts';
import type { ParsedSignature, SchemeDefinition } from './_scheme.ts';
import type { IncomingHeaders, SignatureFailure, SignedHeaders } from './signature-types.ts';

const SIGNATURE_PREFIX = 'v1=';

function parseHeaders(headers: IncomingHeaders): ParsedSignature | SignatureFailure {
  const header = requireHeader(headers, 'x-signature', SIGNATURE_HEADER_REASONS);
  if (typeof header !== 'string') return header;
  const digest = decodeHexDigest(header, SIGNATURE_PREFIX);
  if (digest === undefined) return failure('malformed_signature');
  const timestampText = requireHeader(headers, 'x-signature-timestamp', TIMESTAMP_HEADER_REASONS);
  if (typeof timestampText !== 'string') return timestampText;
  const timestamp = parseUnixSeconds(timestampText);
  if (timestamp === undefined) return failure('malformed_timestamp');
  return { ok: true, prefix: signedPrefix(timestampText), signatures: [digest], timestamp };
}

function signedPrefix(timestamp: string): string {
  return `${timestamp}.`;
}

function formatHeaders(digests: readonly Buffer[], timestamp: string): SignedHeaders {
  return { 'x-signature': `${SIGNATURE_PREFIX}${digests[0]?.toString('hex')}`, 'x-signature-timestamp': timestamp };
}

export const HOUSE_SCHEME: SchemeDefinition = {
  decodeSecret: decodeUtf8Secret,
  secretProblem: 'is empty',
  parseHeaders,
  signedPrefix,
  formatHeaders,
  signsWithEveryValue: false,
  usesTimestamp: true,
  requiresId: false,
};
