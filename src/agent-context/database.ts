// The agent-context database: $AIRLOCK_DATA_DIR/agent-context.sqlite. Everything the service
// knows is an append-only, hash-chained evidence table (kernel): runtime patches, execution runs,
// control-agent commands, learning proposals and reviews, every authority decision (admitted or
// refused), the outbox of events those writes publish, and one row per start.

import { mkdirSync } from 'node:fs';
import { defineEvidenceTable, openDatabase } from '../kernel/index.ts';
import type { Migration, Store } from '../kernel/index.ts';
import { ensureRunCounts } from './run-counts.ts';

export const MIGRATIONS: readonly Migration[] = [
  {
    name: 'schema-info',
    up: `CREATE TABLE schema_info (name TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
         INSERT INTO schema_info (name, value) VALUES ('service', 'agent-context');`,
  },
];

/** One row per process start: the version that ran. */
export const serviceStarts = defineEvidenceTable({ name: 'service_starts', columns: { version: 'text' } });
/** Agent-runtime patches: `apply` sets an agent's desired runtime and version, `rollback` restores the previous one. */
export const runtimePatches = defineEvidenceTable({ name: 'runtime_patches', columns: { agent_id: 'text', action: 'text' } });
/** Execution runs: `dispatched`, then `completed` with the outcome and the version the agent ran. */
export const executionRuns = defineEvidenceTable({ name: 'execution_runs', columns: { run_id: 'text', agent_id: 'text', kind: 'text' } });
/** Control-agent commands: pause and resume. */
export const controlCommands = defineEvidenceTable({ name: 'control_commands', columns: { command: 'text' } });
/** Learning proposals: `proposed`, then `reviewed` with the decision. */
export const learningProposals = defineEvidenceTable({ name: 'learning_proposals', columns: { proposal_id: 'text', kind: 'text' } });
/** Every authority decision on a write: admitted or refused, and why. */
export const authorityDecisions = defineEvidenceTable({ name: 'authority_decisions', columns: { route: 'text', verdict: 'text' } });
/** Events the writes publish, in order, committed with the write. */
export const outboxEvents = defineEvidenceTable({ name: 'outbox_events', columns: { event: 'text', subject: 'text' } });

export const EVIDENCE_TABLES = [serviceStarts, runtimePatches, executionRuns, controlCommands, learningProposals, authorityDecisions, outboxEvents] as const;

export function openAgentContextDatabase(path: string, dataDir: string, options: { now?: () => Date } = {}): Store {
  mkdirSync(dataDir, { recursive: true });
  const store = openDatabase(path, { migrations: MIGRATIONS, evidenceTables: EVIDENCE_TABLES, ...(options.now && { now: options.now }) });
  ensureRunCounts(store.sqlite, executionRuns.name);
  return store;
}

/** Rows per evidence table, for /metrics and the inventory. */
export function countRows(store: Store): { table: string; rows: number }[] {
  return EVIDENCE_TABLES.map((table) => ({
    table: table.name,
    // Evidence tables are gap-free from seq 1: the last seq is the row count, read from the key.
    rows: Number(store.sqlite.prepare(`SELECT coalesce(max(seq), 0) AS n FROM "${table.name}"`).get()?.['n'] ?? 0),
  }));
}

/** Size of the database file in bytes (page count times page size). */
export function databaseBytes(store: Store): number {
  const pages = Number(store.sqlite.prepare('PRAGMA page_count').get()?.['page_count'] ?? 0);
  const size = Number(store.sqlite.prepare('PRAGMA page_size').get()?.['page_size'] ?? 0);
  return pages * size;
}
