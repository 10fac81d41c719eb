// What one payment_b delivery costs the database, counted (docs/performance.md, "ERP payment B"):
// no SQL compiled per request once the statements are prepared, and one commit round.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../src/kernel/index.ts';
import { postStandard, startErp } from './_service.ts';
import type { Running } from './_service.ts';

let erp: Running;
before(async () => {
  erp = await startErp({ log: createLogger({ name: 'erp', level: 'error' }) });
});
after(() => erp.stop());

let counter = 0;
function payment(): { type: string; timestamp: string; data: Record<string, unknown> } {
  const n = counter++;
  return { type: 'payment.succeeded', timestamp: '2026-01-01T00:00:00Z', data: { id: `pay_cost_${n}`, amount: '12.30', currency: 'EUR', customer: `c${n}@example.test` } };
}

test('a payment_b delivery compiles no SQL once its statements are prepared (a bound doctype beside partial indexes made SQLite prepare the identity lookup again on every request)', async () => {
  const sqlite = erp.service.store.sqlite;
  // The authorizer is called whenever SQLite compiles a statement, a re-prepare included.
  // Setting it expires every prepared statement, so the first deliveries prepare them again.
  let compiled = 0;
  sqlite.setAuthorizer(() => {
    compiled++;
    return 0;
  });
  try {
    for (let i = 0; i < 3; i++) assert.equal((await postStandard(erp.url, payment(), { id: `msg_cost_warm_${i}` })).status, 200);
    compiled = 0;
    for (let i = 0; i < 5; i++) {
      const response = await postStandard(erp.url, payment(), { id: `msg_cost_${i}` });
      assert.equal(response.status, 200, response.text);
      assert.equal(JSON.parse(response.text).message.business_effect, 'revenue_event_staged');
    }
    assert.equal(compiled, 0, 'statements compiled while answering five deliveries');
  } finally {
    sqlite.setAuthorizer(null);
  }
});

test('a payment_b delivery is one commit round, its Integration Event and Revenue Event in it', async () => {
  const store = erp.service.store;
  const before = store.stats().commits;
  const response = await postStandard(erp.url, payment(), { id: 'msg_cost_commit' });
  assert.equal(response.status, 200, response.text);
  assert.equal(store.stats().commits - before, 1);
});

/** Entries of every B-tree in the file (dbstat): a table's rows, an index's keys (a WITHOUT ROWID table is an index B-tree). */
function btreeEntries(sqlite: import('node:sqlite').DatabaseSync): Map<string, number> {
  const indexLike = new Set(
    sqlite.prepare("SELECT name, type, sql FROM sqlite_schema WHERE type IN ('index', 'table')").all()
      .filter((row) => row['type'] === 'index' || /WITHOUT ROWID/i.test(String(row['sql'])))
      .map((row) => String(row['name'])),
  );
  const entries = new Map<string, number>();
  for (const row of sqlite.prepare('SELECT name, pagetype, sum(ncell) AS n FROM dbstat GROUP BY name, pagetype').all()) {
    const name = String(row['name']);
    if (row['pagetype'] === 'leaf' || (row['pagetype'] === 'internal' && indexLike.has(name))) entries.set(name, (entries.get(name) ?? 0) + Number(row['n']));
  }
  return entries;
}

test('a payment_b delivery adds one entry to each of 13 B-trees (no index that no read uses)', async () => {
  const sqlite = erp.service.store.sqlite;
  const before = btreeEntries(sqlite);
  const deliveries = 8;
  for (let i = 0; i < deliveries; i++) assert.equal((await postStandard(erp.url, payment(), { id: `msg_cost_btree_${i}` })).status, 200);
  const grown: Record<string, number> = {};
  for (const [name, n] of btreeEntries(sqlite)) if (n !== (before.get(name) ?? 0)) grown[name] = (n - (before.get(name) ?? 0)) / deliveries;
  assert.deepEqual(grown, {
    // The Integration Event: its row, the redelivery key, its source; its current row and list keys.
    integration_events: 1,
    integration_events_event_key: 1,
    integration_events_source: 1,
    erp_current: 1,
    erp_current_modified: 1,
    erp_current_creation: 1,
    erp_current_status: 1,
    // The Revenue Event: its evidence row; its keys, identity and list keys.
    document_events: 1,
    erp_documents: 1,
    sqlite_autoindex_erp_documents_1: 1,
    erp_documents_identity: 1,
    erp_documents_modified: 1,
    erp_documents_creation: 1,
  });
});
