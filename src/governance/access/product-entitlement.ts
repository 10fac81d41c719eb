// The product_entitlement surface: the producer projects a tenant's entitlement to one product
// that governance knows (a manifest service or a registered product); only a fresh, active
// entitlement is projected, for the window the observation declares (at most 3600 s).

import { knownProducts } from '../tools/products.ts';
import { queryScope, scopeKey, TENANT_ID } from './projection.ts';
import type { ScopeResult, SurfaceSpec } from './projection.ts';

export interface EntitlementObservation {
  scope: { tenant_id: string; product: string };
  entitlement: { state: 'active' | 'suspended' | 'expired'; plan: string };
  observed_at: string;
  valid_for_seconds: number;
  source: { system: string; record_ref: string };
}

function scopeOf(tenant: string, product: string): ScopeResult {
  if (!TENANT_ID.test(tenant)) return { ok: false, reason: 'scope_ambiguous', detail: `Tenant "${tenant}" is not one exact tenant id` };
  if (!/^[a-z][a-z0-9-]{0,63}$/.test(product)) return { ok: false, reason: 'scope_ambiguous', detail: `Product "${product}" is not one exact product name` };
  return { ok: true, key: scopeKey(tenant, product), scope: { tenant_id: tenant, product } };
}

export const PRODUCT_ENTITLEMENT: SurfaceSpec = {
  surface: 'product_entitlement',
  policy: 'identity_contracts/entitlement-policy',
  grant: 'product_entitlement',
  writeScope(runtime, body: EntitlementObservation) {
    const scope = scopeOf(body.scope.tenant_id, body.scope.product);
    if (scope.ok && !knownProducts(runtime).includes(body.scope.product)) {
      return { ok: false, reason: 'unknown_product', detail: `Product "${body.scope.product}" is neither a service of governance-manifest.json nor a registered product` };
    }
    return scope;
  },
  readScope: (query) => queryScope(query, 'product', scopeOf),
  disqualify: (body: EntitlementObservation) => (body.entitlement.state === 'active' ? [] : [body.entitlement.state]),
  observedAt: (body: EntitlementObservation) => body.observed_at,
  validForSeconds: (_runtime, body: EntitlementObservation) => body.valid_for_seconds,
  observation: (body: EntitlementObservation) => ({ entitlement: body.entitlement, valid_for_seconds: body.valid_for_seconds, source: body.source }),
};
