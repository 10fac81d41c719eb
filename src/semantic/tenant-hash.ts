// The tenant hash that graph rows carry instead of the tenant id: the id itself is never stored,
// and graph reads bind it together with the isolation domain.

import { sha256Hex } from './digest.ts';

const TENANT_HASH_CONTEXT = 'airlock.semantic.tenant.v1:';

/** Hex SHA-256 of the tenant id in a fixed context. */
export function tenantHash(tenantId: string): string {
  // UTF-8 encoding would turn every lone surrogate into U+FFFD, so distinct ids would share a compartment.
  if (!tenantId.isWellFormed()) throw new TypeError('Cannot hash a tenant id that is not well-formed Unicode');
  return sha256Hex(`${TENANT_HASH_CONTEXT}${tenantId}`);
}

/** The tenant hash of a record's `tenant_id` value; null when it names no usable tenant (such a record is quarantined). */
export function recordTenantHash(tenantId: unknown): string | null {
  return typeof tenantId === 'string' && tenantId.isWellFormed() ? tenantHash(tenantId) : null;
}
