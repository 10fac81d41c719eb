// Who this service is, in one place: its name, the OpenAPI info and security schemes of its
// export, the capabilities it declares, and the contract family of a path.

export const SERVICE_NAME = 'governance';

export const OPENAPI_PATH = 'contracts/api/governance_openapi_v1.json';

export const OPENAPI_INFO = {
  title: 'Airlock governance publication service',
  version: '1.1.0',
  description: 'Contract and governance publication (seed 001): contract catalogs, projections, readiness and drift under /api/v1, and a bounded set of guarded writes. The platform listener serves every GET route, without credentials except the lane-scoped reads; the worker listener (loopback) authenticates before route resolution and serves the same reads plus every write, each admitted for its own lane only.',
};

/** The export's `servers`: each listener at its default address (its *_LISTEN variable moves it). */
export const OPENAPI_SERVERS = [
  { url: 'http://127.0.0.1:18010', description: 'platform listener, public and read-only (default address; GOVERNANCE_PLATFORM_LISTEN moves it)' },
  { url: 'http://127.0.0.1:18011', description: 'worker listener, loopback only, lane tokens (default address; GOVERNANCE_WORKER_LISTEN moves it)' },
] as const;

/** The capabilities the manifest declares; every read route names one, and /api/v1/capabilities joins them. */
export const CAPABILITIES = {
  liveness: 'Health of the process: status, service and deployment role',
  'openapi-export': 'OpenAPI 3.1 export generated from the route table',
  'contract-publication': 'Versioned contract artifacts, schema-validated at start, published read-only and failing closed',
  'contract-registry': 'Registry, schemas, families and producer/consumer matrix computed from artifacts and manifests',
  'drift-detection': 'Every contradiction between manifests, route tables, contracts and docs, listed',
  'readiness-publication': 'Readiness computed from real checks: database, artifacts, dependencies',
  'platform-truth': 'Service list, version truth, projection catalog, capabilities, metrics and host observations',
  'context-capability-assertion': 'CRM context-capability assertions; unknown companies denied before any upstream call',
  'semantic-harness-admission': 'Admission contract of the semantic S0 projection-verification harness, read from its contracts',
  'agent-bootstrap': 'Role-filtered agent bootstrap context and module-scoped action context',
  'admission-review': 'Admission dry-run: the seed\'s review order on a tool payload, a verdict per mandatory item; admits nothing',
  'compatibility-check': 'Schema compatibility in the registry modes, against a schema, versions or a contract family',
  'planning-sessions': 'Planning sessions backed by sqlite: BFF session writes, review rounds, owner decisions and per-session readbacks; no materialization authority',
  'identity-projections': 'Mail-management and product-entitlement projections: scoped producer writes, scoped consumer decisions, deny by default',
  'mail-admission-signing': 'Mail admissions signed with Ed25519 (compact JWS), a public JWKS, and revocations',
  'context-composition': 'Context composed from admitted sources only; caller-supplied authority refused',
  'git-host-intake': 'GitHub/Gitea webhook deliveries: signature over the raw body, delivery-id deduplication, evidence',
  'event-outbox': 'Outbox records checked against the event catalog\'s payload schemas, hash-chained, read in order',
  'product-registration': 'Guarded product registration beside the manifest\'s catalog; contradictions recorded, never adopted',
  'update-gates': 'Update checks and rollout gates against version truth, drift and sign-off; deploy nothing',
  'host-observation': 'Sidecar probes recorded as host observations that never override contract truth',
} as const;

export type Capability = keyof typeof CAPABILITIES;

/** The contract family of a path: its first segment after /api/v<n> (`/health` is `health`). */
export function familyOf(path: string): string {
  const segments = path.split('/').filter((s) => s !== '');
  const start = segments[0] === 'api' && /^v\d+$/.test(segments[1] ?? '') ? 2 : /^v\d+$/.test(segments[0] ?? '') ? 1 : 0;
  const first = segments[start] ?? '';
  return first.replace(/\.json$/, '').replace(/^[:*].*/, '') || '(root)';
}
