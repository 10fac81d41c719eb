// A derived table kept by a trigger (a counter per mailbox, per agent) is created once, with the
// rows already stored counted in the same transaction: under SQLite's write lock, so two
// processes opening one database at once create it once, and no insert falls between the count
// and the trigger.

import type { DatabaseSync } from 'node:sqlite';

/**
 * Runs `create` (the table, its filling from the rows already stored, and the trigger named
 * `trigger`) unless that trigger exists; idempotent, and safe for processes sharing the file.
 *
 * @example
 * ensureTrigger(sqlite, 'mailbox_publications_count', COUNTS_SQL);
 */
export function ensureTrigger(sqlite: DatabaseSync, trigger: string, create: string): void {
  const exists = () => sqlite.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'trigger' AND name = ?").get(trigger) !== undefined;
  if (exists()) return;
  sqlite.exec('BEGIN IMMEDIATE');
  try {
    if (!exists()) sqlite.exec(create);
    sqlite.exec('COMMIT');
  } catch (error) {
    sqlite.exec('ROLLBACK');
    throw error;
  }
}
