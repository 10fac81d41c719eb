// The ERP service's names in one place: service, listener, the Frappe method prefix of seed 002
// ({base_url}/api/method/erp_core.api.<module>.<function>) and the stability labels of its
// "Versioning" section.

export const SERVICE_NAME = 'erp';
export const DEFAULT_LISTEN = '127.0.0.1:18030';
export const DATABASE_FILE = 'erp.sqlite';

/** Every seed 002 method path starts with this. */
export const METHOD_PREFIX = '/api/method/erp_core.api.';

/** The full path of `erp_core.api.<module>.<function>`. */
export function methodPath(dotted: string): string {
  return `${METHOD_PREFIX}${dotted}`;
}

/** Seed 002 "Versioning": stable (webhooks, callbacks, support, identity, dispatch, health) or internal (approval, posting, workspace). */
export type Stability = 'stable' | 'internal';

export const OPENAPI_PATH = 'contracts/api/erp_openapi_v1.json';
export const OPENAPI_INFO = {
  title: 'Airlock ERP integration service',
  version: '1.0.0',
  description: 'Frappe-compatible /api/method/erp_core.api.* surface: signed intake, posting lanes, owner readback (seed 002).',
};
