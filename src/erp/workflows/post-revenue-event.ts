// workflows.post_revenue_event: a draft Sales Invoice (docstatus 0) from a staged Revenue Event;
// a refund becomes a return invoice (is_return 1, negative amounts). Posting twice answers with
// the same draft; a Revenue Event that cannot be posted is put in the posting error state, which
// keeps its answer until `force` re-evaluates it (as for supplier intake).

import type { DatabaseSync } from 'node:sqlite';
import type { Transaction } from '../../kernel/index.ts';
import { findByIdentity, getDocument, insertDocument, updateDocument } from '../database/documents.ts';
import type { ErpDocument } from '../database/documents.ts';
import { frappeThrow } from '../frappe/envelope.ts';
import { formatAmount, parseDecimalAmount } from '../money.ts';
import type { PostingAnswer } from './post-supplier-intake.ts';

/** A refund's customer is its original payment's: read it again, as the payment may have arrived (or named its customer) since. */
function customerOf(sqlite: DatabaseSync, event: ErpDocument): unknown {
  if (typeof event['customer'] === 'string' && event['customer'] !== '') return event['customer'];
  if (event['event_kind'] !== 'refund' || typeof event['payment_reference'] !== 'string') return event['customer'];
  const payment = findByIdentity(sqlite, 'Revenue Event', `${String(event['provider'])}:payment:${event['payment_reference']}`);
  return payment?.['customer'] ?? null;
}

export function postRevenueEvent(sqlite: DatabaseSync, tx: Transaction, input: { name: string; force: boolean; at: Date; owner: string }): PostingAnswer {
  let event = getDocument(sqlite, 'Revenue Event', input.name) ?? frappeThrow(`Revenue Event ${input.name} not found`, 'DoesNotExistError');
  const base = { revenue_event: event.name };
  if (typeof event['sales_invoice'] === 'string') return { ...base, status: 'posted', created: false, sales_invoice: event['sales_invoice'], docstatus: 0 };
  if (event['status'] === 'Posting Error' && !input.force) return { ...base, status: 'error', created: false, errors: event['posting_errors'] as string[], hint: 'send force=1 to retry' };
  const currency = String(event['currency']);
  const minor = parseDecimalAmount(event['amount'], currency, 'amount');
  const customer = customerOf(sqlite, event);
  const errors: string[] = [];
  if (typeof customer !== 'string' || customer === '') errors.push(`no customer: ${event['event_kind'] === 'refund' ? 'neither the refund nor its original payment named one' : 'the provider event named none'}, so the invoice has no one to bill; when a later event names it, retry with force=1`);
  if (minor <= 0n) errors.push(`amount ${formatAmount(minor, currency)} is not positive`);
  const attempts = Number(event['posting_attempts'] ?? 0) + 1;
  if (errors.length > 0) {
    updateDocument(sqlite, tx, event, { status: 'Posting Error', posting_errors: errors, posting_attempts: attempts }, input.at);
    return { ...base, status: 'error', created: false, errors };
  }
  if (customer !== event['customer']) event = updateDocument(sqlite, tx, event, { customer }, input.at);
  const isReturn = event['event_kind'] === 'refund';
  const total = formatAmount(isReturn ? -minor : minor, currency);
  const invoice = insertDocument(sqlite, tx, {
    doctype: 'Sales Invoice',
    owner: input.owner,
    at: input.at,
    fields: {
      customer: event['customer'],
      currency,
      is_return: isReturn ? 1 : 0,
      items: [{ idx: 1, item_name: `${isReturn ? 'Refund' : 'Payment'} ${String(event['provider_reference'])}`, qty: isReturn ? '-1' : '1', rate: formatAmount(minor, currency), amount: total }],
      net_total: total,
      grand_total: total,
      revenue_event: event.name,
      provider_reference: event['provider_reference'],
    },
  });
  updateDocument(sqlite, tx, event, { status: 'Posted', sales_invoice: invoice.name, posting_errors: [], posting_attempts: attempts }, input.at);
  return { ...base, status: 'posted', created: true, sales_invoice: invoice.name, docstatus: 0, grand_total: total, currency };
}
