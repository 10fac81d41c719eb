// Business documents as Frappe keeps them: a DocType, a `name` from a naming series
// (ACC-PINV-2026-00001), `docstatus` (0 draft, 1 submitted, 2 cancelled), creation and modified
// times. Every insert and update is a row of the `document_events` evidence chain; erp_documents
// holds each document's keys (identity, creation, modified) and the seq of its newest row there,
// written in the same transaction, so the document itself is stored once, in its evidence
// (issue 24: bytes per event). Only DocTypes with indexes over their fields (KEPT_IN_PLACE) also
// keep their text in erp_documents.data. These functions run inside a store.write() closure.

import type { DatabaseSync } from 'node:sqlite';
import type { JsonValue, Transaction } from '../../kernel/index.ts';
import { statement } from '../../kernel/index.ts';
import { APPROVAL_PACKETS, DISPATCH_JOBS, DOCUMENT_EVENTS, INTEGRATION_EVENTS } from './evidence-tables.ts';

export type DocStatus = 0 | 1 | 2;

/** A document as /api/resource shows it. */
export interface ErpDocument {
  name: string;
  doctype: string;
  docstatus: DocStatus;
  owner: string;
  creation: string;
  modified: string;
  [field: string]: unknown;
}

/** The naming series of each DocType (Frappe's "PREFIX-.YYYY.-" with five digits). */
export const NAMING_SERIES: Readonly<Record<string, string>> = {
  Lead: 'CRM-LEAD-',
  'Supplier Intake': 'SUP-INT-',
  'Revenue Event': 'REV-EVT-',
  'Purchase Invoice': 'ACC-PINV-',
  'Sales Invoice': 'ACC-SINV-',
  'Integration Event': 'INT-EVT-',
  'Approval Packet': 'APR-PKT-',
  'Dispatch Job': 'DSP-JOB-',
  'Dead Letter': 'DLQ-',
  'Agent Notification': 'AGT-NTF-',
  'Workspace Review Task': 'WS-RVW-',
  // Support tickets (named by the desk's ticket id), identity truth (named as loaded).
  'Support Ticket': 'SUP-TKT-',
  Employee: 'HR-EMP-',
  User: 'USR-',
};

/**
 * Frappe's timestamp form, "2026-01-05 10:00:00.000000", in UTC (years 0 to 9999). Built from the
 * date's fields: Date#toISOString() took several microseconds a call, and every document write
 * stamps its creation and modified times.
 */
export function frappeTimestamp(at: Date): string {
  const year = at.getUTCFullYear();
  return `${year < 1000 ? String(year).padStart(4, '0') : year}-${twoDigits(at.getUTCMonth() + 1)}-${twoDigits(at.getUTCDate())} ${twoDigits(at.getUTCHours())}:${twoDigits(at.getUTCMinutes())}:${twoDigits(at.getUTCSeconds())}.${String(at.getUTCMilliseconds() * 1000).padStart(6, '0')}`;
}

function twoDigits(value: number): string {
  return value < 10 ? `0${value}` : String(value);
}

/** Takes the next name of a DocType's series (inside the write that uses it). */
export function nextName(sqlite: DatabaseSync, doctype: string, at: Date): string {
  const series = `${NAMING_SERIES[doctype] ?? 'DOC-'}${at.getUTCFullYear()}-`;
  return `${series}${String(takeNumber(sqlite, series)).padStart(5, '0')}`;
}

/**
 * The series' next number, its row created at 1 on first use. An UPDATE, then a SELECT whose row
 * comes back as an array, rather than one upsert with RETURNING: RETURNING buffers its row in a
 * temporary table SQLite opens and closes on every call, and a row object with a null prototype is
 * slow to build; this took half the time, paid twice per webhook delivery. Both run inside the
 * caller's write transaction, so no other writer can take a number in between.
 */
function takeNumber(sqlite: DatabaseSync, series: string): number {
  if (statement(sqlite, 'UPDATE naming_series SET current = current + 1 WHERE prefix = ?').run(series).changes === 0) {
    statement(sqlite, 'INSERT INTO naming_series (prefix, current) VALUES (?, 1)').run(series);
    return 1;
  }
  const select = statement(sqlite, 'SELECT current FROM naming_series WHERE prefix = ?');
  select.setReturnArrays(true);
  return Number((select.get(series) as unknown as [number])[0]);
}

export interface InsertInput {
  doctype: string;
  fields: Record<string, unknown>;
  /** A unique key within the DocType (a Lead's email, a Revenue Event's provider reference). */
  identity?: string;
  docstatus?: DocStatus;
  owner: string;
  at: Date;
  /** A name taken earlier with nextName (so the effect could refer to it). */
  name?: string;
}

/**
 * Inserts a new document and its evidence row; returns the document. An Integration Event is
 * itself evidence: its one row in `integration_events` is the document, with no second copy.
 */
export function insertDocument(sqlite: DatabaseSync, tx: Transaction, input: InsertInput): ErpDocument {
  const stamp = frappeTimestamp(input.at);
  const name = input.name ?? nextName(sqlite, input.doctype, input.at);
  const doc: ErpDocument = { ...input.fields, name, doctype: input.doctype, docstatus: input.docstatus ?? 0, owner: input.owner, creation: stamp, modified: stamp };
  if (input.doctype in EVIDENCE_DOCTYPES) {
    appendChange(tx, doc, 'insert');
    return doc;
  }
  const seq = appendChange(tx, doc, 'insert', input.identity);
  statement(sqlite, 'INSERT INTO erp_documents (doctype, name, docstatus, identity, creation, modified, event_seq, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
    .run(input.doctype, name, doc.docstatus, input.identity ?? null, stamp, stamp, seq, keptInPlace(doc));
  return doc;
}

/** Applies `changes` to a stored document (name, doctype, creation and owner stay) and records the change. */
export function updateDocument(sqlite: DatabaseSync, tx: Transaction, current: ErpDocument, changes: Record<string, unknown>, at: Date): ErpDocument {
  const doc: ErpDocument = { ...current, ...changes, name: current.name, doctype: current.doctype, owner: current.owner, creation: current.creation, modified: frappeTimestamp(at) };
  if (doc.doctype in EVIDENCE_DOCTYPES) {
    appendChange(tx, doc, 'update');
    return doc;
  }
  const seq = appendChange(tx, doc, 'update');
  statement(sqlite, 'UPDATE erp_documents SET docstatus = ?, modified = ?, event_seq = ?, data = ? WHERE doctype = ? AND name = ?')
    .run(doc.docstatus, doc.modified, seq, keptInPlace(doc), doc.doctype, doc.name);
  return doc;
}

/**
 * DocTypes whose text stays in erp_documents.data beside their evidence: indexes are built over
 * their fields (identity truth: an Employee's user_id, a User's login), and an index cannot reach
 * into another table. They are a site's staff, not its traffic.
 */
export const KEPT_IN_PLACE: ReadonlySet<string> = new Set(['Employee', 'User']);

function keptInPlace(doc: ErpDocument): string | null {
  return KEPT_IN_PLACE.has(doc.doctype) ? JSON.stringify(doc) : null;
}

/**
 * The SQL text of a stored document (not an evidence DocType) over erp_documents as `alias`: its
 * own data where kept in place, else the document of its newest document_events row.
 */
export function storedDocSql(alias: string): string {
  return `coalesce(${alias}.data, (SELECT e.payload -> '$.doc' FROM document_events AS e WHERE e.seq = ${alias}.event_seq))`;
}

/**
 * The evidence row of a change. A document_events insert carries the document's identity (the
 * unique lookup key, which the document itself may not hold), so that erp_documents can be
 * derived from the evidence alone after a restore (derive-documents.ts).
 */
function appendChange(tx: Transaction, doc: ErpDocument, action: 'insert' | 'update', identity?: string): number {
  if (doc.doctype === 'Integration Event') {
    return tx.appendChain(INTEGRATION_EVENTS, {
      name: doc.name,
      source: String(doc['source']),
      event_key: String(doc['event_key']),
      payload: doc as unknown as JsonValue,
    }).seq;
  }
  if (doc.doctype === 'Approval Packet') {
    return tx.appendChain(APPROVAL_PACKETS, { name: doc.name, target_key: String(doc['target_key']), payload: doc as unknown as JsonValue }).seq;
  }
  if (doc.doctype === 'Dispatch Job') {
    return tx.appendChain(DISPATCH_JOBS, { name: doc.name, dispatch_key: String(doc['dispatch_key']), payload: doc as unknown as JsonValue }).seq;
  }
  return tx.appendChain(DOCUMENT_EVENTS, { doctype: doc.doctype, name: doc.name, payload: { action, doc, ...(identity !== undefined && { identity }) } as unknown as JsonValue }).seq;
}

/**
 * DocTypes whose documents are rows of an evidence table (the latest row of a name is the current
 * state), with the column their identity is looked up by.
 */
const EVIDENCE_DOCTYPES: Readonly<Record<string, { table: string; identity: string }>> = {
  'Integration Event': { table: 'integration_events', identity: 'event_key' },
  'Dispatch Job': { table: 'dispatch_jobs', identity: 'dispatch_key' },
  'Approval Packet': { table: 'approval_packets', identity: 'target_key' },
  'Dead Letter': { table: 'dead_letters', identity: 'name' },
  'Agent Notification': { table: 'agent_notifications', identity: 'name' },
};

export function getDocument(sqlite: DatabaseSync, doctype: string, name: string): ErpDocument | undefined {
  const evidence = EVIDENCE_DOCTYPES[doctype];
  if (evidence) {
    // erp_current holds the seq of each name's newest row (kept by trigger in the same transaction
    // as every append), so no evidence table needs an index on name for this.
    const row = statement(sqlite, `SELECT t.payload FROM erp_current AS c JOIN ${evidence.table} AS t ON t.seq = c.seq WHERE c.doctype = ${sqlText(doctype)} AND c.name = ?`).get(name);
    return row ? (JSON.parse(String(row['payload'])) as ErpDocument) : undefined;
  }
  const row = statement(sqlite, `SELECT ${storedDocSql('d')} AS data FROM erp_documents AS d WHERE d.doctype = ? AND d.name = ?`).get(doctype, name);
  return row ? (JSON.parse(String(row['data'])) as ErpDocument) : undefined;
}

export function findByIdentity(sqlite: DatabaseSync, doctype: string, identity: string): ErpDocument | undefined {
  const evidence = EVIDENCE_DOCTYPES[doctype];
  if (evidence) {
    const row = statement(sqlite, `SELECT payload FROM ${evidence.table} WHERE ${evidence.identity} = ? ORDER BY seq DESC LIMIT 1`).get(identity);
    return row ? (JSON.parse(String(row['payload'])) as ErpDocument) : undefined;
  }
  const row = statement(sqlite, `SELECT ${storedDocSql('d')} AS data FROM erp_documents AS d WHERE d.doctype = ${sqlText(doctype)} AND d.identity = ?`).get(identity);
  return row ? (JSON.parse(String(row['data'])) as ErpDocument) : undefined;
}

/**
 * A DocType as an SQL string literal. A lookup by identity names its DocType in the SQL text (one
 * prepared statement per DocType) instead of binding it: erp_documents has partial indexes WHERE
 * doctype = 'Employee' / 'User', and a bound doctype compared against them makes SQLite prepare
 * the statement again on every execution (it checks the bound value against each index's WHERE),
 * which cost more than the lookup itself. DocTypes come from the code, never from a request.
 */
function sqlText(doctype: string): string {
  return `'${doctype.replaceAll("'", "''")}'`;
}
