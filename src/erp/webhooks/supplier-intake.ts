// Supplier intake: normalized JSON that may nest vendor, invoice, totals, line_items and
// attachments (metadata only). Amounts are checked as exact decimals in the invoice currency and
// kept as decimal strings; whether they add up is the posting lane's question, not intake's.

import type { DatabaseSync } from 'node:sqlite';
import type { Transaction } from '../../kernel/index.ts';
import { insertDocument } from '../database/documents.ts';
import { asObject, optionalObject, optionalString, refuseExtra, requiredString } from '../fields.ts';
import type { Json } from '../fields.ts';
import { frappeThrow } from '../frappe/envelope.ts';
import { formatAmount, parseCurrency, parseDecimalAmount } from '../money.ts';
import type { Effect, EffectOutcome } from './record-delivery.ts';

const MAX_LINES = 500;
const MAX_ATTACHMENTS = 50;

export interface SupplierIntakeFields extends Record<string, unknown> {
  vendor: { name: string; tax_id: string | null; email: string | null };
  bill_no: string;
  bill_date: string | null;
  due_date: string | null;
  currency: string;
  totals: { net_total: string | null; tax_total: string; grand_total: string; currency: string | null };
  items: { description: string; qty: string; rate: string | null; amount: string; currency: string | null }[];
  attachments: { filename: string; content_type: string | null; size: number | null; sha256: string | null }[];
}

export function normalizeSupplierIntake(body: unknown): { eventId: string | undefined; fields: SupplierIntakeFields } {
  const payload = asObject(body, 'payload');
  refuseExtra(payload, ['event_id', 'vendor', 'invoice', 'totals', 'line_items', 'attachments'], '');
  const vendor = asObject(payload['vendor'], 'vendor');
  const invoice = asObject(payload['invoice'], 'invoice');
  const totals = asObject(payload['totals'], 'totals');
  const currency = parseCurrency(invoice['currency'], 'invoice.currency');
  const amount = (value: unknown, field: string) => formatAmount(parseDecimalAmount(value, currency, field), currency);
  const lines = payload['line_items'] ?? [];
  if (!Array.isArray(lines)) frappeThrow('Field "line_items" must be a list');
  if (lines.length > MAX_LINES) frappeThrow(`Field "line_items" has more than ${MAX_LINES} lines`);
  const attachments = payload['attachments'] ?? [];
  if (!Array.isArray(attachments)) frappeThrow('Field "attachments" must be a list');
  if (attachments.length > MAX_ATTACHMENTS) frappeThrow(`Field "attachments" has more than ${MAX_ATTACHMENTS} entries`);
  return {
    eventId: optionalString(payload, 'event_id', '', 140),
    fields: {
      vendor: { name: requiredString(vendor, 'name', 'vendor.', 140), tax_id: optionalString(vendor, 'tax_id', 'vendor.', 64) ?? null, email: optionalString(vendor, 'email', 'vendor.') ?? null },
      bill_no: requiredString(invoice, 'number', 'invoice.', 140),
      bill_date: optionalString(invoice, 'date', 'invoice.', 32) ?? null,
      due_date: optionalString(invoice, 'due_date', 'invoice.', 32) ?? null,
      currency,
      totals: {
        net_total: totals['net_total'] === undefined ? null : amount(totals['net_total'], 'totals.net_total'),
        tax_total: totals['tax_total'] === undefined ? formatAmount(0n, currency) : amount(totals['tax_total'], 'totals.tax_total'),
        grand_total: amount(totals['grand_total'], 'totals.grand_total'),
        currency: totals['currency'] === undefined ? null : parseCurrency(totals['currency'], 'totals.currency'),
      },
      items: lines.map((line: unknown, index: number) => {
        const at = `line_items[${index}].`;
        const l = asObject(line, `line_items[${index}]`);
        const qty = l['qty'] ?? 1;
        if (!(typeof qty === 'number' && Number.isFinite(qty) && qty > 0) && !(typeof qty === 'string' && /^\d{1,9}(\.\d{1,6})?$/.test(qty))) frappeThrow(`Field "${at}qty" must be a positive number`);
        return {
          description: requiredString(l, 'description', at, 500),
          qty: String(qty),
          rate: l['rate'] === undefined ? null : amount(l['rate'], `${at}rate`),
          amount: amount(l['amount'], `${at}amount`),
          currency: l['currency'] === undefined ? null : parseCurrency(l['currency'], `${at}currency`),
        };
      }),
      attachments: attachments.map((entry: unknown, index: number) => attachmentMetadata(asObject(entry, `attachments[${index}]`), `attachments[${index}].`)),
    },
  };
}

function attachmentMetadata(entry: Json, at: string): SupplierIntakeFields['attachments'][number] {
  // Metadata only: the bytes travel another way, and a body full of base64 is refused here.
  refuseExtra(entry, ['filename', 'content_type', 'size', 'sha256', 'url'], at);
  const size = entry['size'];
  if (size !== undefined && !(typeof size === 'number' && Number.isSafeInteger(size) && size >= 0)) frappeThrow(`Field "${at}size" must be a whole number of bytes`);
  const sha = optionalString(entry, 'sha256', at, 64);
  if (sha !== undefined && !/^[0-9a-f]{64}$/.test(sha)) frappeThrow(`Field "${at}sha256" must be 64 lower-case hex digits`);
  return { filename: requiredString(entry, 'filename', at, 255), content_type: optionalString(entry, 'content_type', at, 127) ?? null, size: typeof size === 'number' ? size : null, sha256: sha ?? null };
}

export function stageSupplierIntake(fields: SupplierIntakeFields): Effect {
  return (sqlite: DatabaseSync, tx: Transaction, at: Date, integrationEvent: string): EffectOutcome => {
    const doc = insertDocument(sqlite, tx, {
      doctype: 'Supplier Intake',
      owner: 'webhook:supplier_intake',
      at,
      fields: { ...fields, supplier_name: fields.vendor.name, grand_total: fields.totals.grand_total, integration_event: integrationEvent, status: 'Staged', purchase_invoice: null, posting_errors: [] },
    });
    return {
      status: 'processed',
      targetDoctype: 'Supplier Intake',
      targetName: doc.name,
      message: { ok: true, integration_event: integrationEvent, source: 'supplier_intake', status: 'processed', target_doctype: 'Supplier Intake', supplier_intake: doc.name },
    };
  };
}
