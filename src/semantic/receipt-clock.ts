// The clock fields of synthetic receipts: issued_at from the injectable clock, expires_at at most
// one hour later (seed 000: the receipt TTL is at most one hour). Everything else in a receipt is
// a pure function of the request, the contracts and the configuration.

import { digestOf } from './digest.ts';
import { MAX_RECEIPT_TTL_SECONDS } from './config.ts';

export interface ReceiptWindow {
  issued_at: string;
  expires_at: string;
}

/** issued_at (whole seconds) and expires_at = issued_at + ttlSeconds. */
export function receiptWindow(nowMs: number, ttlSeconds: number): ReceiptWindow {
  if (!Number.isSafeInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > MAX_RECEIPT_TTL_SECONDS) {
    throw new RangeError(`Invalid receipt TTL ${ttlSeconds} s: use 1 to ${MAX_RECEIPT_TTL_SECONDS}`);
  }
  const issued = Math.floor(nowMs / 1000) * 1000;
  return { issued_at: new Date(issued).toISOString(), expires_at: new Date(issued + ttlSeconds * 1000).toISOString() };
}

/**
 * A deterministic body plus its digest and the clock fields: `receipt_sha256` covers everything
 * but the clock, so two answers to one request can be compared by that field alone.
 */
export function sealReceipt<T extends Record<string, unknown>>(body: T, window: ReceiptWindow): T & ReceiptWindow & { receipt_sha256: string } {
  return { ...body, receipt_sha256: digestOf(body), ...window };
}
