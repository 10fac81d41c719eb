// Issue 24: readiness re-reads the control state after every change of the database; what it
// reads must not grow with the inbox. The inbox counts are counted only when a readback asks.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { openControlDatabase } from '../../src/semantic/control-schema.ts';
import { createControlStateReader } from '../../src/semantic/control-state.ts';

/** `sqlite` with every SQL text it prepares recorded in `seen`. */
function recording(sqlite: DatabaseSync, seen: string[]): DatabaseSync {
  return new Proxy(sqlite, {
    get(target, property) {
      if (property === 'prepare') {
        return (sql: string) => {
          seen.push(sql);
          return target.prepare(sql);
        };
      }
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

test('the control state: what readiness reads counts no inbox or outcome row; the readback counts them when it asks', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-semantic-state-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const store = openControlDatabase(join(dir, 'semantic.sqlite'));
  t.after(() => store.close());
  const insert = store.sqlite.prepare("INSERT INTO ingest_inbox (received_at, source, record) VALUES ('2026-01-01T00:00:00Z', 'test', '{}')");
  store.sqlite.exec('BEGIN');
  for (let i = 0; i < 3000; i++) insert.run();
  store.sqlite.exec('COMMIT');
  const seen: string[] = [];
  const state = createControlStateReader(recording(store.sqlite, seen)).current();
  // What readiness reads: the integrity receipt and the latest snapshot.
  assert.equal(state.integrity.status, 'pass');
  assert.equal(state.snapshot, undefined);
  assert.deepEqual(seen.filter((sql) => /count\(\*\)/i.test(sql)), []);
  assert.deepEqual(state.chains.map((chain) => chain.rows), [0, 0]);
  assert.equal(state.inbox.records, 3000);
  assert.equal(state.inbox.undecided, 3000);
  assert.deepEqual(JSON.parse(JSON.stringify(state.inbox)), { records: 3000, undecided: 3000, merged: 0, quarantined: 0 });
  assert.equal(seen.filter((sql) => /count\(\*\)/i.test(sql)).length, 4);
});
