// The governance database: $AIRLOCK_DATA_DIR/governance.sqlite, shared by the control-api and
// platform-api processes. Every state the service keeps is an append-only, hash-chained evidence
// table (a change of state is a new row; current state is folded from the rows): one row per
// start, and one table per family of guarded writes. Idempotency keys live beside them.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createChainWatch, defineEvidenceTable, openDatabase, userVersion } from '../kernel/index.ts';
import type { Migration, Store } from '../kernel/index.ts';

export const DATABASE_FILE = 'governance.sqlite';

export const GOVERNANCE_MIGRATIONS: readonly Migration[] = [
  {
    name: 'schema-info',
    up: `CREATE TABLE schema_info (name TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
         INSERT INTO schema_info (name, value) VALUES ('service', 'governance');`,
  },
];

/** One row per process start: the role and the digest of the artifact registry it published. */
export const publicationStarts = defineEvidenceTable({ name: 'publication_starts', columns: { role: 'text', registry_sha256: 'text' } });

/** Admission dry-runs: the payload's tool, the verdict and the checklist. */
export const admissionReviews = defineEvidenceTable({ name: 'admission_reviews', columns: { tool_name: 'text', verdict: 'text' } });
/** Compatibility checks: the family (or "inline"), the mode and the answer. */
export const compatibilityChecks = defineEvidenceTable({ name: 'compatibility_checks', columns: { subject: 'text', verdict: 'text' } });
/** Planning sessions as events: created, turn answered, review round, owner decision. */
export const planningEvents = defineEvidenceTable({ name: 'planning_events', columns: { session_id: 'text', kind: 'text' } });
/** Identity projections (mail_management, product_entitlement) by exact scope. */
export const identityProjections = defineEvidenceTable({ name: 'identity_projections', columns: { surface: 'text', scope_key: 'text' } });
/** Context compositions: what was composed for which role, and what was refused. */
export const contextCompositions = defineEvidenceTable({ name: 'context_compositions', columns: { role: 'text', verdict: 'text' } });
/** Git-host deliveries whose signature verified. */
export const gitHostDeliveries = defineEvidenceTable({ name: 'git_host_deliveries', columns: { delivery_id: 'text', event: 'text' } });
/** The outbox: event records in publication order. Read in seq order, and by family (the support handoffs): no read looks an event up, so its index is not kept (each keyed outbox write paid for it). */
export const outboxRecords = defineEvidenceTable({ name: 'outbox_records', columns: { family: 'text', event: 'text' }, indexed: ['family'] });
/** Product registrations (observations of a product; the manifest stays the contract). */
export const productRegistrations = defineEvidenceTable({ name: 'product_registrations', columns: { product: 'text', verdict: 'text' } });
/** Update checks and rollout-gate decisions. */
export const updateDecisions = defineEvidenceTable({ name: 'update_decisions', columns: { kind: 'text', product: 'text' } });
/** Host observations from the sidecar probes; they never override contract truth. */
export const hostObservations = defineEvidenceTable({ name: 'host_observations', columns: { probe: 'text', subject: 'text' } });
/** Public keys of the mail-admission signing key, recorded once when the key is created or first read. */
export const signingKeys = defineEvidenceTable({ name: 'signing_keys', columns: { kid: 'text' } });

export const EVIDENCE_TABLES = [
  publicationStarts, admissionReviews, compatibilityChecks, planningEvents, identityProjections, contextCompositions,
  gitHostDeliveries, outboxRecords, productRegistrations, updateDecisions, hostObservations, signingKeys,
] as const;

/**
 * The withdrawals of each scope, in order (issue 24): the revocations read finds them here
 * instead of reading every hourly refresh. A partial index: withdrawals are few. Built once when
 * a database from before it is opened; a query uses it only with the same condition in its WHERE.
 */
export const WITHDRAWALS_INDEX = 'identity_projections_withdrawn';
export const WITHDRAWN_CONDITION = `json_extract(payload, '$.effect') = 'withdrawn'`;

export function openGovernanceDatabase(dataDir: string, options: { now?: () => Date } = {}): Store {
  mkdirSync(dataDir, { recursive: true });
  const store = openDatabase(join(dataDir, DATABASE_FILE), { migrations: GOVERNANCE_MIGRATIONS, evidenceTables: EVIDENCE_TABLES, ...(options.now && { now: options.now }) });
  store.sqlite.exec(`CREATE INDEX IF NOT EXISTS ${WITHDRAWALS_INDEX} ON ${identityProjections.name} (scope_key, seq) WHERE ${WITHDRAWN_CONDITION}`);
  return store;
}

export interface DatabaseCheck {
  ok: boolean;
  reasons: string[];
  userVersion: number | undefined;
}

/** Whether the database answers, belongs to this service and is at the version this code knows. */
export function checkDatabase(store: Store): DatabaseCheck {
  try {
    const version = userVersion(store.sqlite);
    const reasons: string[] = [];
    if (version !== GOVERNANCE_MIGRATIONS.length) reasons.push(`user_version ${version}, expected ${GOVERNANCE_MIGRATIONS.length}`);
    const owner = store.sqlite.prepare(`SELECT value FROM schema_info WHERE name = 'service'`).get()?.['value'];
    if (owner !== 'governance') reasons.push(`schema_info names service "${String(owner)}", expected "governance"`);
    return { ok: reasons.length === 0, reasons, userVersion: version };
  } catch (error) {
    return { ok: false, reasons: [`database "${store.path}" did not answer: ${(error as Error).message}`], userVersion: undefined };
  }
}

const watches = new WeakMap<Store, ReturnType<typeof createChainWatch>>();

/**
 * The store's chain watch: readiness and the evidence reads check the chains on every call, so
 * each call verifies only the rows appended since the last one (issue 24). It starts at each
 * chain's last row: the first probe after a start would otherwise walk the whole history on the
 * event loop (a minute at a million rows). verify_evidence_chain walks every row offline.
 */
function chainWatchOf(store: Store): ReturnType<typeof createChainWatch> {
  let watch = watches.get(store);
  if (watch === undefined) {
    watch = createChainWatch(store.sqlite, { from: 'head' });
    watches.set(store, watch);
  }
  return watch;
}

/** Whether every evidence chain of the database verifies (rows appended since the last check). */
export function checkEvidenceChains(store: Store): { ok: boolean; reasons: string[]; tables: { table: string; rows: number; head: string }[] } {
  try {
    const results = chainWatchOf(store).verifyAll();
    const reasons = results.flatMap((r) => (r.ok ? [] : [`evidence table "${r.table}" seq ${r.seq ?? '-'}: ${r.reason}`]));
    return { ok: reasons.length === 0, reasons, tables: results.flatMap((r) => (r.ok ? [{ table: r.table, rows: r.rows, head: r.head }] : [])) };
  } catch (error) {
    return { ok: false, reasons: [`cannot verify evidence chains: ${(error as Error).message}`], tables: [] };
  }
}
