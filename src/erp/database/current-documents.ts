// The current state of the documents that live in evidence tables (Integration Event, Dispatch
// Job, Approval Packet, Dead Letter, Agent Notification): one row per document in `erp_current`
// pointing at its newest evidence row, with the keys lists are ordered and filtered by (modified,
// creation, status) and `due_at`, the moment a worker next has to act on it (NULL when none).
// Lists page through its indexes and worker polls read the few due rows from a partial index,
// so neither reads the history the evidence tables keep growing (DESIGN.md "Evidence over time").
//
// Triggers on the evidence tables keep it current in the same transaction as every append, so no
// writer has to remember it. A database that had evidence before this table existed is filled
// once by its migration, from the newest row of each name.

import type { DatabaseSync } from 'node:sqlite';
import type { ReadPool } from '../../kernel/index.ts';
import type { ErpDocument } from './documents.ts';

/** The evidence table of each DocType kept there, and when its worker is due (SQL over the row `r`). */
export const CURRENT_DOCTYPES: Readonly<Record<string, { table: string; dueAt: string }>> = {
  'Integration Event': {
    table: 'integration_events',
    // A support-desk intake whose governance handoff failed is retried at next_retry_at (support-cases/handoff-retry.ts).
    dueAt: "CASE WHEN r.source = 'support_desk' AND r.payload ->> '$.status' = 'failed' AND r.payload ->> '$.retry_exhausted' IS NOT 1 THEN r.payload ->> '$.next_retry_at' END",
  },
  'Dispatch Job': {
    table: 'dispatch_jobs',
    // An approval dispatch still to deliver is due at next_attempt_at (dispatch/worker.ts).
    dueAt: "CASE WHEN r.payload ->> '$.job_type' = 'approval_dispatch' AND r.payload ->> '$.status' IN ('Queued', 'Retrying') THEN r.payload ->> '$.next_attempt_at' END",
  },
  'Approval Packet': {
    table: 'approval_packets',
    // A decision received and not blocked is due for closeout at once (approvals/closeout.ts).
    dueAt: "CASE WHEN r.payload ->> '$.status' = 'decision_received' AND r.payload ->> '$.closeout_blocked' IS NULL THEN 0 END",
  },
  'Dead Letter': { table: 'dead_letters', dueAt: 'NULL' },
  'Agent Notification': { table: 'agent_notifications', dueAt: 'NULL' },
};

export const CURRENT_TABLE_SQL = `
  CREATE TABLE erp_current (
    doctype TEXT NOT NULL, name TEXT NOT NULL, seq INTEGER NOT NULL, docstatus INTEGER NOT NULL,
    creation TEXT NOT NULL, modified TEXT NOT NULL, status TEXT, due_at ANY,
    PRIMARY KEY (doctype, name)
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX erp_current_modified ON erp_current (doctype, modified, name);
  CREATE INDEX erp_current_creation ON erp_current (doctype, creation, name);
  CREATE INDEX erp_current_status ON erp_current (doctype, status, modified, name);
  CREATE INDEX erp_current_due ON erp_current (doctype, due_at) WHERE due_at IS NOT NULL;
  CREATE INDEX erp_documents_modified ON erp_documents (doctype, modified, name);
  CREATE INDEX erp_documents_creation ON erp_documents (doctype, creation, name);
`;

/** The upsert of one evidence row `r` of `doctype` into erp_current (creation stays that of the first row). */
function upsertSql(doctype: string, from: string): string {
  const { dueAt } = CURRENT_DOCTYPES[doctype]!;
  return `INSERT INTO erp_current (doctype, name, seq, docstatus, creation, modified, status, due_at)
    SELECT '${doctype}', r.name, r.seq, coalesce(r.payload ->> '$.docstatus', 0), coalesce(r.payload ->> '$.creation', r.recorded_at),
      coalesce(r.payload ->> '$.modified', r.recorded_at), r.payload ->> '$.status', ${dueAt} FROM ${from}
    WHERE true
    ON CONFLICT (doctype, name) DO UPDATE SET seq = excluded.seq, docstatus = excluded.docstatus, modified = excluded.modified,
      status = excluded.status, due_at = excluded.due_at WHERE excluded.seq > erp_current.seq`;
}

/** Fills erp_current from evidence already stored (a migration step; tables not created yet are skipped). */
export function backfillCurrent(sqlite: DatabaseSync): void {
  for (const [doctype, { table }] of Object.entries(CURRENT_DOCTYPES)) {
    if (sqlite.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(table) === undefined) continue;
    // In any order: an older row never overwrites a newer one, and every row of a name carries its creation.
    sqlite.exec(upsertSql(doctype, `${table} AS r`));
  }
}

/** Creates the triggers that keep erp_current in step with every append (idempotent). */
export function ensureCurrentTriggers(sqlite: DatabaseSync): void {
  for (const [doctype, { table }] of Object.entries(CURRENT_DOCTYPES)) {
    sqlite.exec(`CREATE TRIGGER IF NOT EXISTS ${table}_current AFTER INSERT ON ${table} BEGIN
      ${upsertSql(doctype, `(SELECT NEW.seq AS seq, NEW.name AS name, NEW.recorded_at AS recorded_at, NEW.payload AS payload${table === 'integration_events' ? ', NEW.source AS source' : ''}) AS r`)};
    END;`);
  }
}

/**
 * The newest current documents of an evidence DocType (optionally only those in `statuses`), at
 * most `limit`, with how many there are: through erp_current's indexes, on the read pool.
 */
export async function newestCurrent(
  reads: ReadPool,
  doctype: string,
  options: { limit: number; statuses?: readonly string[] },
): Promise<{ rows: ErpDocument[]; count: number; truncated: boolean }> {
  const { table } = CURRENT_DOCTYPES[doctype]!;
  const statuses = options.statuses === undefined ? '' : ' AND c.status IN (SELECT value FROM json_each(?))';
  const params = [doctype, ...(options.statuses === undefined ? [] : [JSON.stringify(options.statuses)])];
  const page = await reads.query(
    `SELECT t.payload AS doc FROM erp_current AS c JOIN ${table} AS t ON t.seq = c.seq WHERE c.doctype = ?${statuses} ORDER BY c.modified DESC, c.name DESC LIMIT ?`,
    [...params, options.limit],
  );
  // Without a status, every name of an append-only table with one row per document is counted by its head seq.
  const counted = options.statuses === undefined && (doctype === 'Dead Letter' || doctype === 'Agent Notification')
    ? await reads.query(`SELECT coalesce(max(seq), 0) AS n FROM ${table}`)
    : await reads.query(`SELECT count(*) AS n FROM erp_current AS c WHERE c.doctype = ?${statuses}`, params);
  const count = Number(counted.rows[0]!['n']);
  return { rows: page.rows.map((row) => JSON.parse(String(row['doc'])) as ErpDocument), count, truncated: count > options.limit };
}
