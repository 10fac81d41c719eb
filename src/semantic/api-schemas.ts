// Response schemas of the semantic API, published in the OpenAPI export and checked against real
// answers by the tests. Synthetic markers are constants here, so a receipt that claimed to have
// executed something would break its own contract.

import type { JsonSchema } from '../kernel/index.ts';
import { PROJECTION_RECEIPTS } from './projection-verification.ts';
import { TOPOLOGY_METRICS, TOPOLOGY_METRIC_DESCRIPTIONS } from './topology-metrics.ts';
import { AUTHORITY_BOUNDARY_FLAGS } from './context-readback.ts';

export const UNAVAILABLE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['status', 'reason'],
  properties: { status: { const: 'unavailable' }, reason: { type: 'string' } },
} as const;

const METRIC_SCHEMA = {
  oneOf: [
    { type: 'object', additionalProperties: false, required: ['status', 'value'], properties: { status: { const: 'available' }, value: { type: 'number', minimum: 0 } } },
    UNAVAILABLE_SCHEMA,
  ],
} as const;

const STRING = { type: 'string' } as const;
const INTEGER = { type: 'integer', minimum: 0 } as const;
const TIME = { type: 'string', format: 'date-time' } as const;
const SHA256 = { type: 'string', pattern: '^[0-9a-f]{64}$' } as const;

export const HEALTH_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['status', 'version', 'checks'],
  properties: { status: { enum: ['pass', 'warn', 'fail'] }, version: STRING, checks: { type: 'object' } },
};

export const TOPOLOGY_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['source', 'metrics'],
  properties: {
    source: { type: 'object', required: ['status'], properties: { status: { enum: ['available', 'unavailable'] } } },
    metrics: {
      type: 'object',
      additionalProperties: false,
      required: [...TOPOLOGY_METRICS],
      properties: Object.fromEntries(TOPOLOGY_METRICS.map((name) => [name, { ...METRIC_SCHEMA, description: TOPOLOGY_METRIC_DESCRIPTIONS[name] }])),
    },
  },
};

const INTEGRITY_SCHEMA = {
  type: 'object',
  required: ['status', 'check', 'user_version', 'expected_user_version', 'expected_schema_sha256', 'observed_schema_sha256', 'tables', 'indexes', 'isolation_domain_check', 'reasons'],
  properties: {
    status: { enum: ['pass', 'fail'] },
    check: { const: 'control_database_graph_schema' },
    expected_schema_sha256: SHA256,
    observed_schema_sha256: SHA256,
    reasons: { type: 'array', items: STRING, maxItems: 21 },
  },
} as const;

export const STATUS_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'service', 'version', 'activation_stage', 'monitoring_profile', 'canary_tenant_id', 'declared_foundations', 'control_db_discovery',
    'graph_store_loopback_ports', 'graph_memory_runtime_profile', 'graph_search_lane_posture', 'schema_integrity_receipt',
    'reconciliation_worker_snapshot', 'repair_receipts',
  ],
  properties: {
    service: { const: 'semantic' },
    version: STRING,
    activation_stage: { enum: ['S0', 'S1_read_only', 'stage_2'] },
    monitoring_profile: { type: 'object', required: ['name'], properties: { name: STRING } },
    canary_tenant_id: { oneOf: [STRING, UNAVAILABLE_SCHEMA] },
    declared_foundations: {
      type: 'array',
      items: { type: 'object', required: ['name', 'kind', 'owner', 'required', 'configured'], properties: { configured: { type: 'boolean' } } },
    },
    control_db_discovery: { type: 'object', required: ['engine', 'file', 'user_version', 'expected_user_version', 'tables', 'evidence_chains', 'inbox'] },
    graph_store_loopback_ports: {
      type: 'array',
      items: { type: 'object', required: ['name', 'host', 'port', 'loopback'], properties: { port: { type: 'integer', minimum: 1, maximum: 65535 } } },
    },
    graph_memory_runtime_profile: { type: 'object', required: ['profile', 'base_url', 'loopback_only'], properties: { base_url: STRING } },
    graph_search_lane_posture: { type: 'object', required: ['stage', 'lanes'] },
    schema_integrity_receipt: INTEGRITY_SCHEMA,
    reconciliation_worker_snapshot: {
      oneOf: [
        {
          type: 'object',
          required: ['status', 'seq', 'recorded_at', 'sha256', 'run_id', 'batch_limit', 'taken', 'merged', 'quarantined', 'inbox_cursor', 'backlog_remaining'],
          properties: { status: { const: 'available' }, seq: INTEGER, sha256: SHA256, taken: INTEGER, batch_limit: { type: 'integer', minimum: 1, maximum: 1000 } },
        },
        UNAVAILABLE_SCHEMA,
      ],
    },
    repair_receipts: {
      type: 'array',
      maxItems: 10,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['seq', 'recorded_at', 'sha256', 'run_id', 'kind', 'counts'],
        properties: { seq: INTEGER, recorded_at: TIME, sha256: SHA256, run_id: STRING, kind: { enum: ['admission', 'visibility_repair'] }, counts: { type: 'object' } },
      },
    },
  },
};

export const CONTEXT_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['provenance', 'freshness', 'degradation', 'authority_boundary'],
  properties: {
    provenance: { type: 'object', required: ['service', 'version', 'source', 'schema_sha256'] },
    freshness: { type: 'object', required: ['state', 'undecided_records'], properties: { state: { enum: ['current', 'lagging', 'unavailable'] } } },
    degradation: { type: 'object', required: ['state', 'derived_from', 'reasons'], properties: { state: { enum: ['none', 'degraded'] } } },
    authority_boundary: {
      type: 'object',
      additionalProperties: false,
      required: ['policy_owner', 'flags'],
      properties: {
        policy_owner: { const: 'governance' },
        flags: {
          type: 'object',
          additionalProperties: false,
          required: Object.keys(AUTHORITY_BOUNDARY_FLAGS),
          properties: Object.fromEntries(Object.keys(AUTHORITY_BOUNDARY_FLAGS).map((flag) => [flag, { const: false }])),
        },
      },
    },
  },
};

const SEALED = {
  receipt_sha256: { ...SHA256, description: 'SHA-256 of the canonical receipt without issued_at, expires_at and this field: equal for equal requests' },
  issued_at: TIME,
  expires_at: { ...TIME, description: 'At most 3600 s after issued_at' },
} as const;

const SYNTHETIC = {
  synthetic: { const: true },
  executed: { const: false },
  composed_result_executed: { const: false },
  promotes_runtime_evidence: { const: false },
} as const;

export const PROJECTION_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['run_id', 'stage', 'request', 'derived', 'receipts', ...Object.keys(SYNTHETIC), ...Object.keys(SEALED)],
  properties: {
    run_id: { type: 'string', pattern: '^pvr_[0-9a-f]{32}$' },
    derived: { type: 'object', required: ['fixture_tenant', 'namespace'] },
    receipts: {
      type: 'object',
      additionalProperties: false,
      required: [...PROJECTION_RECEIPTS],
      properties: Object.fromEntries(PROJECTION_RECEIPTS.map((name) => [name, {
        type: 'object',
        required: ['receipt_id', 'synthetic', 'executed', 'outcome'],
        properties: { synthetic: { const: true }, executed: { const: false } },
      }])),
    },
    ...SYNTHETIC,
    ...SEALED,
  },
};

/** The response schema of one fixture endpoint. */
export function fixtureResponseSchema(name: string): JsonSchema {
  return {
    type: 'object',
    required: ['fixture', 'stage', 'contract', ...Object.keys(SYNTHETIC), ...Object.keys(SEALED)],
    properties: {
      fixture: { const: name },
      stage: { const: 'S0' },
      contract: { type: 'object', required: ['name', 'version', 'sha256'] },
      ...SYNTHETIC,
      ...SEALED,
    },
  };
}
