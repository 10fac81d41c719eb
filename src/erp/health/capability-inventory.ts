// GET /capability-inventory: every endpoint of the route table with its method, path, auth,
// family and stability label (seed 002 "Versioning"), generated from the table itself so the two
// cannot disagree.

import type { ErpRoute } from '../erp-route.ts';
import { SERVICE_NAME } from '../identity.ts';

export interface Capability {
  method: string;
  path: string;
  auth: string;
  family: string;
  stability: string;
  summary: string;
}

export function capabilityInventory(routes: readonly ErpRoute[], version: string): { service: string; version: string; capabilities: Capability[] } {
  return {
    service: SERVICE_NAME,
    version,
    capabilities: routes
      .map((r) => ({ method: r.method, path: r.path, auth: r.authLabel ?? (r.signature ? `signature:${r.signature.scheme}` : r.auth), family: r.family, stability: r.stability, summary: r.summary }))
      .sort((a, b) => (a.path === b.path ? a.method.localeCompare(b.method) : a.path.localeCompare(b.path))),
  };
}
