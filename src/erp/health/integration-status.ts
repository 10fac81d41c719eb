// health.integration_status: a lightweight runtime and integration snapshot, no auth. It reads
// only heads and counts (no chain walk): database reachability and schema version, each evidence
// chain's row count and head hash, the last intake per webhook source, the dispatch backlog (jobs by
// current status: one grouped read of the jobs' latest rows), which
// secrets are configured (never their values), the healthcheck numbers, and version truth (the
// release marker and the revision: the service has no /version route, seed 002 "Versioning").

import type { DatabaseSync } from 'node:sqlite';
import { statement, userVersion } from '../../kernel/index.ts';
import { WEBHOOK_SECRETS } from '../config.ts';
import { RECORD_TYPE_TABLES, DOCUMENT_EVENTS } from '../database/evidence-tables.ts';
import type { ErpDeps } from '../erp-route.ts';

const SOURCES = ['payment_a', 'payment_b', 'supplier_intake', 'website_contact_intake', 'support_desk', 'support_desk_outbound'] as const;

function chainHead(sqlite: DatabaseSync, table: string): { rows: number; head: string | null } {
  // Append-only and gap-free: the last seq is the row count, read in O(1) from the key.
  const row = statement(sqlite, `SELECT seq, sha256 FROM ${table} ORDER BY seq DESC LIMIT 1`).get();
  return row ? { rows: Number(row['seq']), head: String(row['sha256']) } : { rows: 0, head: null };
}

function lastIntake(sqlite: DatabaseSync, source: string): { integration_event: string; status: string; received_at: string } | null {
  const row = statement(sqlite, "SELECT name, json_extract(payload, '$.status') AS status, recorded_at FROM integration_events WHERE source = ? ORDER BY seq DESC LIMIT 1").get(source);
  return row ? { integration_event: String(row['name']), status: String(row['status']), received_at: String(row['recorded_at']) } : null;
}

/**
 * The approval dispatch jobs in the backlog, by current status, from erp_current's status index:
 * the jobs queued, retrying or dead (never the delivered and superseded history, issue 24).
 */
export const BACKLOG_SQL = `SELECT c.status AS status, count(*) AS n FROM erp_current AS c JOIN dispatch_jobs AS t ON t.seq = c.seq
  WHERE c.doctype = 'Dispatch Job' AND c.status IN ('Queued', 'Retrying', 'Dead')
    AND json_extract(t.payload, '$.job_type') = 'approval_dispatch' AND json_extract(t.payload, '$.owner_follow_through') IS NULL
  GROUP BY c.status`;

/**
 * The dispatch worker's real backlog: approval dispatch jobs by current status (queued, retrying,
 * and dead ones still awaiting owner follow-through), not evidence rows. Materialized jobs are callback
 * truth the worker never sends, so they are no backlog.
 */
function dispatchBacklog(sqlite: DatabaseSync): { queued: number; retrying: number; dead: number } {
  const counts = { queued: 0, retrying: 0, dead: 0 };
  for (const row of statement(sqlite, BACKLOG_SQL).all()) {
    const key = String(row['status']).toLowerCase();
    if (key === 'queued' || key === 'retrying' || key === 'dead') counts[key] += Number(row['n']);
  }
  return counts;
}

/** The revision a version string carries ("0.0.0+abc1234"), or null for a tagged release. */
function revisionOf(version: string): string | null {
  const plus = version.indexOf('+');
  return plus === -1 ? null : version.slice(plus + 1);
}

export function integrationStatus(deps: ErpDeps): Record<string, unknown> {
  const { store, config, version } = deps;
  const sqlite = store.sqlite;
  let database: Record<string, unknown>;
  let chains: Record<string, unknown> = {};
  let intake: Record<string, unknown> = {};
  let backlog: Record<string, unknown> = {};
  try {
    database = { status: 'ok', schema_version: userVersion(sqlite) };
    for (const [doctype, table] of Object.entries(RECORD_TYPE_TABLES)) chains[doctype] = { table: table.name, ...chainHead(sqlite, table.name) };
    chains['Document Change'] = { table: DOCUMENT_EVENTS.name, ...chainHead(sqlite, DOCUMENT_EVENTS.name) };
    intake = Object.fromEntries(SOURCES.map((source) => [source, lastIntake(sqlite, source)]));
    backlog = dispatchBacklog(sqlite);
  } catch (error) {
    // The snapshot still answers: "unreachable" is itself the status an operator needs.
    database = { status: 'error', reason: (error as Error).message };
    chains = {};
  }
  return {
    service: 'erp',
    version,
    release_marker: revisionOf(version) === null ? version : null,
    revision: revisionOf(version),
    database,
    evidence_chains: chains,
    // Off unless AIRLOCK_EVIDENCE_REPLICATION is set (docs/replication.md): lag, stream, errors.
    evidence_replication: deps.store.replication() ?? { mode: 'off' },
    last_intake: intake,
    dispatch_backlog: backlog,
    secrets: Object.fromEntries(Object.keys(WEBHOOK_SECRETS).map((name) => [name, config.secrets[name as keyof typeof WEBHOOK_SECRETS] !== undefined])),
    outbound: { SUPPORT_DESK_WEBHOOK_SECRET: config.outbound.supportDeskSecret !== undefined, support_desk: config.outbound.supportDeskUrl !== undefined, governance: config.outbound.governanceUrl !== undefined },
    auth: { api_keys: config.apiKeys.length, users: config.users.length, suppliers: deps.suppliers().length },
    healthchecks: { database_seconds: 30, gateway_seconds: config.gatewayHealthcheckInterval, low_cpu: { database_seconds: 60, gateway_seconds: 180 } },
    checked_at: new Date(deps.now()).toISOString(),
  };
}
