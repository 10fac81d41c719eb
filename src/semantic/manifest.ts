// What the semantic service declares about itself: identity, capabilities, executables,
// dependencies, consumed surfaces, volumes, contracts and the route table. `npm run contracts`
// generates governance-manifest.json, configs/stack-contract.json and the OpenAPI export from it.

import type { ServiceManifest } from '../kernel/index.ts';
import { DEPENDENCIES, CONSUMED_SURFACES } from './dependencies.ts';
import { semanticRoutes, UNCONFIGURED_HANDLERS } from './routes.ts';

const OPERATOR_HEADER_SCHEME = { type: 'apiKey', in: 'header', name: 'X-Semantic-Operator-Token' };

export const manifest: ServiceManifest = {
  service: 'semantic',
  seed: '000_28960ba92599847b',
  title: 'Semantic runtime service',
  description:
    'Loopback API (health, readiness, status and context readback, topology metrics, S0 projection verification, synthetic fixtures) and a resident reconciliation worker over a compartmented graph in the control database',
  owner: 'semantic',
  capabilities: [
    'runtime-status-readback',
    'context-readback',
    'topology-metrics-readback',
    'projection-verification-s0',
    'synthetic-fixtures-s0',
    'reconciliation-worker',
    'isolation-domain-walls',
    'event-outbox',
  ],
  executables: [
    { name: 'semantic-api', role: 'api', source: 'src/semantic/main.ts', listeners: [{ name: 'main', port: 18020, env: 'SEMANTIC_LISTEN' }] },
    { name: 'semantic-worker', role: 'worker', source: 'src/semantic/main-worker.ts', listeners: [] },
  ],
  dependencies: DEPENDENCIES,
  consumed: CONSUMED_SURFACES,
  volumes: [
    {
      path: 'semantic.sqlite',
      purpose: 'control database: compartmented graph, ingest inbox and outcomes, reconciliation readback and receipts, projection-verification ledger, event outbox',
    },
  ],
  // Read-only checks only: the worker (semantic-worker --once) merges the inbox into the live
  // database, so it is no verifier (an admission dry-run refuses it).
  verify: ['curl -fsS http://127.0.0.1:18020/healthz', 'curl -fsS http://127.0.0.1:18020/readyz', 'node dist/bin/check_semantic_cdc_matrix.mjs'],
  contracts: [
    'contracts/api/semantic_asyncapi_v1.json',
    'contracts/api/semantic_cdc_v1.json',
    'contracts/semantic_control_schema_v1.json',
    'contracts/semantic_fixtures_v1.json',
    'contracts/semantic_ingest_record_v1.json',
    'contracts/semantic_isolation_domains_v1.json',
  ],
  openapiPath: 'contracts/api/semantic_openapi_v1.json',
  openapiInfo: {
    title: 'Airlock semantic runtime API',
    version: '1.0.0',
    description:
      'Internal, loopback-only API of the semantic runtime service (seed 000). Not externally admitted. Every fixture and verification endpoint is synthetic: it asserts, never executes. Problems are RFC 9457 application/problem+json.',
  },
  securitySchemes: {
    operator: { ...OPERATOR_HEADER_SCHEME, description: 'The operator token (SEMANTIC_OPERATOR_TOKEN)' },
    consumer: {
      type: 'http',
      scheme: 'bearer',
      description: 'A consumer token (SEMANTIC_CONSUMER_TOKENS_FILE); only consumers admitted by ts01_consumer_matrix (contracts/api/semantic_cdc_v1.json) pass, downstream-gated ones get 403 downstream_gated',
    },
    projection: {
      ...OPERATOR_HEADER_SCHEME,
      description: 'The operator token, and a configured SEMANTIC_PROJECTION_CASE_ALLOWLIST (absent or empty: 503, fail closed)',
    },
  },
  routes: semanticRoutes(UNCONFIGURED_HANDLERS),
};
