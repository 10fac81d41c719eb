// Runtime status readback (GET /api/v1/semantic/runtime/status): every field of the seed's table.
// The configuration-derived part is fixed at start; the control-database part comes from the
// cached control state, so the serialized body is rebuilt only when the database changed and the
// kernel's strong ETag stays stable in between.

import { isLoopbackHost, JSON_TYPE, strongEtag } from '../kernel/index.ts';
import type { Reply } from '../kernel/index.ts';
import type { ApiConfig } from './config.ts';
import { DATABASE_FILE } from './config.ts';
import type { ControlState, ControlStateReader } from './control-state.ts';
import { CONTROL_SCHEMA_VERSION } from './control-schema.ts';
import { DEPENDENCIES } from './dependencies.ts';
import { lanePosture } from './lane-posture.ts';
import { unavailable } from './runtime-owner-artifact.ts';

export interface StatusOptions {
  config: ApiConfig;
  version: string;
  reader: ControlStateReader;
  /** The API's own base URL, known once it listens. */
  baseUrl: () => string;
}

/** Builds the status body from the configuration and one control state. */
export function statusBody(options: StatusOptions, state: ControlState): Record<string, unknown> {
  const { config } = options;
  const base = new URL(options.baseUrl());
  return {
    service: 'semantic',
    version: options.version,
    activation_stage: config.stage,
    monitoring_profile: {
      name: config.monitoringProfile,
      health: ['/healthz', '/readyz'],
      readback: ['/api/v1/semantic/runtime/status', '/api/v1/semantic/context/readback'],
      scrape_endpoint: null,
    },
    canary_tenant_id: config.canaryTenantId ?? unavailable('SEMANTIC_CANARY_TENANT_ID is not set'),
    declared_foundations: DEPENDENCIES.map((d) => ({
      name: d.name,
      kind: d.kind,
      owner: d.owner,
      required: d.required,
      configured: d.name === 'control_database' || configured(config, d.name),
    })),
    control_db_discovery: {
      engine: 'sqlite',
      file: DATABASE_FILE,
      directory_variable: 'AIRLOCK_DATA_DIR',
      journal_mode: state.journalMode,
      user_version: state.integrity.user_version,
      expected_user_version: CONTROL_SCHEMA_VERSION,
      tables: state.tables,
      evidence_chains: state.chains,
      inbox: state.inbox,
    },
    graph_store_loopback_ports: [{ name: 'semantic-api', host: base.hostname, port: Number(base.port), loopback: isLoopbackHost(base.hostname) }],
    graph_memory_runtime_profile: {
      profile: 'embedded-sqlite-graph',
      store: 'control_database',
      base_url: base.origin,
      loopback_only: isLoopbackHost(base.hostname),
      isolation: 'tenant_hash+isolation_domain_ref',
    },
    graph_search_lane_posture: { stage: config.stage, lanes: lanePosture(config.stage, { vectorStoreConfigured: config.upstreams.vector_store !== undefined }) },
    schema_integrity_receipt: state.integrity,
    reconciliation_worker_snapshot: state.snapshot
      ? { status: 'available', seq: state.snapshot.seq, recorded_at: state.snapshot.recorded_at, sha256: state.snapshot.sha256, ...state.snapshot.payload }
      : unavailable('projection_reconciliation_readback holds no run yet'),
    repair_receipts: state.receipts.map((r) => ({
      seq: r.seq,
      recorded_at: r.recorded_at,
      sha256: r.sha256,
      run_id: r.payload.run_id,
      kind: r.payload.kind,
      counts: r.payload.counts,
    })),
  };
}

/** The status reply, serialized once per database change. */
export function createStatusReadback(options: StatusOptions): { reply(): Reply } {
  let cachedKey: string | undefined;
  let cachedBytes: Buffer = Buffer.alloc(0);
  let cachedEtag = '';
  return {
    reply() {
      const state = options.reader.current();
      if (state.key !== cachedKey) {
        cachedBytes = Buffer.from(JSON.stringify(statusBody(options, state)), 'utf8');
        cachedEtag = strongEtag(cachedBytes);
        cachedKey = state.key;
      }
      return { status: 200, raw: cachedBytes, contentType: JSON_TYPE, headers: { etag: cachedEtag } };
    },
  };
}

function configured(config: ApiConfig, name: string): boolean {
  switch (name) {
    case 'model_runtime':
    case 'vector_store':
    case 'governance':
      return config.upstreams[name] !== undefined;
    case 'runtime_owner_artifact':
      return config.runtimeOwnerArtifact !== undefined;
    default:
      return false;
  }
}

