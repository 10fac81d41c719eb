// What the readbacks know about the control database, read once per change. The state is cached
// and re-read only when the database changed: SQLite's data_version moves when another
// connection (the worker, semantic-ingest) commits, total_changes() when this one writes. Each
// request therefore costs two tiny statements, not a schema check.

import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { ReadbackPayload, ReceiptPayload } from './control-schema.ts';
import { READBACK_TABLE, RECEIPTS_TABLE } from './control-schema.ts';
import { checkSchemaIntegrity } from './schema-integrity.ts';
import type { SchemaIntegrityReceipt } from './schema-integrity.ts';

/** How many repair receipts the status readback shows. */
export const RECENT_RECEIPTS = 10;

export interface StoredRow<P> {
  seq: number;
  recorded_at: string;
  sha256: string;
  payload: P;
}

export interface ControlState {
  /** Changes whenever the database did; derived bodies are cached against it. */
  key: string;
  integrity: SchemaIntegrityReceipt;
  journalMode: string;
  tables: string[];
  snapshot: StoredRow<ReadbackPayload> | undefined;
  receipts: StoredRow<ReceiptPayload>[];
  inbox: { records: number; undecided: number; merged: number; quarantined: number };
  chains: { table: string; rows: number; head_sha256: string | null }[];
}

export interface ControlStateReader {
  /** The current state, re-read only when the database changed. */
  current(): ControlState;
}

/** A cached reader over `sqlite`. */
export function createControlStateReader(sqlite: DatabaseSync): ControlStateReader {
  const version = sqlite.prepare('SELECT total_changes() AS changes');
  const dataVersion = sqlite.prepare('PRAGMA data_version');
  let cached: ControlState | undefined;
  return {
    current() {
      const key = `${dataVersion.get()?.['data_version']}:${version.get()?.['changes']}`;
      if (cached?.key !== key) cached = readState(sqlite, key);
      return cached;
    },
  };
}

function readState(sqlite: DatabaseSync, key: string): ControlState {
  const integrity = checkSchemaIntegrity(sqlite);
  const tables = sqlite.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all().map((r) => String(r['name']));
  const has = (name: string) => tables.includes(name);
  const count = (sql: string) => Number(sqlite.prepare(sql).get()?.['n'] ?? 0);
  const inbox = has('ingest_inbox') && has('ingest_outcomes') && has('ingest_outcome_counts') ? inboxCounts(count) : { records: 0, undecided: 0, merged: 0, quarantined: 0 };
  const latest = (table: string, limit: number): StoredRow<never>[] =>
    has(table) ? rows(sqlite.prepare(`SELECT seq, recorded_at, sha256, payload FROM ${table} ORDER BY seq DESC LIMIT ?`), limit) : [];
  const chains = [READBACK_TABLE.name, RECEIPTS_TABLE.name].map((table) => ({
    table,
    // An evidence chain is gap-free from seq 1: its last seq is its row count, read from the key.
    rows: has(table) ? count(`SELECT coalesce(max(seq), 0) AS n FROM ${table}`) : 0,
    head_sha256: latest(table, 1)[0]?.sha256 ?? null,
  }));
  return {
    key,
    integrity,
    journalMode: String(sqlite.prepare('PRAGMA journal_mode').get()?.['journal_mode']),
    tables,
    snapshot: latest(READBACK_TABLE.name, 1)[0],
    receipts: latest(RECEIPTS_TABLE.name, RECENT_RECEIPTS),
    inbox,
    chains,
  };
}

/**
 * The inbox counts, none of them counted (issue 24): the inbox is append-only with seqs from 1
 * without gaps, so its last seq is its size and the worker decides it in seq order, so what waits
 * is the last seq less the highest decided one; the outcomes per state are the counters the
 * worker keeps in the transaction that writes them. Each is one row read by its key.
 */
function inboxCounts(count: (sql: string) => number): ControlState['inbox'] {
  const records = count('SELECT coalesce(max(seq), 0) AS n FROM ingest_inbox');
  const decided = count('SELECT coalesce(max(inbox_seq), 0) AS n FROM ingest_outcomes');
  const outcomes = (state: string) => count(`SELECT coalesce((SELECT outcomes FROM ingest_outcome_counts WHERE state = '${state}'), 0) AS n`);
  return { records, undecided: Math.max(0, records - decided), merged: outcomes('MERGED'), quarantined: outcomes('QUARANTINED') };
}

function rows<P>(statement: StatementSync, limit: number): StoredRow<P>[] {
  return statement.all(limit).map((row) => ({
    seq: Number(row['seq']),
    recorded_at: String(row['recorded_at']),
    sha256: String(row['sha256']),
    payload: JSON.parse(String(row['payload'])) as P,
  }));
}
