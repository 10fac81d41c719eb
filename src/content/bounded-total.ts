// Totals of listings without reading whole tables (issue 24): a listing counts its rows only up
// to a window past the page it answers. Alfresco's pagination allows this: totalItems "might not
// be determined, in which case this property will not be present", and hasMoreItems still says
// whether a larger skipCount finds more. A folder or trashcan that fits the window keeps its
// exact total; a larger one answers without totalItems.

import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import { statement } from '../kernel/index.ts';

/** Rows counted past the end of the requested page before a total is given up. */
export const COUNT_WINDOW = 1000;

/** A listing's total: exact when fewer rows than the window exist, else the count of the window (a lower bound). */
export interface BoundedTotal {
  total: number;
  exact: boolean;
}

/** The query that counts the rows of `from` up to the cap, and the cap: its answer's total is exact below it. */
export function boundedCount(from: string, args: readonly SQLInputValue[], paging: { skipCount: number; maxItems: number }): { sql: string; params: SQLInputValue[]; cap: number } {
  const cap = paging.skipCount + paging.maxItems + COUNT_WINDOW;
  return { sql: `SELECT count(*) AS n FROM (SELECT 1 ${from} LIMIT ?)`, params: [...args, cap], cap };
}

/**
 * Counts the rows of `from` (an SQL `FROM ... WHERE ...` text built from fixed parts) up to
 * `skipCount + maxItems + COUNT_WINDOW`, never further.
 */
export function boundedTotal(sqlite: DatabaseSync, from: string, args: readonly SQLInputValue[], paging: { skipCount: number; maxItems: number }): BoundedTotal {
  const { sql, params, cap } = boundedCount(from, args, paging);
  const total = Number(statement(sqlite, sql).get(...params)?.['n']);
  return { total, exact: total < cap };
}
