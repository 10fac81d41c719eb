// Opens the ERP database: migrations (the current documents, naming series and sessions) and the
// evidence tables. Like the seed's app hooks, it waits up to a bound (30 s by default) for a
// database that is locked or whose directory is not there yet, then gives up with the reason.

import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { AirlockError, openDatabase } from '../../kernel/index.ts';
import type { Migration, Store } from '../../kernel/index.ts';
import { backfillCurrent, CURRENT_TABLE_SQL, ensureCurrentTriggers } from './current-documents.ts';
import { deriveDocumentsFromEvidence } from './derive-documents.ts';
import { storeDocumentsOnce } from './store-documents-once.ts';
import { ERP_EVIDENCE_TABLES } from './evidence-tables.ts';

/** Seed 002 "Limits": app hooks wait up to 30 seconds before site migration. */
export const MIGRATION_WAIT_SECONDS = 30;

const MIGRATIONS: readonly Migration[] = [
  {
    name: 'documents, naming series, sessions',
    up: `
      CREATE TABLE erp_documents (
        doctype TEXT NOT NULL, name TEXT NOT NULL, docstatus INTEGER NOT NULL,
        identity TEXT, creation TEXT NOT NULL, modified TEXT NOT NULL, data TEXT NOT NULL,
        PRIMARY KEY (doctype, name)
      ) STRICT;
      CREATE UNIQUE INDEX erp_documents_identity ON erp_documents (doctype, identity) WHERE identity IS NOT NULL;
      CREATE TABLE naming_series (prefix TEXT PRIMARY KEY, current INTEGER NOT NULL) STRICT;
      CREATE TABLE sessions (sid_sha256 TEXT PRIMARY KEY, usr TEXT NOT NULL, created_at TEXT NOT NULL, expires_at INTEGER NOT NULL) STRICT;
    `,
  },
  {
    // Identity projections find the Employees of a login (technical_subject) by index.
    name: 'employee login index',
    up: `CREATE INDEX erp_documents_employee_user ON erp_documents (json_extract(data, '$.user_id')) WHERE doctype = 'Employee';`,
  },
  {
    // Logins compare without letter case (as Frappe's database does): the lookups by lower() are indexed too.
    name: 'case-insensitive login indexes',
    up: `
      CREATE INDEX erp_documents_employee_user_nocase ON erp_documents (lower(json_extract(data, '$.user_id'))) WHERE doctype = 'Employee';
      CREATE INDEX erp_documents_user_nocase ON erp_documents (lower(name)) WHERE doctype = 'User';
    `,
  },
  {
    // Lists and worker polls by index, never by a scan of the evidence (issue 24): see current-documents.ts.
    name: 'current documents of evidence DocTypes, list indexes',
    up: (sqlite) => {
      sqlite.exec(CURRENT_TABLE_SQL);
      backfillCurrent(sqlite);
    },
  },
  {
    // A database rebuilt by evidence_restore has the evidence and nothing else (docs/replication.md).
    name: 'documents and naming series derived from restored evidence',
    up: (sqlite) => {
      deriveDocumentsFromEvidence(sqlite);
    },
  },
  {
    // Each document once, in its evidence (issue 24, bytes per event): see documents.ts.
    name: 'documents read from their newest evidence row',
    up: storeDocumentsOnce,
  },
];

export interface OpenErpOptions {
  now: () => Date;
  waitSeconds?: number;
  /** Pause between attempts (tests shorten it). */
  retryMs?: number;
}

/** Opens (creating) the database, retrying while it is locked or its directory is missing, up to the wait. */
export async function openErpDatabase(path: string, options: OpenErpOptions): Promise<Store> {
  const deadline = Date.now() + (options.waitSeconds ?? MIGRATION_WAIT_SECONDS) * 1000;
  const retryMs = options.retryMs ?? 500;
  for (;;) {
    try {
      if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
      // A short busy timeout per attempt: the loop, not SQLite, owns the overall wait.
      const store = openDatabase(path, { migrations: MIGRATIONS, evidenceTables: ERP_EVIDENCE_TABLES, now: options.now, busyTimeoutMs: Math.min(retryMs * 4, 5000) });
      try {
        // After the evidence tables exist (a fresh database creates them after its migrations).
        ensureCurrentTriggers(store.sqlite);
      } catch (error) {
        await store.close();
        throw error;
      }
      return store;
    } catch (error) {
      if (!isTransient(error) || Date.now() >= deadline) {
        const message = (error as Error).message;
        throw new AirlockError('store_open', `Cannot prepare the ERP database "${path}" (waited up to ${options.waitSeconds ?? MIGRATION_WAIT_SECONDS} s): ${message}`, { cause: error });
      }
      await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
  }
}

function isTransient(error: unknown): boolean {
  const text = `${(error as Error)?.message ?? ''} ${String((error as { cause?: Error })?.cause?.message ?? '')}`;
  return /locked|busy|SQLITE_BUSY|ENOENT|unable to open/i.test(text);
}
