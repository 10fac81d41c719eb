// Issue 24 (bytes per event): a business document is stored once, in its document_events row;
// erp_documents keeps its keys and the seq of that row. Reads give the same document, an update
// moves the pointer, and a database written by the previous version (the text in both places) is
// migrated once, losing nothing.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { findByIdentity, getDocument, insertDocument, updateDocument } from '../../src/erp/database/documents.ts';
import { openErpDatabase } from '../../src/erp/database/open-erp-database.ts';
import { verifyAllChains } from '../../src/kernel/index.ts';

const AT = new Date(Date.UTC(2026, 0, 1));
const now = () => AT;

function tempPath(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-erp-once-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'erp.sqlite');
}

const row = (sqlite: import('node:sqlite').DatabaseSync, name: string) => ({ ...sqlite.prepare('SELECT event_seq, data FROM erp_documents WHERE name = ?').get(name) });

test('a document is stored once: erp_documents points at its newest document_events row, reads follow the pointer', async (t) => {
  const store = await openErpDatabase(tempPath(t), { now });
  t.after(() => store.close());
  const lead = await store.write((sqlite, tx) => insertDocument(sqlite, tx, { doctype: 'Lead', identity: 'ada@example.test', fields: { email_id: 'ada@example.test', lead_name: 'Ada', status: 'Lead' }, owner: 'test', at: AT }));
  assert.deepEqual(row(store.sqlite, lead.name), { event_seq: 1, data: null });
  assert.deepEqual(getDocument(store.sqlite, 'Lead', lead.name), lead);
  assert.deepEqual(findByIdentity(store.sqlite, 'Lead', 'ada@example.test'), lead);
  const updated = await store.write((sqlite, tx) => updateDocument(sqlite, tx, lead, { status: 'Opportunity' }, new Date(AT.getTime() + 1000)));
  assert.deepEqual(row(store.sqlite, lead.name), { event_seq: 2, data: null });
  assert.deepEqual(getDocument(store.sqlite, 'Lead', lead.name), updated);
  assert.equal(getDocument(store.sqlite, 'Lead', lead.name)!['status'], 'Opportunity');
});

test('DocTypes with indexes over their fields (Employee, User) keep their text in place as well', async (t) => {
  const store = await openErpDatabase(tempPath(t), { now });
  t.after(() => store.close());
  const employee = await store.write((sqlite, tx) => insertDocument(sqlite, tx, { doctype: 'Employee', name: 'HR-EMP-00001', identity: 'HR-EMP-00001', fields: { user_id: 'ada@example.test' }, owner: 'test', at: AT }));
  assert.deepEqual(row(store.sqlite, employee.name), { event_seq: 1, data: JSON.stringify(employee) });
  assert.deepEqual(getDocument(store.sqlite, 'Employee', employee.name), employee);
});

test('a database of the previous version (each document stored twice) is migrated once: same documents, text dropped, chains intact', async (t) => {
  const path = tempPath(t);
  const first = await openErpDatabase(path, { now });
  const docs = await first.write((sqlite, tx) => {
    const lead = insertDocument(sqlite, tx, { doctype: 'Lead', identity: 'ada@example.test', fields: { email_id: 'ada@example.test', lead_name: 'Ada' }, owner: 'test', at: AT });
    const revenue = insertDocument(sqlite, tx, { doctype: 'Revenue Event', identity: 'payment_b:payment:p1', fields: { amount: '12.30', status: 'Staged' }, owner: 'test', at: AT });
    const user = insertDocument(sqlite, tx, { doctype: 'User', name: 'ada@example.test', identity: 'ada@example.test', fields: { enabled: 1 }, owner: 'test', at: AT });
    return [updateDocument(sqlite, tx, lead, { status: 'Replied' }, new Date(AT.getTime() + 1000)), revenue, user];
  });
  // The table as the previous version wrote it: every document's text in data, no pointer.
  first.sqlite.exec(`
    CREATE TABLE old_documents (
      doctype TEXT NOT NULL, name TEXT NOT NULL, docstatus INTEGER NOT NULL,
      identity TEXT, creation TEXT NOT NULL, modified TEXT NOT NULL, data TEXT NOT NULL,
      PRIMARY KEY (doctype, name)
    ) STRICT;
    INSERT INTO old_documents SELECT d.doctype, d.name, d.docstatus, d.identity, d.creation, d.modified,
      coalesce(d.data, (SELECT e.payload -> '$.doc' FROM document_events AS e WHERE e.seq = d.event_seq)) FROM erp_documents AS d;
    DROP TABLE erp_documents;
    ALTER TABLE old_documents RENAME TO erp_documents;
    CREATE UNIQUE INDEX erp_documents_identity ON erp_documents (doctype, identity) WHERE identity IS NOT NULL;
    CREATE INDEX erp_documents_modified ON erp_documents (doctype, modified, name);
    PRAGMA user_version = 5;`);
  await first.close();
  const reopened = await openErpDatabase(path, { now });
  t.after(() => reopened.close());
  for (const doc of docs) assert.deepEqual(getDocument(reopened.sqlite, doc.doctype, doc.name), doc);
  // The lead's newest row is its update (seq 4), not its insert (seq 1).
  assert.deepEqual(row(reopened.sqlite, docs[0]!.name), { event_seq: 4, data: null });
  assert.deepEqual(row(reopened.sqlite, docs[1]!.name), { event_seq: 2, data: null });
  assert.equal(row(reopened.sqlite, docs[2]!.name)['event_seq'], 3);
  assert.deepEqual(JSON.parse(String(row(reopened.sqlite, docs[2]!.name)['data'])), docs[2]);
  // The indexes of the table are all back, and the identity stays unique.
  const indexes = reopened.sqlite.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'erp_documents' AND sql IS NOT NULL ORDER BY name").all().map((r) => r['name']);
  assert.deepEqual(indexes, ['erp_documents_creation', 'erp_documents_employee_user', 'erp_documents_employee_user_nocase', 'erp_documents_identity', 'erp_documents_modified', 'erp_documents_user_nocase']);
  await assert.rejects(reopened.write((sqlite, tx) => insertDocument(sqlite, tx, { doctype: 'Lead', identity: 'ada@example.test', fields: {}, owner: 'test', at: AT })), /UNIQUE/);
  assert.ok(verifyAllChains(reopened.sqlite).every((chain) => chain.ok));
});
