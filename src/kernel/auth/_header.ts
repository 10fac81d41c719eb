// Reading hostile header values. One lookup tells absent, duplicated and present apart, and
// the grammars shared by several schemes (unix seconds, delivery ids) live here.

import type { IncomingHeaders, SignatureFailure, SignatureFailureReason } from './signature-types.ts';

/** Longest signature header we parse; real ones are under 300 characters. */
export const MAX_SIGNATURE_HEADER_LENGTH = 4096;
/** Most signatures (of any version) one header may carry. */
export const MAX_SIGNATURES = 16;

// Digits only, at most 15 so the number is exact: no sign, exponent, fraction or whitespace.
const UNIX_SECONDS = /^[0-9]{1,15}$/;
// Visible ASCII without "," (what Node joins duplicates with) or "." (the field separator of
// the signed content, which the Standard Webhooks spec forbids in ids).
const DELIVERY_ID = /^[\x21-\x2b\x2d\x2f-\x7e]{1,255}$/;

/**
 * The header's single value: undefined when absent or empty, null when duplicated (an array of
 * several values) or not a string at all.
 */
export function headerValue(headers: IncomingHeaders, name: string): string | undefined | null {
  const raw: unknown = Object.hasOwn(headers, name) ? headers[name] : undefined;
  const value: unknown = Array.isArray(raw) && raw.length === 1 ? raw[0] : raw;
  if (value === undefined || value === '') return undefined;
  return typeof value === 'string' ? value : null;
}

/** The header's value, or the failure that its absence or duplication means. */
export function requireHeader(
  headers: IncomingHeaders,
  name: string,
  reasons: { missing: SignatureFailureReason; malformed: SignatureFailureReason },
): string | SignatureFailure {
  const value = headerValue(headers, name);
  if (value === undefined) return failure(reasons.missing);
  if (value === null) return failure(reasons.malformed);
  return value;
}

export function parseUnixSeconds(text: string): number | undefined {
  return UNIX_SECONDS.test(text) ? Number(text) : undefined;
}

export function isDeliveryId(text: string): boolean {
  return DELIVERY_ID.test(text);
}

export function failure(reason: SignatureFailureReason): SignatureFailure {
  return { ok: false, reason };
}

export const SIGNATURE_HEADER_REASONS = { missing: 'missing_signature', malformed: 'malformed_signature' } as const;
export const TIMESTAMP_HEADER_REASONS = { missing: 'missing_timestamp', malformed: 'malformed_timestamp' } as const;
export const ID_HEADER_REASONS = { missing: 'missing_id', malformed: 'malformed_id' } as const;
