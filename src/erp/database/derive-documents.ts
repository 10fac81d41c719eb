// The ERP state that is not itself evidence, derived from the evidence after a restore
// (evidence_restore rebuilds only the evidence tables, docs/replication.md):
// - erp_documents (Lead, Supplier Intake, Revenue Event, invoices, ...): replayed from the
//   document_events chain in seq order, each insert with the identity its row carries;
// - naming_series: the highest number each series has handed out, read from the names stored in
//   every table that names documents (a name is taken in the same transaction that stores it).
// It writes erp_documents as the table stands at its migration (each document's text in data);
// the next migration (store-documents-once.ts) then points each at its evidence row instead.
// erp_current is kept by triggers and filled by its migration (current-documents.ts). Login
// sessions are not derived: they die with the host, and users sign in again.
// Runs as a migration, so it acts once and only on a database that has evidence but no
// documents yet, which only a restore produces (every document insert writes both at once).

import type { DatabaseSync } from 'node:sqlite';
import { NAMING_SERIES } from './documents.ts';
import type { ErpDocument } from './documents.ts';

/** Tables whose `name` column holds names taken from a naming series. */
const NAMED_TABLES = ['erp_documents', 'integration_events', 'dispatch_jobs', 'approval_packets', 'dead_letters', 'agent_notifications'];

export function deriveDocumentsFromEvidence(sqlite: DatabaseSync): { documents: number; series: number } {
  const exists = (table: string) => sqlite.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(table) !== undefined;
  let documents = 0;
  if (exists('document_events') && sqlite.prepare('SELECT 1 FROM erp_documents LIMIT 1').get() === undefined) {
    const insert = sqlite.prepare('INSERT INTO erp_documents (doctype, name, docstatus, identity, creation, modified, data) VALUES (?, ?, ?, ?, ?, ?, ?)');
    const update = sqlite.prepare('UPDATE erp_documents SET docstatus = ?, modified = ?, data = ? WHERE doctype = ? AND name = ?');
    for (const row of sqlite.prepare('SELECT payload FROM document_events ORDER BY seq').iterate()) {
      const change = JSON.parse(String(row['payload'])) as { action: 'insert' | 'update'; doc: ErpDocument; identity?: string };
      const { doc } = change;
      if (change.action === 'insert') {
        insert.run(doc.doctype, doc.name, doc.docstatus, change.identity ?? null, doc.creation, doc.modified, JSON.stringify(doc));
        documents++;
      } else update.run(doc.docstatus, doc.modified, JSON.stringify(doc), doc.doctype, doc.name);
    }
  }
  let series = 0;
  if (sqlite.prepare('SELECT 1 FROM naming_series LIMIT 1').get() === undefined) {
    const highest = new Map<string, number>();
    const patterns = Object.values(NAMING_SERIES).map((prefix) => new RegExp(`^(${prefix.replace(/[-]/g, '\\-')}\\d{4}-)(\\d{5,})$`));
    for (const table of NAMED_TABLES.filter(exists)) {
      for (const row of sqlite.prepare(`SELECT DISTINCT name FROM ${table}`).iterate()) {
        const name = String(row['name']);
        for (const pattern of patterns) {
          const match = pattern.exec(name);
          if (match) highest.set(match[1]!, Math.max(highest.get(match[1]!) ?? 0, Number(match[2])));
        }
      }
    }
    const insert = sqlite.prepare('INSERT INTO naming_series (prefix, current) VALUES (?, ?)');
    for (const [prefix, current] of highest) insert.run(prefix, current);
    series = highest.size;
  }
  return { documents, series };
}
