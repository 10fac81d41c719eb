// support_cases.support_context: business_refs rows ({doctype, name}) hydrated from the ERP's own
// documents. A ref whose DocType is not kept here, or whose document does not exist, becomes a
// missing-object marker; a document found whose links to related documents (its Integration
// Event, the invoice a staged intake was posted to, ...) are empty or dangling becomes a
// partial-enrichment marker naming those links. Nothing is invented for what is absent.

import type { DatabaseSync } from 'node:sqlite';
import { readDocument } from '../readback.ts';
import type { ErpDocument } from '../database/documents.ts';
import { READABLE_DOCTYPES } from '../resources/routes.ts';
import type { BusinessRef } from './normalize-event.ts';

/** The link fields of each DocType the enrichment follows: field -> the DocType it names. */
const LINKS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'Sales Invoice': { revenue_event: 'Revenue Event' },
  'Purchase Invoice': { supplier_intake: 'Supplier Intake' },
  'Revenue Event': { integration_event: 'Integration Event', sales_invoice: 'Sales Invoice' },
  'Supplier Intake': { integration_event: 'Integration Event', purchase_invoice: 'Purchase Invoice' },
  Lead: { first_integration_event: 'Integration Event' },
};

export interface HydratedObject {
  doctype: string;
  name: string;
  docstatus: number;
  status: unknown;
  modified: string;
  document: ErpDocument;
  related: { field: string; doctype: string; name: string; status: unknown }[];
}

export interface MissingMarker {
  doctype: string;
  name: string;
  reason: 'unknown_doctype' | 'not_found';
}

export interface PartialMarker {
  doctype: string;
  name: string;
  missing_links: { field: string; doctype: string; reason: 'empty' | 'not_found' }[];
}

export interface SupportContext {
  hydrated: HydratedObject[];
  missing: MissingMarker[];
  partial: PartialMarker[];
}

export function hydrateContext(sqlite: DatabaseSync, refs: readonly BusinessRef[]): SupportContext {
  const context: SupportContext = { hydrated: [], missing: [], partial: [] };
  for (const ref of refs) {
    if (!READABLE_DOCTYPES.includes(ref.doctype)) {
      context.missing.push({ ...ref, reason: 'unknown_doctype' });
      continue;
    }
    const doc = readDocument(sqlite, ref.doctype, ref.name);
    if (!doc) {
      context.missing.push({ ...ref, reason: 'not_found' });
      continue;
    }
    const related: HydratedObject['related'] = [];
    const gaps: PartialMarker['missing_links'] = [];
    for (const [field, doctype] of Object.entries(LINKS[ref.doctype] ?? {})) {
      const target = doc[field];
      if (typeof target !== 'string' || target === '') {
        gaps.push({ field, doctype, reason: 'empty' });
        continue;
      }
      const linked = readDocument(sqlite, doctype, target);
      if (linked) related.push({ field, doctype, name: target, status: linked['status'] ?? null });
      else gaps.push({ field, doctype, reason: 'not_found' });
    }
    context.hydrated.push({ doctype: doc.doctype, name: doc.name, docstatus: doc.docstatus, status: doc['status'] ?? null, modified: doc.modified, document: doc, related });
    if (gaps.length > 0) context.partial.push({ doctype: doc.doctype, name: doc.name, missing_links: gaps });
  }
  return context;
}

/** The counts an inbound answer carries (the whole context is one support_context call away). */
export function hydrationSummary(context: SupportContext): Record<string, unknown> {
  return {
    requested: context.hydrated.length + context.missing.length,
    hydrated: context.hydrated.length,
    missing: context.missing.map(({ doctype, name, reason }) => ({ doctype, name, reason })),
    partial: context.partial.map(({ doctype, name, missing_links }) => ({ doctype, name, missing_links: missing_links.map((l) => l.field) })),
  };
}
