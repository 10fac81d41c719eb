// The governance database: $AIRLOCK_DATA_DIR/governance.sqlite, shared by the control-api and
// platform-api processes. Part 1 records one evidence row per start (what contract truth the
// process published); readiness checks that the file is reachable and migrated.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { defineEvidenceTable, openDatabase, userVersion, verifyAllChains } from '../kernel/index.ts';
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

export const EVIDENCE_TABLES = [publicationStarts] as const;

export function openGovernanceDatabase(dataDir: string, options: { now?: () => Date } = {}): Store {
  mkdirSync(dataDir, { recursive: true });
  return openDatabase(join(dataDir, DATABASE_FILE), { migrations: GOVERNANCE_MIGRATIONS, evidenceTables: EVIDENCE_TABLES, ...(options.now && { now: options.now }) });
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

/** Whether every evidence chain of the database verifies. */
export function checkEvidenceChains(store: Store): { ok: boolean; reasons: string[]; tables: { table: string; rows: number; head: string }[] } {
  try {
    const results = verifyAllChains(store.sqlite);
    const reasons = results.flatMap((r) => (r.ok ? [] : [`evidence table "${r.table}" seq ${r.seq ?? '-'}: ${r.reason}`]));
    return { ok: reasons.length === 0, reasons, tables: results.flatMap((r) => (r.ok ? [{ table: r.table, rows: r.rows, head: r.head }] : [])) };
  } catch (error) {
    return { ok: false, reasons: [`cannot verify evidence chains: ${(error as Error).message}`], tables: [] };
  }
}
