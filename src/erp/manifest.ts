// What the ERP service declares about itself; `npm run contracts` turns it into its entry of
// governance-manifest.json, configs/stack-contract.json and its OpenAPI export. Healthchecks carry
// seed 002's weak-host numbers (database 30 s, gateway 120 s; low-CPU 60 s and 180 s).

import type { ErrorBody, ServiceManifest } from '../kernel/index.ts';
import { isFrappePath } from './frappe/render-problem.ts';
import { MCP_AUTH } from './mcp/mount.ts';
import { DATABASE_FILE, OPENAPI_INFO, OPENAPI_PATH, SERVICE_NAME } from './identity.ts';
import { HEALTHZ_PATH, STATUS_PATH } from './health/routes.ts';
import { erpRoutes } from './routes.ts';

const MAIN = { name: 'main', port: 18030, env: 'ERP_LISTEN' };

/** Frappe's error envelope (frappe/utils/response.py), what every error on a Frappe path is. */
const FRAPPE_ERROR_SCHEMA = {
  type: 'object',
  required: ['exc_type', 'exception', '_server_messages'],
  properties: {
    exc_type: { type: 'string', description: 'The Frappe exception class, e.g. ValidationError' },
    exception: { type: 'string', description: '"frappe.exceptions.<exc_type>: <text>"' },
    _server_messages: { type: 'string', description: 'JSON text of a list of JSON texts, each {"message": ...}' },
  },
} as const;

/**
 * Errors on the Frappe paths are Frappe's envelope, with Frappe's status codes (a malformed or
 * invalid argument is ValidationError, 417); /mcp's authenticator refuses in the same envelope.
 * /healthz and /capability-inventory are Airlock's own and keep RFC 9457.
 */
const ERROR_BODIES: readonly ErrorBody[] = [
  { name: 'FrappeError', mediaType: 'application/json', schema: FRAPPE_ERROR_SCHEMA, appliesTo: isFrappePath, statuses: { 400: 417, 422: 417 } },
  { name: 'FrappeError', mediaType: 'application/json', schema: FRAPPE_ERROR_SCHEMA, appliesTo: (path) => path === '/mcp', onlyFor: [401, 403] },
];

export const manifest: ServiceManifest = {
  service: SERVICE_NAME,
  seed: '002_fcf4d9d2760c44e4.txt',
  title: 'ERP workflow integration service',
  description: 'Frappe-compatible /api/method/erp_core.api.* surface: signed payment, supplier and website-contact intake staged as append-only Integration Events, posting lanes to draft invoices with exact money, owner readback through /api/resource, integration status and capability inventory; support-desk intake handed off to governance and outbound delivery to a Zammad-compatible desk, fail-closed identity projections over Employee and User truth, and an MCP endpoint with read tools.',
  owner: 'airlock-erp',
  capabilities: ['signed-webhook-intake', 'revenue-event-staging', 'supplier-intake-staging', 'website-lead-intake', 'posting-lanes', 'owner-readback', 'integration-status', 'capability-inventory', 'workspace-binding', 'dispatch-materialization', 'callback-receipts', 'approval-packets', 'agent-runtime-dispatch', 'support-desk-intake', 'support-desk-outbound', 'support-context', 'identity-projections', 'mcp-tools'],
  executables: [{ name: 'erp-api', role: 'api', source: 'src/erp/main.ts', listeners: [MAIN] }],
  dependencies: [
    { name: DATABASE_FILE, kind: 'sqlite', owner: SERVICE_NAME, env: 'AIRLOCK_DATA_DIR', required: true },
    { name: 'login users (scrypt hashes)', kind: 'file', owner: SERVICE_NAME, env: 'ERP_USERS_FILE', required: false },
    { name: 'supplier master data', kind: 'file', owner: SERVICE_NAME, env: 'ERP_SUPPLIERS_FILE', required: false },
    { name: 'governance service (support handoff)', kind: 'http', owner: 'governance', env: 'GOVERNANCE_URL', required: false },
    { name: 'Zammad-compatible support desk', kind: 'http', owner: 'support-desk', env: 'SUPPORT_DESK_URL', required: false },
  ],
  consumed: [
    { owner: 'governance', method: 'POST', path: '/api/v1/events/outbox/support', description: 'Support-desk handoff after local persistence (operator lane token, Idempotency-Key = event audit key)' },
    { owner: 'support-desk', method: 'POST', path: '/api/v1/ticket_articles', description: 'Zammad: reply and note articles (Authorization: Token token=...)' },
    { owner: 'support-desk', method: 'PUT', path: '/api/v1/tickets/{ticket_id}', description: 'Zammad: ticket state update' },
    { owner: 'agent-runtime', method: 'POST', path: '{AGENT_RUNTIME_URL}', description: 'Approval packet delivery (house-signed, Idempotency-Key), retried with backoff; exhausted retries become Dead Letters' },
  ],
  volumes: [{ path: DATABASE_FILE, purpose: 'Business documents (current state), login sessions, and the append-only hash-chained evidence: integration events, document changes, dispatch jobs, approval packets, dead letters, agent notifications' }],
  verify: [`node dist/bin/verify_evidence_chain.mjs --db $AIRLOCK_DATA_DIR/${DATABASE_FILE}`, 'node dist/bin/erp_performance_gate.mjs --base-url http://127.0.0.1:18030'],
  contracts: ['contracts/erp/support_normalization_rules_v1.json', 'contracts/erp/support_normalization_rules_v1.schema.json', 'contracts/erp/workboard_access_fact_v3.json'],
  openapiPath: OPENAPI_PATH,
  openapiInfo: OPENAPI_INFO,
  errorBodies: ERROR_BODIES,
  securitySchemes: {
    frappe: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'Frappe token auth "token <api_key>:<api_secret>" (ERP_API_KEYS), or the sid cookie from POST /api/method/login' },
    [MCP_AUTH]: { type: 'apiKey', in: 'header', name: 'Authorization', description: '/mcp: the same Frappe token or sid cookie, after the Origin check (ERP_MCP_ALLOWED_ORIGINS)' },
  },
  healthchecks: [
    { name: 'database', probe: `http://127.0.0.1:18030${HEALTHZ_PATH}`, intervals: { default: 30, low_cpu: 60 } },
    { name: 'gateway', probe: `http://127.0.0.1:18030${STATUS_PATH}`, intervals: { default: 120, low_cpu: 180 }, intervalEnv: 'MCP_GATEWAY_HEALTHCHECK_INTERVAL' },
  ],
  routes: erpRoutes(() => {
    throw new TypeError('The manifest route table is not served');
  }),
};
