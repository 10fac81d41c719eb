// A service's route table is built before its database opens (the manifest and the OpenAPI
// export build it with no database at all), yet a route with Idempotency-Key names its key store
// up front. This delegate reaches the real store only when a request arrives, and forwards
// completeWithin, so writeReply() still joins a key's completion to the effect's transaction.

import { MIN_IDEMPOTENCY_RETENTION_MS } from './idempotency-store.ts';
import type { IdempotencyStore } from './idempotency-store.ts';

/**
 * An IdempotencyStore that calls `get()` at request time. `retentionMs` is what the route table
 * (and its OpenAPI export) publishes: the kernel's minimum, 24 h, unless given.
 *
 * @example
 * const idempotency = { store: lazyIdempotencyStore(() => runtime().idempotency), required: false };
 */
export function lazyIdempotencyStore(get: () => IdempotencyStore, retentionMs: number = MIN_IDEMPOTENCY_RETENTION_MS): IdempotencyStore {
  return {
    retentionMs,
    begin: (request) => get().begin(request),
    complete: (request) => get().complete(request),
    abandon: (request) => get().abandon(request),
    purgeExpired: (now) => get().purgeExpired(now),
    completeWithin: (sqlite, request) => {
      const keys = get();
      // The real store (createIdempotencyStore) always has it; a store without it cannot guard a joined effect.
      if (!keys.completeWithin) throw new TypeError('This key store cannot complete inside a write: use createIdempotencyStore()');
      keys.completeWithin(sqlite, request);
    },
    // A store without the one-transaction claim leaves the route on begin() and complete().
    isFree: (request) => get().isFree?.(request) ?? false,
    claimWithin: (sqlite, request) => {
      const keys = get();
      if (!keys.claimWithin) throw new TypeError('This key store cannot claim inside a write: use createIdempotencyStore()');
      return keys.claimWithin(sqlite, request);
    },
    claim: (request) => {
      const keys = get();
      if (!keys.claim) return Promise.reject(new TypeError('This key store cannot claim a key: use createIdempotencyStore()'));
      return keys.claim(request);
    },
  };
}
