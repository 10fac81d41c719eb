// Evidence tables declared as data. The store turns a declaration into an append-only table:
// fixed chain columns, the declared lookup columns (each indexed, unless the declaration names
// the few that its reads look up: every index is paid for on every append), and triggers that abort
// UPDATE, DELETE and a REPLACE of an existing seq. Every table is recorded in the registry
// `_evidence_tables`, itself append-only, so a verifier finds all chains without the code.

import type { DatabaseSync } from 'node:sqlite';
import { AirlockError } from '../errors.ts';
import { canonicalJson } from './canonical-json.ts';
import type { JsonValue } from './canonical-json.ts';

export type ColumnType = 'text' | 'integer';
export type ColumnTypes = Readonly<Record<string, ColumnType>>;

/** The values of declared columns: text as string, integer as a safe integer. */
export type ColumnValues<C extends ColumnTypes> = { [K in keyof C]: C[K] extends 'integer' ? number : string };

/** An evidence table's declaration. `P` is the payload's type, for readers; it is not checked at run time. */
export interface EvidenceTable<C extends ColumnTypes = ColumnTypes, P = JsonValue> {
  readonly name: string;
  readonly columns: C;
  /** The declared columns that have an index; every one when absent. */
  readonly indexed?: readonly string[];
  /** Type-only marker for `P`; always undefined. */
  readonly payloadType?: P;
}

/** Any evidence table, whatever its columns and payload type. */
export type AnyEvidenceTable = EvidenceTable<ColumnTypes, unknown>;

/** What a caller appends: the declared columns and a JSON payload. */
export type EvidenceInput<C extends ColumnTypes, P> = ColumnValues<C> & { payload: P };

/** A stored row: the chain columns, the declared columns and the parsed payload. */
export type EvidenceRow<C extends ColumnTypes = ColumnTypes, P = JsonValue> = ColumnValues<C> & {
  seq: number;
  recorded_at: string;
  payload: P;
  sha256: string;
  prev_sha256: string;
};

/** A table as the registry records it. */
export interface RegisteredTable {
  name: string;
  columns: Record<string, ColumnType>;
}

export const REGISTRY_TABLE = '_evidence_tables';
const CHAIN_COLUMNS = ['seq', 'recorded_at', 'payload', 'sha256', 'prev_sha256'];
const IDENTIFIER = /^[a-z][a-z0-9_]{0,62}$/;

/**
 * Declares an evidence table. Names are lower-case SQL identifiers; the chain columns
 * (seq, recorded_at, payload, sha256, prev_sha256) are added by the store and cannot be declared.
 *
 * @example
 * const receipts = defineEvidenceTable({ name: 'receipts', columns: { subject: 'text', kind: 'text' } });
 */
export function defineEvidenceTable<const C extends ColumnTypes, P = JsonValue>(definition: {
  name: string;
  columns: C;
  /** Only these declared columns get an index (default: all of them). */
  indexed?: readonly (keyof C & string)[];
}): EvidenceTable<C, P> {
  const { name, columns, indexed } = definition;
  if (!IDENTIFIER.test(name)) throw new TypeError(`Invalid evidence table name "${name}": use ${IDENTIFIER}`);
  for (const [column, type] of Object.entries(columns)) {
    if (!IDENTIFIER.test(column)) throw new TypeError(`Invalid column "${column}" in evidence table "${name}": use ${IDENTIFIER}`);
    if (CHAIN_COLUMNS.includes(column)) {
      throw new TypeError(`Invalid column "${column}" in evidence table "${name}": the store adds it`);
    }
    if (type !== 'text' && type !== 'integer') {
      throw new TypeError(`Invalid column "${column}" in evidence table "${name}": type "${String(type)}" is not text or integer`);
    }
  }
  for (const column of indexed ?? []) {
    if (!(column in columns)) throw new TypeError(`Invalid index on "${column}" in evidence table "${name}": it is not a declared column`);
  }
  return Object.freeze({ name, columns: Object.freeze({ ...columns }), ...(indexed && { indexed: Object.freeze([...indexed]) }) });
}

/** The declared columns of `table` that have an index. */
function indexedColumns(table: AnyEvidenceTable): string[] {
  return table.indexed ? [...table.indexed] : Object.keys(table.columns);
}

/**
 * Creates the registry and every table that does not exist yet, in one transaction; checks that
 * tables that do exist were created with the same columns (`store_version` otherwise), and drops
 * their indexes on columns the declaration leaves unindexed.
 */
export function ensureEvidenceTables(
  sqlite: DatabaseSync,
  tables: readonly AnyEvidenceTable[],
  options: { label: string; now: () => Date },
): void {
  if (tables.length === 0) return;
  sqlite.exec('BEGIN IMMEDIATE');
  try {
    sqlite.exec(registrySql());
    const registered = new Map(listEvidenceTables(sqlite).map((table) => [table.name, table.columns]));
    for (const table of tables) {
      const known = registered.get(table.name);
      if (known === undefined) {
        sqlite.exec(tableSql(table));
        sqlite
          .prepare(`INSERT INTO ${REGISTRY_TABLE} (name, columns, created_at) VALUES (?, ?, ?)`)
          .run(table.name, canonicalJson(table.columns), options.now().toISOString());
        registered.set(table.name, table.columns);
      } else if (canonicalJson(known) !== canonicalJson(table.columns)) {
        throw new AirlockError(
          'store_version',
          `Cannot open evidence table "${table.name}" in "${options.label}": declared columns ${canonicalJson(table.columns)} differ from the database's ${canonicalJson(known)}`,
        );
      }
      // A table made when its declaration indexed more columns (or rebuilt by a restore, which
      // indexes every column) loses the indexes that no read uses any more.
      for (const column of Object.keys(table.columns)) {
        if (!indexedColumns(table).includes(column)) sqlite.exec(`DROP INDEX IF EXISTS ${table.name}_${column}`);
      }
    }
    sqlite.exec('COMMIT');
  } catch (error) {
    if (sqlite.isTransaction) sqlite.exec('ROLLBACK');
    throw error;
  }
}

/** Every evidence table the registry records, in name order; none when there is no registry. */
export function listEvidenceTables(sqlite: DatabaseSync): RegisteredTable[] {
  const registry = sqlite.prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?`).get(REGISTRY_TABLE);
  if (registry === undefined) return [];
  return sqlite
    .prepare(`SELECT name, columns FROM ${REGISTRY_TABLE} ORDER BY name`)
    .all()
    .map((row) => ({ name: String(row['name']), columns: JSON.parse(String(row['columns'])) as Record<string, ColumnType> }));
}

function registrySql(): string {
  return `CREATE TABLE IF NOT EXISTS ${REGISTRY_TABLE} (
      name TEXT PRIMARY KEY,
      columns TEXT NOT NULL,
      created_at TEXT NOT NULL
    ) STRICT;
    ${appendOnlyTriggersSql(REGISTRY_TABLE, 'name', 'Evidence registry')}`;
}

function tableSql(table: AnyEvidenceTable): string {
  const declared = Object.entries(table.columns);
  const columnDefs = declared.map(([column, type]) => `${column} ${type.toUpperCase()} NOT NULL,`).join('\n      ');
  const indexes = indexedColumns(table).map((column) => `CREATE INDEX ${table.name}_${column} ON ${table.name} (${column});`).join('\n    ');
  return `CREATE TABLE ${table.name} (
      seq INTEGER PRIMARY KEY,
      recorded_at TEXT NOT NULL,
      ${columnDefs}
      payload TEXT NOT NULL,
      sha256 TEXT NOT NULL,
      prev_sha256 TEXT NOT NULL
    ) STRICT;
    ${indexes}
    ${appendOnlyTriggersSql(table.name, 'seq', 'Evidence table')}`;
}

// The BEFORE INSERT trigger stops INSERT OR REPLACE, which deletes the old row without firing
// DELETE triggers unless recursive_triggers is on in the writing connection.
function appendOnlyTriggersSql(name: string, key: string, what: string): string {
  const refuse = (action: string) => `SELECT RAISE(ABORT, '${what} "${name}" is append-only: ${action} refused');`;
  return `CREATE TRIGGER IF NOT EXISTS ${name}_no_update BEFORE UPDATE ON ${name} BEGIN ${refuse('UPDATE')} END;
    CREATE TRIGGER IF NOT EXISTS ${name}_no_delete BEFORE DELETE ON ${name} BEGIN ${refuse('DELETE')} END;
    CREATE TRIGGER IF NOT EXISTS ${name}_no_replace BEFORE INSERT ON ${name}
      WHEN EXISTS (SELECT 1 FROM ${name} WHERE ${key} = NEW.${key}) BEGIN ${refuse('REPLACE')} END;`;
}
