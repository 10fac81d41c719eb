// Deterministic identifiers for synthetic receipts and compartments: SHA-256 over canonical JSON,
// so the same inputs give the same id on every host and in every language.

import { createHash } from 'node:crypto';
import { canonicalJson } from '../kernel/index.ts';

/** Lower-case hex SHA-256 of a UTF-8 string. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Hex SHA-256 of the RFC 8785 canonical form of `value`. */
export function digestOf(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

/**
 * A short deterministic id: `<prefix>_` plus the first 32 hex digits of the digest of `parts`.
 *
 * @example
 * deriveId('rcpt', ['deletion-restore', 'subject', 'no_resurrection']); // 'rcpt_3f1c...'
 */
export function deriveId(prefix: string, parts: readonly unknown[]): string {
  return `${prefix}_${digestOf(parts).slice(0, 32)}`;
}
