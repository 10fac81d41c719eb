// Opening a service database for reading without leaving anything behind. SQLite creates -wal and
// -shm files beside a WAL database even for a read-only connection; when no -wal file exists
// (nothing is writing), the file is opened immutable instead, so a snapshot or an audit adds no
// file. A running service keeps its -wal and -shm: then a plain read-only connection shares them.

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { pathToFileURL } from 'node:url';
import { AirlockError, openDatabaseReadOnly } from '../../src/kernel/index.ts';

/** A read-only connection to `path` that creates no file; AirlockError('store_open') when it is not a database. */
export function openReadOnlyQuietly(path: string): DatabaseSync {
  if (existsSync(`${path}-wal`)) return openDatabaseReadOnly(path);
  if (!existsSync(path)) throw new AirlockError('store_open', `Cannot open database "${path}": file does not exist`);
  const url = pathToFileURL(resolve(path));
  url.searchParams.set('immutable', '1');
  let sqlite: DatabaseSync | undefined;
  try {
    sqlite = new DatabaseSync(url, { readOnly: true });
    sqlite.prepare('SELECT count(*) FROM sqlite_schema').get();
    return sqlite;
  } catch (error) {
    sqlite?.close();
    throw new AirlockError('store_open', `Cannot open database "${path}": ${(error as Error).message}`, { cause: error });
  }
}
