// Standard Webhooks (ERP webhooks.payment_b): `webhook-id`, `webhook-timestamp` and
// `webhook-signature: v1,<base64 HMAC-SHA256(key, "<id>.<ts>.<raw body>")>`, several
// signatures separated by single spaces, versions other than v1 ignored. The secret is
// `whsec_<base64 key>`.

import { DIGEST_BYTES, decodeBase64 } from './_hmac.ts';
import {
  ID_HEADER_REASONS,
  MAX_SIGNATURE_HEADER_LENGTH,
  MAX_SIGNATURES,
  SIGNATURE_HEADER_REASONS,
  TIMESTAMP_HEADER_REASONS,
  failure,
  isDeliveryId,
  parseUnixSeconds,
  requireHeader,
} from './_header.ts';
import type { ParsedSignature, SchemeDefinition } from './_scheme.ts';
import type { IncomingHeaders, SignatureFailure, SignedHeaders } from './signature-types.ts';

const SECRET_PREFIX = 'whsec_';
// `<version>,<base64>`: the base64 alphabet has no comma or space, so a duplicated header
// joined by Node with ", " leaves a trailing comma on an entry and fails here.
const ENTRY = /^([a-z0-9]{1,16}),([A-Za-z0-9+/]+={0,2})$/;

function decodeSecret(value: string): Buffer | undefined {
  return value.startsWith(SECRET_PREFIX) ? decodeBase64(value.slice(SECRET_PREFIX.length)) : undefined;
}

function parseHeaders(headers: IncomingHeaders): ParsedSignature | SignatureFailure {
  const header = requireHeader(headers, 'webhook-signature', SIGNATURE_HEADER_REASONS);
  if (typeof header !== 'string') return header;
  const signatures = parseSignatureList(header);
  if (signatures === undefined) return failure('malformed_signature');
  const id = requireHeader(headers, 'webhook-id', ID_HEADER_REASONS);
  if (typeof id !== 'string') return id;
  if (!isDeliveryId(id)) return failure('malformed_id');
  const timestampText = requireHeader(headers, 'webhook-timestamp', TIMESTAMP_HEADER_REASONS);
  if (typeof timestampText !== 'string') return timestampText;
  const timestamp = parseUnixSeconds(timestampText);
  if (timestamp === undefined) return failure('malformed_timestamp');
  return { ok: true, prefix: signedPrefix(timestampText, id), signatures, timestamp, id };
}

/** The v1 digests, or undefined when any entry (of any version) is malformed. */
function parseSignatureList(header: string): Buffer[] | undefined {
  if (header.length > MAX_SIGNATURE_HEADER_LENGTH) return undefined;
  const entries = header.split(' ');
  if (entries.length > MAX_SIGNATURES) return undefined;
  const signatures: Buffer[] = [];
  for (const entry of entries) {
    const [, version, value = ''] = ENTRY.exec(entry) ?? [];
    if (version === undefined) return undefined;
    if (version !== 'v1') continue;
    const digest = decodeBase64(value);
    if (digest?.length !== DIGEST_BYTES) return undefined;
    signatures.push(digest);
  }
  return signatures;
}

function signedPrefix(timestamp: string, id: string | undefined): string {
  return `${id}.${timestamp}.`;
}

function formatHeaders(digests: readonly Buffer[], timestamp: string, id: string | undefined): SignedHeaders {
  return {
    'webhook-id': `${id}`,
    'webhook-timestamp': timestamp,
    'webhook-signature': digests.map((digest) => `v1,${digest.toString('base64')}`).join(' '),
  };
}

export const STANDARD_WEBHOOKS_SCHEME: SchemeDefinition = {
  decodeSecret,
  secretProblem: 'is not "whsec_" followed by canonical base64',
  parseHeaders,
  signedPrefix,
  formatHeaders,
  signsWithEveryValue: true,
  usesTimestamp: true,
  requiresId: true,
};
