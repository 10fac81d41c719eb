// The ERP evidence tables keep only the indexes their reads use (docs/performance.md, "ERP payment
// B", next pass): integration_events is looked up by event_key (redelivery) and source (the last
// intake per source), document_events only by seq. A database made when every column was indexed
// loses the others when it is opened, and documents are still found by name (through erp_current).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import type { TestContext } from 'node:test';
import { findByIdentity, getDocument, insertDocument, updateDocument } from '../../src/erp/database/documents.ts';
import { openErpDatabase } from '../../src/erp/database/open-erp-database.ts';

const AT = new Date(Date.UTC(2026, 0, 1));
const now = () => AT;

function tempPath(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-erp-indexes-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'erp.sqlite');
}

function indexesOf(sqlite: DatabaseSync, table: string): string[] {
  return sqlite.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? ORDER BY name").all(table).map((row) => String(row['name']));
}

test('integration_events keeps its indexes on event_key and source only; document_events has none', async (t) => {
  const store = await openErpDatabase(tempPath(t), { now });
  t.after(() => store.close());
  assert.deepEqual(indexesOf(store.sqlite, 'integration_events'), ['integration_events_event_key', 'integration_events_source']);
  assert.deepEqual(indexesOf(store.sqlite, 'document_events'), []);
  // What reads them: the redelivery check and the last intake per source go through those indexes.
  const plan = (sql: string) => store.sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all().map((row) => String(row['detail'])).join('; ');
  assert.match(plan("SELECT payload FROM integration_events WHERE event_key = 'x' ORDER BY seq DESC LIMIT 1"), /USING INDEX integration_events_event_key/);
  assert.match(plan("SELECT name FROM integration_events WHERE source = 'payment_b' ORDER BY seq DESC LIMIT 1"), /USING INDEX integration_events_source/);
});

test('a database whose evidence tables index every column loses the unused indexes when opened, and reads by name still find the newest state', async (t) => {
  const path = tempPath(t);
  let store = await openErpDatabase(path, { now });
  const event = await store.write((sqlite, tx) =>
    insertDocument(sqlite, tx, { doctype: 'Integration Event', name: 'INT-EVT-2026-00001', identity: 'payment_b:m1', owner: 'test', at: AT, fields: { source: 'payment_b', event_key: 'payment_b:m1', status: 'recorded' } }),
  );
  const lead = await store.write((sqlite, tx) => insertDocument(sqlite, tx, { doctype: 'Lead', identity: 'ada@example.test', fields: { email_id: 'ada@example.test', status: 'Lead' }, owner: 'test', at: AT }));
  // As the previous version (and a restore, which indexes every declared column) left the file.
  store.sqlite.exec(`
    CREATE INDEX integration_events_name ON integration_events (name);
    CREATE INDEX document_events_doctype ON document_events (doctype);
    CREATE INDEX document_events_name ON document_events (name);
  `);
  await store.close();

  store = await openErpDatabase(path, { now });
  t.after(() => store.close());
  assert.deepEqual(indexesOf(store.sqlite, 'integration_events'), ['integration_events_event_key', 'integration_events_source']);
  assert.deepEqual(indexesOf(store.sqlite, 'document_events'), []);
  assert.deepEqual(getDocument(store.sqlite, 'Integration Event', event.name), event);
  assert.deepEqual(getDocument(store.sqlite, 'Lead', lead.name), lead);

  const later = new Date(AT.getTime() + 1000);
  const processed = await store.write((sqlite, tx) => updateDocument(sqlite, tx, event, { status: 'processed' }, later));
  assert.deepEqual(getDocument(store.sqlite, 'Integration Event', event.name), processed);
  assert.equal(findByIdentity(store.sqlite, 'Integration Event', 'payment_b:m1')?.['status'], 'processed');
  assert.equal(getDocument(store.sqlite, 'Integration Event', 'INT-EVT-2026-99999'), undefined);
  // A name is read through erp_current's key, not by a scan of the evidence.
  const plan = store.sqlite
    .prepare("EXPLAIN QUERY PLAN SELECT t.payload FROM erp_current AS c JOIN integration_events AS t ON t.seq = c.seq WHERE c.doctype = 'Integration Event' AND c.name = 'x'")
    .all()
    .map((row) => String(row['detail']))
    .join('; ');
  assert.doesNotMatch(plan, /SCAN/);
});
