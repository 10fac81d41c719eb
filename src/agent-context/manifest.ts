// What agent-context declares about itself; `npm run contracts` generates its entry of
// governance-manifest.json, its rows of configs/stack-contract.json and its OpenAPI export from
// it, and GET /governance-manifest.json serves the same entry.

import type { ServiceManifest } from '../kernel/index.ts';
import { CAPABILITIES, EXECUTABLE, SERVICE_NAME } from './identity.ts';
import { agentContextRoutes, UNCONFIGURED_HANDLERS } from './routes.ts';

export const manifest: ServiceManifest = {
  service: SERVICE_NAME,
  seed: '002_fcf4d9d2760c44e4',
  title: 'Agent-context service',
  description:
    'Projection and composition for agent runtimes: open health, readiness, version, metrics and self-description; internal reads of inventory, topology, drift, rollouts, control agent and persistent agents; writes that need an authority context projected by the governance context composer',
  owner: 'agent-context',
  capabilities: [...CAPABILITIES],
  executables: [{ name: EXECUTABLE, role: 'api', source: 'src/agent-context/main.ts', listeners: [{ name: 'main', port: 18050, env: 'AGENT_CONTEXT_LISTEN' }] }],
  dependencies: [
    { name: 'governance', kind: 'http', owner: 'governance', env: 'GOVERNANCE_URL', required: false },
    { name: 'agent-context.sqlite', kind: 'sqlite', owner: 'agent-context', required: true },
  ],
  consumed: [
    { owner: 'governance', method: 'POST', path: '/api/v1/context-composer/context', description: 'Projects the authority context of every write; the guarded live upstream context path' },
    { owner: 'governance', method: 'GET', path: '/api/v1/platform/services', description: 'The governance manifest\'s declaration of this service (drift summary, topology diff, inventory)' },
    { owner: 'governance', method: 'GET', path: '/api/v1/platform/version-truth', description: 'Release version beside the rollouts audit' },
    { owner: 'governance', method: 'GET', path: '/api/v1/agent/action-context/{module_key}', description: 'Admitted action intents of the agent-runtime-control module' },
    { owner: 'governance', method: 'GET', path: '/health', description: 'Readiness of the upstream' },
  ],
  volumes: [{ path: 'agent-context.sqlite', purpose: 'evidence: runtime patches, execution runs, control commands, learning proposals, authority decisions, outbox events' }],
  verify: ['curl -fsS http://127.0.0.1:18050/health', 'curl -fsS http://127.0.0.1:18050/ready', 'curl -fsS http://127.0.0.1:18050/metrics'],
  contracts: [],
  openapiPath: 'contracts/api/agent_context_openapi_v1.json',
  openapiInfo: {
    title: 'Airlock agent-context API',
    version: '1.0.0',
    description: 'Loopback API of the agent-context service (seed 002). Self-description routes are open; internal routes need Authorization: Bearer AGENT_CONTEXT_TOKEN; writes need a projected authority context. Problems are RFC 9457 application/problem+json.',
  },
  securitySchemes: {
    internal: { type: 'http', scheme: 'bearer', description: 'AGENT_CONTEXT_TOKEN' },
  },
  routes: agentContextRoutes(UNCONFIGURED_HANDLERS),
  // Seed 002 "Limits": no interval below 20 s; production 120 s; low-CPU 180 s; the integration
  // stack probes the database only, every 20 s.
  healthchecks: [
    { name: 'service', probe: 'http://127.0.0.1:18050/health', intervals: { default: 120, production: 120, low_cpu: 180 }, timeoutSeconds: 5, retries: 3, minIntervalSeconds: 20 },
    { name: 'database', probe: 'http://127.0.0.1:18050/ready', intervals: { default: 120, production: 120, low_cpu: 180, integration: 20 }, timeoutSeconds: 5, retries: 3, minIntervalSeconds: 20 },
  ],
};
