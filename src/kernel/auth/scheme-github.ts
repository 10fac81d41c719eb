// GitHub/Gitea webhooks (governance git-host webhook):
// `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, raw body)>`. No timestamp is signed,
// so `now` plays no part; the delivery id comes from X-GitHub-Delivery or X-Gitea-Delivery and
// is not covered by the signature (Gitea sends both headers with the same value).

import { decodeHexDigest } from './_hmac.ts';
import { decodeUtf8Secret } from './_secret-values.ts';
import { SIGNATURE_HEADER_REASONS, failure, headerValue, isDeliveryId, requireHeader } from './_header.ts';
import type { ParsedSignature, SchemeDefinition } from './_scheme.ts';
import type { IncomingHeaders, SignatureFailure, SignedHeaders } from './signature-types.ts';

const SIGNATURE_PREFIX = 'sha256=';
const DELIVERY_HEADERS = ['x-github-delivery', 'x-gitea-delivery'] as const;

function parseHeaders(headers: IncomingHeaders): ParsedSignature | SignatureFailure {
  const header = requireHeader(headers, 'x-hub-signature-256', SIGNATURE_HEADER_REASONS);
  if (typeof header !== 'string') return header;
  const digest = decodeHexDigest(header, SIGNATURE_PREFIX);
  if (digest === undefined) return failure('malformed_signature');
  const id = readDeliveryId(headers);
  if (id === null) return failure('malformed_id');
  return { ok: true, prefix: signedPrefix(), signatures: [digest], ...(id === undefined ? {} : { id }) };
}

/** The delivery id, undefined when neither header is sent, null when one is malformed or they disagree. */
function readDeliveryId(headers: IncomingHeaders): string | undefined | null {
  let id: string | undefined;
  for (const name of DELIVERY_HEADERS) {
    const value = headerValue(headers, name);
    if (value === undefined) continue;
    if (value === null || !isDeliveryId(value) || (id !== undefined && id !== value)) return null;
    id = value;
  }
  return id;
}

function signedPrefix(): string {
  return '';
}

function formatHeaders(digests: readonly Buffer[], _timestamp: string, id: string | undefined): SignedHeaders {
  const signature = { 'x-hub-signature-256': `${SIGNATURE_PREFIX}${digests[0]?.toString('hex')}` };
  return id === undefined ? signature : { ...signature, 'x-github-delivery': id };
}

export const GITHUB_SCHEME: SchemeDefinition = {
  decodeSecret: decodeUtf8Secret,
  secretProblem: 'is empty',
  parseHeaders,
  signedPrefix,
  formatHeaders,
  signsWithEveryValue: false,
  usesTimestamp: false,
  requiresId: false,
};
