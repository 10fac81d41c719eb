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
  return cachedStatement(cache, sqlite, sql);
}

/**
 * The statement for `sql` from `cache`, prepared and kept when missing. The cache holds at most
 * 1,000 statements: SQL built from a request's shape (a search's query) is endless in variety,
 * and each statement holds SQLite memory until it is dropped. When full it starts again rather
 * than track use on every call; the statements in use are prepared again on their next call.
 * A dropped statement's memory is SQLite's, which V8 does not count, so it would wait for a
 * collection V8 sees no reason to run: with `closeDropped` they are finalized at once, for a
 * caller none of whose statements can be in use then (a read thread runs one query at a time;
 * on a connection where an iterator may be open, they are left to the collector).
 * Self-contained, because the read pool's threads get its source text (read-pool.ts).
 */
export function cachedStatement(cache: Map<string, StatementSync>, sqlite: DatabaseSync, sql: string, closeDropped = false): StatementSync {
  let prepared = cache.get(sql);
  if (prepared === undefined) {
    if (cache.size >= 1000) {
      // StatementSync's close() is in Node 26 but not yet in @types/node.
      if (closeDropped) for (const dropped of cache.values()) (dropped as unknown as { close(): void }).close();
      cache.clear();
    }
    prepared = sqlite.prepare(sql);
    cache.set(sql, prepared);
  }
  return prepared;
}
