// Schema migrations keyed on SQLite's `user_version`: migration i takes the schema from version i
// to i + 1, each in its own transaction together with the version bump, so a crash or an error
// leaves the database at a version some code knows exactly.

import type { DatabaseSync } from 'node:sqlite';
import { AirlockError } from '../errors.ts';

/** One step of a schema. `up` is SQL for `exec`, or a function for steps that need more than SQL. */
export interface Migration {
  name: string;
  up: string | ((sqlite: DatabaseSync) => void);
}

/**
 * Brings the database to `migrations.length`, running the missing steps in order.
 * Returns the version it found. A database newer than the list is refused with `store_version`;
 * a failing step is rolled back and reported with `store_migration`.
 *
 * @example
 * migrate(sqlite, [{ name: 'cases', up: 'CREATE TABLE cases (ref TEXT PRIMARY KEY)' }], { label: 'erp.sqlite' });
 */
export function migrate(sqlite: DatabaseSync, migrations: readonly Migration[], options: { label: string }): number {
  const found = userVersion(sqlite);
  let version = found;
  while (version < migrations.length) {
    sqlite.exec('BEGIN IMMEDIATE');
    // Another process may have migrated between our read and our lock: decide under the lock.
    version = userVersion(sqlite);
    if (version >= migrations.length) {
      sqlite.exec('ROLLBACK');
      break;
    }
    const step = migrations[version] as Migration;
    try {
      if (typeof step.up === 'string') sqlite.exec(step.up);
      else step.up(sqlite);
      // PRAGMA takes no bound parameters; the value is an integer we computed.
      sqlite.exec(`PRAGMA user_version = ${version + 1}`);
      sqlite.exec('COMMIT');
    } catch (error) {
      if (sqlite.isTransaction) sqlite.exec('ROLLBACK');
      throw new AirlockError(
        'store_migration',
        `Cannot migrate database "${options.label}" to version ${version + 1} ("${step.name}"): ${(error as Error).message}`,
        { cause: error },
      );
    }
    version++;
  }
  if (version > migrations.length) {
    throw new AirlockError(
      'store_version',
      `Cannot open database "${options.label}": user_version ${version} is newer than this code knows (${migrations.length})`,
    );
  }
  return found;
}

/** The schema version recorded in the database file. */
export function userVersion(sqlite: DatabaseSync): number {
  return Number(sqlite.prepare('PRAGMA user_version').get()?.['user_version'] ?? 0);
}
