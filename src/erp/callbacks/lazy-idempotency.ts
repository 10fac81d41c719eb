// The route table is built before the service's database exists (the manifest builds it with no
// database at all), so callback routes name the kernel's idempotency store through this delegate.
// Retention is the kernel's minimum, 24 h, which the OpenAPI export publishes.

import { MIN_IDEMPOTENCY_RETENTION_MS } from '../../kernel/index.ts';
import type { IdempotencyStore } from '../../kernel/index.ts';
import type { DepsRef } from '../erp-route.ts';

export function lazyIdempotency(deps: DepsRef): IdempotencyStore {
  return {
    retentionMs: MIN_IDEMPOTENCY_RETENTION_MS,
    begin: (request) => deps().idempotency.begin(request),
    complete: (request) => deps().idempotency.complete(request),
    abandon: (request) => deps().idempotency.abandon(request),
    purgeExpired: (now) => deps().idempotency.purgeExpired(now),
  };
}
