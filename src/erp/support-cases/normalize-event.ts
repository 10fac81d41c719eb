// A support-desk event (ticket or message) read strictly and normalized by the rules data:
// desk state -> lifecycle, desk priority -> priority, lifecycle -> status label, attachment
// metadata by the field map, business-ref shortcuts -> {doctype, name} rows, and the governance
// producer event type. Every refusal is a ValidationError (417) naming the field and what is allowed.

import { asObject, isObject, optionalString, refuseExtra, requiredString } from '../fields.ts';
import type { Json } from '../fields.ts';
import { describeType } from '../frappe/args.ts';
import { frappeThrow } from '../frappe/envelope.ts';
import type { Lifecycle, NormalizationRules, Priority } from './normalization-rules.ts';

export interface BusinessRef {
  doctype: string;
  name: string;
}

export interface Attachment {
  filename?: string;
  size?: number;
  content_type?: string;
}

export interface SupportEvent {
  eventId: string;
  kind: 'ticket' | 'message';
  ticketId: string;
  sequence: number;
  deskState: string;
  lifecycle: Lifecycle;
  priority: Priority;
  statusLabel: string;
  title: string | undefined;
  article: { subject?: string; from?: string; body_sha256?: string; attachments: Attachment[] } | undefined;
  businessRefs: BusinessRef[];
  correlationId: string | undefined;
  occurredAt: string | undefined;
  governanceEvent: string;
}

const TOP = ['event_id', 'kind', 'ticket_id', 'sequence', 'state', 'priority', 'title', 'article', 'business_refs', 'refs', 'correlation_id', 'occurred_at'];
const ID = /^[A-Za-z0-9._:-]{1,140}$/;
export const MAX_BUSINESS_REFS = 50;

function pick<T>(map: Record<string, T>, raw: string, field: string): T {
  const value = map[raw.trim().toLowerCase()];
  if (value === undefined) frappeThrow(`Field "${field}" has the unknown value ${JSON.stringify(raw)}: allowed are ${Object.keys(map).join(', ')}`);
  return value;
}

function ticketId(value: unknown): string {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return String(value);
  if (typeof value === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(value)) return value;
  frappeThrow(`Field "ticket_id" must be a positive integer or an id of 1 to 64 letters, digits, ".", "_" or "-", got ${describeType(value)}`);
}

function sequenceOf(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) frappeThrow(`Field "sequence" must be a non-negative integer, got ${JSON.stringify(value) ?? describeType(value)}`);
  return value;
}

/** The value at a dotted path ("preferences.Content-Type") of an attachment object. */
function at(object: Json, path: string): unknown {
  let current: unknown = object;
  for (const part of path.split('.')) current = isObject(current) ? current[part] : undefined;
  return current;
}

function attachments(value: unknown, rules: NormalizationRules): Attachment[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) frappeThrow(`Field "article.attachments" must be a list, got ${describeType(value)}`);
  if (value.length > rules.attachments.max_count) frappeThrow(`Field "article.attachments" has ${value.length} entries: at most ${rules.attachments.max_count}`);
  return value.map((item, index) => {
    const object = asObject(item, `article.attachments[${index}]`);
    const out: Attachment = {};
    for (const [path, field] of Object.entries(rules.attachments.fields)) {
      const raw = at(object, path);
      if (raw === undefined || raw === null || out[field] !== undefined) continue;
      if (field === 'size') {
        const size = typeof raw === 'string' && /^[0-9]{1,15}$/.test(raw) ? Number(raw) : raw;
        if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) frappeThrow(`Field "article.attachments[${index}].${path}" must be a byte count`);
        if (size > rules.attachments.max_size_bytes) frappeThrow(`Attachment ${index} is ${size} bytes: at most ${rules.attachments.max_size_bytes}`);
        out.size = size;
      } else {
        if (typeof raw !== 'string' || raw.length > 255) frappeThrow(`Field "article.attachments[${index}].${path}" must be a string of at most 255 characters`);
        out[field] = raw;
      }
    }
    return out;
  });
}

/** business_refs rows plus the shortcuts of `refs` ({"sales_invoice": "ACC-SINV-..."}), deduplicated. */
export function businessRefs(rows: unknown, shortcuts: unknown, rules: NormalizationRules | undefined): BusinessRef[] {
  const refs: BusinessRef[] = [];
  if (rows !== undefined && rows !== null) {
    if (!Array.isArray(rows)) frappeThrow(`Field "business_refs" must be a list of {doctype, name}, got ${describeType(rows)}`);
    rows.forEach((row, index) => {
      const object = asObject(row, `business_refs[${index}]`);
      refuseExtra(object, ['doctype', 'name'], `business_refs[${index}].`);
      refs.push({ doctype: requiredString(object, 'doctype', `business_refs[${index}].`, 140), name: requiredString(object, 'name', `business_refs[${index}].`, 140) });
    });
  }
  if (shortcuts !== undefined && shortcuts !== null && rules) {
    const object = asObject(shortcuts, 'refs');
    for (const [key, value] of Object.entries(object)) {
      const doctype = rules.business_ref_shortcuts[key];
      if (doctype === undefined) frappeThrow(`Field "refs.${key}" is not a business-ref shortcut: allowed are ${Object.keys(rules.business_ref_shortcuts).join(', ')}`);
      refs.push({ doctype, name: requiredString(object, key, 'refs.', 140) });
    }
  }
  const unique = [...new Map(refs.map((r) => [`${r.doctype}\u0000${r.name}`, r])).values()];
  if (unique.length > MAX_BUSINESS_REFS) frappeThrow(`At most ${MAX_BUSINESS_REFS} business refs, got ${unique.length}`);
  return unique;
}

export function normalizeSupportEvent(body: unknown, rules: NormalizationRules, bodySha: (text: string) => string): SupportEvent {
  const payload = asObject(body, 'payload');
  refuseExtra(payload, TOP, '');
  const eventId = requiredString(payload, 'event_id', '', 140);
  if (!ID.test(eventId)) frappeThrow('Field "event_id" must be 1 to 140 of letters, digits, ".", "_", ":" or "-"');
  const kind = requiredString(payload, 'kind', '', 16);
  if (kind !== 'ticket' && kind !== 'message') frappeThrow(`Field "kind" must be ticket or message, got ${JSON.stringify(kind)}`);
  const deskState = requiredString(payload, 'state', '', 64);
  const lifecycle = pick(rules.lifecycle, deskState, 'state');
  const priority = pick(rules.priority, requiredString(payload, 'priority', '', 64), 'priority');
  let article: SupportEvent['article'];
  const rawArticle = payload['article'];
  if (rawArticle !== undefined && rawArticle !== null) {
    const object = asObject(rawArticle, 'article');
    refuseExtra(object, ['subject', 'from', 'body', 'attachments'], 'article.');
    const text = optionalString(object, 'body', 'article.', 100_000);
    const subject = optionalString(object, 'subject', 'article.', 255);
    const from = optionalString(object, 'from', 'article.', 255);
    // The body itself stays with the desk: the evidence keeps its digest, never customer text twice.
    article = { ...(subject !== undefined && { subject }), ...(from !== undefined && { from }), ...(text !== undefined && { body_sha256: bodySha(text) }), attachments: attachments(object['attachments'], rules) };
  } else if (kind === 'message') frappeThrow('Field "article" is required for kind message');
  const correlationId = optionalString(payload, 'correlation_id', '', 128);
  if (correlationId !== undefined && !/^[A-Za-z0-9._:-]{1,128}$/.test(correlationId)) frappeThrow('Field "correlation_id" must be 1 to 128 of letters, digits, ".", "_", ":" or "-"');
  const occurredAt = optionalString(payload, 'occurred_at', '', 40);
  if (occurredAt !== undefined && (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(occurredAt) || Number.isNaN(Date.parse(occurredAt)))) frappeThrow('Field "occurred_at" must be an RFC 3339 date-time');
  return {
    eventId,
    kind,
    ticketId: ticketId(payload['ticket_id']),
    sequence: sequenceOf(payload['sequence']),
    deskState,
    lifecycle,
    priority,
    statusLabel: rules.status_labels[lifecycle],
    title: optionalString(payload, 'title', '', 255),
    article,
    businessRefs: businessRefs(payload['business_refs'], payload['refs'], rules),
    correlationId,
    occurredAt,
    governanceEvent: kind === 'message' ? rules.governance_event_types.message : rules.governance_event_types.ticket[lifecycle],
  };
}
