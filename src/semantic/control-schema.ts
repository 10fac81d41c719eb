// The control database ($AIRLOCK_DATA_DIR/semantic.sqlite): the compartmented graph, the ingest
// inbox and its outcomes, the projection-verification ledger, the event outbox, the two evidence
// tables the reconciliation worker appends to, and three that mirror the inbox, the outbox and the
// ledger. The isolation_domain_ref columns carry a CHECK constraint built from the
// isolation-domains contract.

import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { openDatabase } from '../kernel/index.ts';
import type { Migration, Store } from '../kernel/index.ts';
import { ISOLATION_DOMAIN_REFS } from './isolation-domains.ts';
import { deriveControlStateFromEvidence } from './derive-control-state.ts';
import { recordTenantHash } from './tenant-hash.ts';
import { CONTROL_EVIDENCE_TABLES } from './control-evidence.ts';

export { CONTROL_EVIDENCE_TABLES, INBOX_RECORDS_TABLE, OUTBOX_LOG_TABLE, PROJECTION_LEDGER_TABLE, READBACK_TABLE, RECEIPTS_TABLE } from './control-evidence.ts';
export type { InboxRecordPayload, OutboxEventPayload, ProjectionLedgerPayload, ReadbackPayload, ReceiptKind, ReceiptPayload } from './control-evidence.ts';

/** Tables whose schema the integrity check covers (with their indexes and constraints). */
export const GRAPH_SCHEMA_TABLES = ['graph_nodes', 'graph_edges', 'ingest_outcomes'] as const;

const DOMAIN_LIST = ISOLATION_DOMAIN_REFS.map((ref) => `'${ref}'`).join(', ');
const DOMAIN_CHECK = `CHECK (isolation_domain_ref IN (${DOMAIN_LIST}))`;

export const CONTROL_MIGRATIONS: readonly Migration[] = [
  {
    name: 'compartmented graph, ingest inbox and outcomes, projection-verification ledger, event outbox',
    up: `
CREATE TABLE graph_nodes (
  tenant_hash TEXT NOT NULL CHECK (length(tenant_hash) = 64),
  isolation_domain_ref TEXT NOT NULL ${DOMAIN_CHECK},
  node_id TEXT NOT NULL,
  label TEXT NOT NULL,
  properties TEXT NOT NULL,
  source_record_id TEXT NOT NULL,
  inbox_seq INTEGER NOT NULL,
  PRIMARY KEY (tenant_hash, isolation_domain_ref, node_id)
) STRICT;
CREATE TABLE graph_edges (
  tenant_hash TEXT NOT NULL CHECK (length(tenant_hash) = 64),
  isolation_domain_ref TEXT NOT NULL ${DOMAIN_CHECK},
  edge_id TEXT NOT NULL,
  from_node TEXT NOT NULL,
  to_node TEXT NOT NULL,
  relation TEXT NOT NULL,
  properties TEXT NOT NULL,
  source_record_id TEXT NOT NULL,
  inbox_seq INTEGER NOT NULL,
  visible INTEGER NOT NULL CHECK (visible IN (0, 1)),
  PRIMARY KEY (tenant_hash, isolation_domain_ref, edge_id)
) STRICT;
CREATE INDEX graph_edges_from_node ON graph_edges (tenant_hash, isolation_domain_ref, from_node);
CREATE INDEX graph_edges_to_node ON graph_edges (tenant_hash, isolation_domain_ref, to_node);
CREATE INDEX graph_edges_hidden ON graph_edges (tenant_hash, isolation_domain_ref) WHERE visible = 0;
CREATE TABLE ingest_inbox (
  seq INTEGER PRIMARY KEY,
  received_at TEXT NOT NULL,
  source TEXT NOT NULL,
  record TEXT NOT NULL
) STRICT;
CREATE TABLE ingest_outcomes (
  inbox_seq INTEGER PRIMARY KEY REFERENCES ingest_inbox (seq),
  record_id TEXT,
  state TEXT NOT NULL CHECK (state IN ('MERGED', 'QUARANTINED')),
  reason TEXT,
  isolation_domain_ref TEXT CHECK (isolation_domain_ref IS NULL OR isolation_domain_ref IN (${DOMAIN_LIST})),
  run_id TEXT NOT NULL,
  CHECK ((state = 'MERGED') = (reason IS NULL)),
  CHECK (state = 'QUARANTINED' OR isolation_domain_ref IS NOT NULL)
) STRICT;
CREATE TABLE projection_verification_runs (
  correlation_id TEXT PRIMARY KEY,
  request_sha256 TEXT NOT NULL,
  run_id TEXT NOT NULL,
  recorded_at TEXT NOT NULL
) STRICT;
CREATE TABLE event_outbox (
  seq INTEGER PRIMARY KEY,
  event_id TEXT NOT NULL UNIQUE,
  channel TEXT NOT NULL,
  message TEXT NOT NULL,
  payload TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;
`,
  },
  {
    // Re-ingesting a file is a no-op per record_id and content; other content under a known
    // record_id is a conflict. Decided records keep no raw tenant id in the inbox.
    name: 'ingest inbox: record_id and content digest per record; raw tenant ids of decided records removed',
    up: `
ALTER TABLE ingest_inbox ADD COLUMN record_id TEXT;
ALTER TABLE ingest_inbox ADD COLUMN content_sha256 TEXT;
CREATE INDEX ingest_inbox_record_id ON ingest_inbox (record_id, content_sha256);
UPDATE ingest_inbox SET record_id = json_extract(record, '$.record_id')
  WHERE json_valid(record) AND json_type(record, '$.record_id') = 'text';
UPDATE ingest_inbox SET record = json_remove(record, '$.tenant_id')
  WHERE json_valid(record) AND seq IN (SELECT inbox_seq FROM ingest_outcomes);
`,
  },
  {
    // A record_id names a record within its tenant: another tenant's record with the same id is
    // another record, never a duplicate nor a conflict (it cannot quarantine this tenant's).
    name: 'ingest inbox: record identity scoped by tenant hash',
    up: (sqlite) => {
      sqlite.exec(`
ALTER TABLE ingest_inbox ADD COLUMN tenant_hash TEXT;
DROP INDEX ingest_inbox_record_id;
CREATE INDEX ingest_inbox_record_id ON ingest_inbox (tenant_hash, record_id, content_sha256);
UPDATE ingest_inbox SET tenant_hash = json_extract(record, '$.tenant_hash')
  WHERE json_valid(record) AND json_type(record, '$.tenant_hash') = 'text';
`);
      // Undecided records still hold their raw tenant id; the hash is computed here, as at ingest.
      const update = sqlite.prepare('UPDATE ingest_inbox SET tenant_hash = ? WHERE seq = ?');
      const undecided = sqlite.prepare("SELECT seq, json_extract(record, '$.tenant_id') AS tenant_id FROM ingest_inbox WHERE json_valid(record) AND json_type(record, '$.tenant_id') = 'text'").all();
      for (const row of undecided) update.run(recordTenantHash(row['tenant_id']), row['seq'] as number);
    },
  },
  {
    // The status readback's merged and quarantined counts, kept by the worker in the transaction
    // that writes the outcomes, so a read never counts the outcomes (issue 24). Filled once here.
    name: 'ingest outcome counts per state',
    up: `
CREATE TABLE ingest_outcome_counts (state TEXT PRIMARY KEY CHECK (state IN ('MERGED', 'QUARANTINED')), outcomes INTEGER NOT NULL) STRICT;
INSERT INTO ingest_outcome_counts (state, outcomes) SELECT state, count(*) FROM ingest_outcomes GROUP BY state;
`,
  },
];

/** The user_version a fully migrated control database has. */
export const CONTROL_SCHEMA_VERSION = CONTROL_MIGRATIONS.length;

/**
 * Opens (creating and migrating if needed) the control database, with every evidence table; on a
 * database restored from replicated evidence, derives the plain tables from the rows first.
 *
 * @example
 * const store = openControlDatabase('var/semantic.sqlite');
 */
export function openControlDatabase(path: string, options: { now?: () => Date } = {}): Store {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const store = openDatabase(path, {
    migrations: CONTROL_MIGRATIONS,
    evidenceTables: CONTROL_EVIDENCE_TABLES,
    ...(options.now && { now: options.now }),
  });
  try {
    deriveControlStateFromEvidence(store.sqlite);
  } catch (error) {
    void store.close();
    throw error;
  }
  return store;
}
