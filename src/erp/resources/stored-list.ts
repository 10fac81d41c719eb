// GET /api/resource/<DocType> over stored documents, at any size (DESIGN.md "Evidence over time").
// The list walks one index in its order: (doctype, modified, name), (doctype, creation, name) or
// (doctype, name), the one order_by names, narrowed by the filters that index can answer (a range
// or value of the order field itself; `status` for the DocTypes kept in evidence). It reads at
// most LIST_WINDOW documents that way. Every other filter, an order_by on another field and
// limit 0 ("all") are answered inside that window: exactly, when what the index yields fits in it;
// otherwise the request is refused with a ValidationError naming what the index can answer, so
// no request reads the whole history. The SQL runs on the service's read pool, off the event loop.
//
// Filter semantics are those of list-query.ts's in-memory matcher, in SQL: a field compares as
// its text ('' when absent or null); <, >, <=, >= compare as numbers when both sides are decimal
// numbers, else as text without letter case.

import type { ReadPool } from '../../kernel/index.ts';
import type { ErpDocument } from '../database/documents.ts';
import { storedDocSql } from '../database/documents.ts';
import { CURRENT_DOCTYPES } from '../database/current-documents.ts';
import { frappeThrow } from '../frappe/envelope.ts';
// Fields readback never shows: a filter or order on them sees nothing.
import { SECRET_FIELDS } from '../readback.ts';
import type { Filter as ListFilter, ListQuery } from './list-query.ts';

/** Most documents a list reads through its index for one request. */
export const LIST_WINDOW = 5000;


const ORDER_FIELDS = ['modified', 'creation', 'name'] as const;
type OrderField = (typeof ORDER_FIELDS)[number];
const RANGE_OPERATORS = new Set(['=', '<', '>', '<=', '>=']);

interface Source {
  /** FROM clause walking `index` as `c` (the keys), joined with the document rows when `withDocs`. */
  from(index: OrderField | 'status', withDocs: boolean): string;
  doc: string;
  /** Whether `status` is a column with an index (the evidence DocTypes). */
  statusIndexed: boolean;
}

function sourceOf(doctype: string): Source {
  const evidence = CURRENT_DOCTYPES[doctype];
  if (evidence) {
    const index = { modified: 'erp_current_modified', creation: 'erp_current_creation', status: 'erp_current_status' } as const;
    return {
      // NOT INDEXED on a WITHOUT ROWID table walks its primary key (doctype, name).
      from: (by, withDocs) => `erp_current AS c ${by === 'name' ? 'NOT INDEXED' : `INDEXED BY ${index[by]}`}${withDocs ? ` JOIN ${evidence.table} AS t ON t.seq = c.seq` : ''}`,
      doc: 't.payload',
      statusIndexed: true,
    };
  }
  const index = { modified: 'erp_documents_modified', creation: 'erp_documents_creation', name: 'sqlite_autoindex_erp_documents_1', status: 'erp_documents_modified' } as const;
  return { from: (by) => `erp_documents AS c INDEXED BY ${index[by]}`, doc: storedDocSql('c'), statusIndexed: false };
}

/** A field's text as the in-memory matcher sees it, over the window row `w`. */
function textOf(field: string): string {
  if (SECRET_FIELDS.includes(field)) return "''";
  if (field === 'name' || field === 'modified' || field === 'creation' || field === 'doctype') return `w.${field}`;
  const path = `'$.${field}'`;
  return `coalesce(CASE json_type(w.doc, ${path}) WHEN 'text' THEN w.doc ->> ${path} WHEN 'null' THEN '' ELSE w.doc -> ${path} END, '')`;
}

/** /^-?\d+(\.\d+)?$/ in GLOB terms (the in-memory matcher's "decimal number"). */
function isDecimalSql(text: string): string {
  return `(${text} <> '' AND ${text} <> '-' AND ${text} NOT GLOB '*[^0-9.-]*' AND ${text} NOT GLOB '?*-*' AND ${text} NOT GLOB '*.*.*' AND ${text} NOT GLOB '*.' AND ${text} NOT GLOB '.*' AND ${text} NOT GLOB '-.*')`;
}

const DECIMAL = /^-?\d+(\.\d+)?$/;
const asText = (value: unknown): string => (value === null || value === undefined ? '' : String(value));

/** One filter as SQL over `w`, its parameters pushed onto `params`. */
function filterSql(f: ListFilter, params: unknown[]): string {
  const text = textOf(f.field);
  switch (f.op) {
    case '=':
    case '!=':
      params.push(asText(f.value));
      return `${text} ${f.op === '=' ? '=' : '<>'} ?`;
    case 'is':
      return `${text} ${f.value === 'set' ? '<>' : '='} ''`;
    case 'in':
    case 'not in':
      params.push(JSON.stringify(f.list));
      return `${text} ${f.op === 'in' ? 'IN' : 'NOT IN'} (SELECT value FROM json_each(?))`;
    case 'like':
    case 'not like':
      params.push(asText(f.value));
      return `${text} ${f.op === 'like' ? 'LIKE' : 'NOT LIKE'} ?`;
    default: {
      const wanted = typeof f.value === 'number' ? String(f.value) : asText(f.value);
      if (typeof f.value !== 'number' && !DECIMAL.test(wanted)) {
        params.push(wanted);
        return `(${text} ${f.op} ? COLLATE NOCASE)`;
      }
      params.push(Number(wanted), wanted);
      return `(CASE WHEN ${isDecimalSql(text)} THEN CAST(${text} AS REAL) ${f.op} ? ELSE ${text} ${f.op} ? COLLATE NOCASE END)`;
    }
  }
}

/** The filters the chosen index answers: a range or value of its own key (and status on its index). */
function indexFilters(query: ListQuery, order: OrderField, source: Source): { index: OrderField | 'status'; keyed: ListFilter[]; status: string | null } {
  const keyed = query.filters.filter((f) => f.field === order && RANGE_OPERATORS.has(f.op) && typeof f.value === 'string' && f.value !== '');
  const statusFilter = source.statusIndexed && order === 'modified'
    ? query.filters.find((f) => f.field === 'status' && f.op === '=' && typeof f.value === 'string' && f.value !== '')
    : undefined;
  return { index: statusFilter ? 'status' : order, keyed, status: statusFilter ? String(statusFilter.value) : null };
}

export interface StoredListOutcome {
  docs: ErpDocument[];
  /** SQLite steps the list took, summed over its queries (tests read it). */
  steps: number;
}

/**
 * The page `query` asks of the stored documents of `doctype`, read through the pool.
 * Throws a FrappeThrow (ValidationError) when the answer would need more than LIST_WINDOW documents.
 */
export async function listStoredDocuments(reads: ReadPool, doctype: string, query: ListQuery): Promise<StoredListOutcome> {
  const source = sourceOf(doctype);
  const requested = query.orderBy.field;
  const indexedOrder = (ORDER_FIELDS as readonly string[]).includes(requested);
  const order: OrderField = indexedOrder ? (requested as OrderField) : 'modified';
  const direction = indexedOrder && !query.orderBy.descending ? 'ASC' : 'DESC';
  const { index, keyed, status } = indexFilters(query, order, source);
  const residual = query.filters.filter((f) => !keyed.includes(f) && !(status !== null && f.field === 'status' && f.op === '=' && f.value === status));

  // The window: the first LIST_WINDOW + 1 documents along the index, narrowed by what it answers.
  const windowParams: unknown[] = [doctype];
  const conditions = ['c.doctype = ?'];
  if (status !== null) {
    conditions.push('c.status = ?');
    windowParams.push(status);
  }
  for (const f of keyed) {
    conditions.push(`c.${order} ${f.op} ?`);
    windowParams.push(f.value);
  }
  const orderSql = order === 'name' ? `c.name ${direction}` : `c.${order} ${direction}, c.name ${direction}`;
  const windowSql = (columns: string) => `SELECT ${columns} FROM ${source.from(index, columns !== '1')} WHERE ${conditions.join(' AND ')} ORDER BY ${orderSql} LIMIT ${LIST_WINDOW + 1}`;

  const boundedByIndex = indexedOrder && query.limit !== 0;
  if (boundedByIndex && query.start + query.limit > LIST_WINDOW) {
    frappeThrow(`A list of ${doctype} reads at most ${LIST_WINDOW} documents in its order: limit_start + limit is ${query.start + query.limit}. Page further with a filter on the order field, e.g. filters=[["${order}","${direction === 'DESC' ? '<' : '>'}","<${order} of the last row>"]]`);
  }
  let steps = 0;
  const windowSize = async (): Promise<number> => {
    const counted = await reads.query(`SELECT count(*) AS n FROM (${windowSql('1')})`, windowParams as never[]);
    steps += counted.steps;
    return Number(counted.rows[0]!['n']);
  };
  const allowed = `order_by ${ORDER_FIELDS.join(', ')} (asc or desc) with a limit, and filters on the order field${source.statusIndexed ? ' or on status (with order_by modified)' : ''}`;
  if (!boundedByIndex && (await windowSize()) > LIST_WINDOW) {
    const why = query.limit === 0 ? 'limit 0 (all documents)' : `order_by "${requested}"`;
    frappeThrow(`${doctype} has more than ${LIST_WINDOW} documents matching the indexed part of this list, too many for ${why}: use ${allowed}`);
  }

  const params: unknown[] = [...windowParams];
  const where: string[] = residual.map((f) => filterSql(f, params));
  if (query.orFilters.length > 0) where.push(`(${query.orFilters.map((f) => filterSql(f, params)).join(' OR ')})`);
  const sorted = indexedOrder ? '' : ` ORDER BY ${textOf(requested)} COLLATE NOCASE ${query.orderBy.descending ? 'DESC' : 'ASC'}, w.name ${query.orderBy.descending ? 'DESC' : 'ASC'}`;
  params.push(query.limit === 0 ? -1 : query.limit, query.start);
  const page = await reads.query(
    `SELECT w.doc AS doc FROM (${windowSql(`c.name AS name, c.modified AS modified, c.creation AS creation, c.doctype AS doctype, ${source.doc} AS doc`)}) AS w${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}${sorted} LIMIT ? OFFSET ?`,
    params as never[],
  );
  steps += page.steps;
  // A short page from a filtered walk may have stopped at the window's end, not at the list's.
  if (boundedByIndex && where.length > 0 && page.rows.length < query.limit && (await windowSize()) > LIST_WINDOW) {
    frappeThrow(`The filters of this list matched ${page.rows.length} of the ${query.limit} rows asked for among the first ${LIST_WINDOW} ${doctype} documents in its order, and more exist: filters on other fields are answered within that window only; use ${allowed}`);
  }
  return { docs: page.rows.map((row) => JSON.parse(String(row['doc'])) as ErpDocument), steps };
}
