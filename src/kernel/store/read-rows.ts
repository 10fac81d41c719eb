// Reading evidence back: rows in seq order, filtered on declared columns, and projections that
// fold rows into current state (a change of state is a new row, so state is always derived).

import type { DatabaseSync, SQLInputValue, SQLOutputValue } from 'node:sqlite';
import type { AnyEvidenceTable, ColumnTypes, ColumnValues, EvidenceRow, EvidenceTable } from './evidence-table.ts';
import { statement } from './_statements.ts';

export interface ReadRowsOptions<C extends ColumnTypes> {
  /** Equality on declared columns, all of which must hold. */
  where?: Partial<ColumnValues<C>>;
  /** Only rows with a larger seq: a cursor for paging and for incremental projections. */
  afterSeq?: number;
  limit?: number;
}

export interface ProjectOptions<C extends ColumnTypes, P, S> extends Omit<ReadRowsOptions<C>, 'limit'> {
  initial: S;
  reduce(state: S, row: EvidenceRow<C, P>): S;
}

/**
 * Rows of `table` in seq order.
 *
 * @example
 * readRows(sqlite, receipts, { where: { subject: 'case-7' }, afterSeq: 100, limit: 50 });
 */
export function readRows<C extends ColumnTypes, P>(
  sqlite: DatabaseSync,
  table: EvidenceTable<C, P>,
  options: ReadRowsOptions<C> = {},
): EvidenceRow<C, P>[] {
  const { sql, values } = readRowsSql(table, options);
  return statement(sqlite, sql).all(...values).map((row) => toRow<C, P>(row));
}

/**
 * Folds every matching row, in seq order, into a state.
 *
 * @example
 * const status = projectRows(sqlite, cases, { where: { subject: 'case-7' }, initial: 'open', reduce: (_, row) => row.kind });
 */
export function projectRows<C extends ColumnTypes, P, S>(
  sqlite: DatabaseSync,
  table: EvidenceTable<C, P>,
  options: ProjectOptions<C, P, S>,
): S {
  const { sql, values } = readRowsSql(table, options);
  let state = options.initial;
  // A statement of its own, not the cached one: a reducer that reads rows must not reset this iteration.
  for (const row of sqlite.prepare(sql).iterate(...values)) state = options.reduce(state, toRow<C, P>(row));
  return state;
}

/**
 * The query readRows() runs, for running it elsewhere (a service's read pool): equality on
 * declared columns, seq after a cursor, seq order, a limit.
 */
export function readRowsSql(table: AnyEvidenceTable, options: ReadRowsOptions<ColumnTypes>): { sql: string; values: SQLInputValue[] } {
  const conditions: string[] = [];
  const values: SQLInputValue[] = [];
  for (const [column, value] of Object.entries(options.where ?? {})) {
    if (!(column in table.columns)) {
      throw new TypeError(`Cannot read evidence table "${table.name}": "${column}" is not a declared column`);
    }
    conditions.push(`${column} = ?`);
    values.push(value as SQLInputValue);
  }
  if (options.afterSeq !== undefined) {
    conditions.push('seq > ?');
    values.push(options.afterSeq);
  }
  const where = conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '';
  // LIMIT -1 is SQLite's "no limit", which keeps one statement text per filter shape.
  values.push(options.limit ?? -1);
  return { sql: `SELECT * FROM ${table.name}${where} ORDER BY seq LIMIT ?`, values };
}

function toRow<C extends ColumnTypes, P>(row: Record<string, SQLOutputValue>): EvidenceRow<C, P> {
  return { ...row, payload: JSON.parse(String(row['payload'])) } as unknown as EvidenceRow<C, P>;
}
