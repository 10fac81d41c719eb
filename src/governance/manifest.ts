// What the governance service declares about itself; `npm run contracts` turns it into its
// entry of governance-manifest.json, configs/stack-contract.json and its OpenAPI export.

import type { ServiceManifest } from '../kernel/index.ts';
import { PLATFORM_LISTENER, WORKER_LISTENER } from './config.ts';
import { CAPABILITIES, OPENAPI_INFO, OPENAPI_PATH, OPENAPI_SERVERS, SERVICE_NAME } from './identity.ts';
import { SECURITY_SCHEMES } from './lanes.ts';
import { governanceRoutes } from './routes.ts';

const PLATFORM = { name: PLATFORM_LISTENER, port: 18010, env: 'GOVERNANCE_PLATFORM_LISTEN' };
const WORKER = { name: WORKER_LISTENER, port: 18011, env: 'GOVERNANCE_WORKER_LISTEN', loopbackOnly: true };

export const manifest: ServiceManifest = {
  service: SERVICE_NAME,
  seed: '001_31d5cdc43efc70bf.txt',
  title: 'Contract and governance publication service',
  description: 'Publishes contract catalogs, projections, readiness and drift under /api/v1 on a read-only platform listener, and accepts a bounded set of guarded writes (admission dry-run, compatibility check, planning sessions, identity projections, outbox, products, updates, git-host intake, sidecar probes) on a loopback worker listener, each for its own lane.',
  owner: 'airlock-governance',
  capabilities: Object.keys(CAPABILITIES),
  executables: [
    { name: 'governance-api', role: 'platform-api', source: 'src/governance/main.ts', args: ['--role', 'platform-api'], listeners: [PLATFORM] },
    { name: 'governance-api', role: 'control-api', source: 'src/governance/main.ts', args: ['--role', 'control-api'], listeners: [WORKER] },
  ],
  dependencies: [
    { name: 'governance.sqlite', kind: 'sqlite', owner: SERVICE_NAME, env: 'AIRLOCK_DATA_DIR', required: true },
    { name: 'governance contract artifacts', kind: 'file', owner: SERVICE_NAME, env: 'GOVERNANCE_CONTRACTS_DIR', required: true },
    { name: 'governance-manifest.json', kind: 'file', owner: 'airlock', env: 'GOVERNANCE_MANIFEST_PATH', required: true },
    { name: 'semantic service contracts', kind: 'file', owner: 'semantic', env: 'GOVERNANCE_SEMANTIC_CONTRACTS_DIR', required: false },
    { name: 'CRM adapter (context-capability assertions)', kind: 'http', owner: 'crm-adapter', env: 'GOVERNANCE_CRM_UPSTREAM_URL', required: false },
    { name: 'mail-admission signing key (Ed25519 JWK, mode 0600)', kind: 'file', owner: SERVICE_NAME, env: 'GOVERNANCE_MAIL_ADMISSION_KEY_FILE', required: false },
    { name: 'materialized mail-admission file (materialize_mail_admission --apply)', kind: 'file', owner: SERVICE_NAME, env: 'GOVERNANCE_MAIL_ADMISSION_FILE', required: false },
  ],
  consumed: [
    { owner: 'semantic', method: 'POST', path: '/api/v1/semantic/projection-verification/runs', description: 'Admission contract of the S0 projection-verification harness, read from contracts/api/semantic_openapi_v1.json (never called)' },
    { owner: 'crm-adapter', method: 'GET', path: '/context-capability/{tool_name}', description: 'Context-capability answer for an admitted company' },
  ],
  volumes: [
    { path: 'governance.sqlite', purpose: 'Publication evidence and the state of the guarded writes (append-only, hash-chained) and idempotency keys, shared by both roles' },
    { path: 'governance-mail-admission-key.json', purpose: 'Mail-admission signing key (private JWK, mode 0600), created at first start unless GOVERNANCE_MAIL_ADMISSION_KEY_FILE names one' },
  ],
  verify: ['node dist/bin/governance-readiness.mjs --base-url http://127.0.0.1:18010'],
  contracts: ['contracts/governance'],
  openapiPath: OPENAPI_PATH,
  openapiInfo: OPENAPI_INFO,
  openapiServers: OPENAPI_SERVERS,
  securitySchemes: SECURITY_SCHEMES,
  routes: governanceRoutes(() => {
    throw new TypeError('The manifest route table is not served');
  }),
};
