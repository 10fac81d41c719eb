// Owner readback of every ERP DocType through Frappe's REST resource API: GET
// /api/resource/<DocType> answers {"data": [...]}, GET /api/resource/<DocType>/<name> answers
// {"data": doc}. Read-only, Frappe token or session auth. Supplier is the configured master data.

import type { ErpDocument } from '../database/documents.ts';
import { NAMING_SERIES } from '../database/documents.ts';
import { FRAPPE_AUTH } from '../frappe/authenticator.ts';
import { frappeError, frappeThrow } from '../frappe/envelope.ts';
import { frappeHandler } from '../erp-route.ts';
import type { DepsRef, ErpDeps, ErpRoute } from '../erp-route.ts';
import type { Supplier } from '../suppliers.ts';
import { readDocument, redactDocument } from '../readback.ts';
import { parseListQuery, pickFields, runListQuery } from './list-query.ts';
import type { ListQuery } from './list-query.ts';
import { listStoredDocuments } from './stored-list.ts';

/** Every DocType the service keeps, plus Supplier. */
export const READABLE_DOCTYPES = [...Object.keys(NAMING_SERIES), 'Supplier'];

function supplierDocument(supplier: Supplier): ErpDocument {
  return { ...supplier, doctype: 'Supplier', docstatus: 0, owner: 'ERP_SUPPLIERS_FILE', creation: '', modified: '', disabled: 0 };
}

/** Refuses a DocType this service does not keep, naming those it does. */
export function checkReadable(doctype: string): void {
  if (!READABLE_DOCTYPES.includes(doctype)) frappeThrow(`DocType ${doctype} not found: readable are ${READABLE_DOCTYPES.join(', ')}`, 'DoesNotExistError');
}

/**
 * The rows GET /api/resource/<DocType> answers for `query`: Suppliers from ERP_SUPPLIERS_FILE,
 * stored DocTypes through their indexes on the read pool (stored-list.ts), as readers see them.
 */
export async function listResource(deps: ErpDeps, doctype: string, query: ListQuery): Promise<Record<string, unknown>[]> {
  checkReadable(doctype);
  if (doctype === 'Supplier') return runListQuery(deps.suppliers().map(supplierDocument), query);
  const { docs } = await listStoredDocuments(deps.reads, doctype, query);
  return docs.map((doc) => pickFields(redactDocument(doc), query.fields));
}

/** One document of a readable DocType as readers see it, by name. */
export function readResource(deps: ErpDeps, doctype: string, name: string): ErpDocument | undefined {
  checkReadable(doctype);
  if (doctype !== 'Supplier') return readDocument(deps.store.sqlite, doctype, name);
  const supplier = deps.suppliers().find((s) => s.name === name);
  return supplier && supplierDocument(supplier);
}

export function resourceRoutes(deps: DepsRef): ErpRoute[] {
  const read = { family: 'framework', stability: 'stable', method: 'GET', auth: FRAPPE_AUTH, etag: false } as const;
  return [
    {
      ...read,
      path: '/api/resource/:doctype',
      summary: 'List documents of a DocType with fields, filters, or_filters, order_by, limit_start and limit (or limit_page_length)',
      params: { doctype: { description: 'The DocType, e.g. Lead or Supplier Intake', example: 'Lead' } },
      handler: frappeHandler(async (context) => {
        const doctype = context.params['doctype']!;
        const query = parseListQuery(context.query, doctype);
        return { status: 200, body: { data: await listResource(deps(), doctype, query) } };
      }),
    },
    {
      ...read,
      path: '/api/resource/:doctype/:name',
      summary: 'One document by DocType and name',
      params: { doctype: { description: 'The DocType', example: 'Lead' }, name: { description: 'The document name', example: 'CRM-LEAD-2026-00001' } },
      handler: frappeHandler((context) => {
        const { doctype, name } = context.params as { doctype: string; name: string };
        if (context.query.size > 0) frappeThrow('A document read takes no query arguments');
        // One document is read by its key; only Supplier (configured, not stored) is searched.
        const doc = readResource(deps(), doctype, name);
        return doc ? { status: 200, body: { data: doc } } : frappeError('DoesNotExistError', `${doctype} ${name} not found`);
      }),
    },
  ];
}
