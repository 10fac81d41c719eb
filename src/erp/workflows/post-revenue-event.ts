// workflows.post_revenue_event: a draft Sales Invoice (docstatus 0) from a staged Revenue Event;
// a refund becomes a return invoice (is_return 1, negative amounts). Posting twice answers with
// the same draft; a Revenue Event that cannot be posted is put in the posting error state.

import type { DatabaseSync } from 'node:sqlite';
import type { Transaction } from '../../kernel/index.ts';
import { getDocument, insertDocument, updateDocument } from '../database/documents.ts';
import { frappeThrow } from '../frappe/envelope.ts';
import { formatAmount, parseDecimalAmount } from '../money.ts';
import type { PostingAnswer } from './post-supplier-intake.ts';

export function postRevenueEvent(sqlite: DatabaseSync, tx: Transaction, input: { name: string; at: Date; owner: string }): PostingAnswer {
  const event = getDocument(sqlite, 'Revenue Event', input.name) ?? frappeThrow(`Revenue Event ${input.name} not found`, 'DoesNotExistError');
  const base = { revenue_event: event.name };
  if (typeof event['sales_invoice'] === 'string') return { ...base, status: 'posted', created: false, sales_invoice: event['sales_invoice'], docstatus: 0 };
  const currency = String(event['currency']);
  const minor = parseDecimalAmount(event['amount'], currency, 'amount');
  const errors: string[] = [];
  if (typeof event['customer'] !== 'string' || event['customer'] === '') errors.push('no customer: the provider event named none, so the invoice has no one to bill');
  if (minor <= 0n) errors.push(`amount ${formatAmount(minor, currency)} is not positive`);
  if (errors.length > 0) {
    // The same facts give the same reasons: the error state is written once, not per attempt.
    if (event['status'] !== 'Posting Error') updateDocument(sqlite, tx, event, { status: 'Posting Error', posting_errors: errors }, input.at);
    return { ...base, status: 'error', created: false, errors };
  }
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
  updateDocument(sqlite, tx, event, { status: 'Posted', sales_invoice: invoice.name, posting_errors: [] }, input.at);
  return { ...base, status: 'posted', created: true, sales_invoice: invoice.name, docstatus: 0, grand_total: total, currency };
}
