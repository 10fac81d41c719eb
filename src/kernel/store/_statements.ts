// Prepared statements cached per connection and SQL text: evidence SQL names its table, so it
// cannot be a fixed statement, and preparing again on every append would cost more than the insert.

import type { DatabaseSync, StatementSync } from 'node:sqlite';

const caches = new WeakMap<DatabaseSync, Map<string, StatementSync>>();

/** The prepared statement for `sql` on `sqlite`, prepared once. */
export function statement(sqlite: DatabaseSync, sql: string): StatementSync {
  let cache = caches.get(sqlite);
  if (cache === undefined) {
    cache = new Map();
    caches.set(sqlite, cache);
  }
  let prepared = cache.get(sql);
  if (prepared === undefined) {
    prepared = sqlite.prepare(sql);
    cache.set(sql, prepared);
  }
  return prepared;
}
