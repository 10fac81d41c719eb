// workflows.post_revenue_event: a draft Sales Invoice (docstatus 0) from a staged Revenue Event;
// a refund becomes a return invoice (is_return 1, negative amounts). Posting twice answers with
// the same draft; a Revenue Event that cannot be posted is put in the posting error state, which
// keeps its answer until `force` re-evaluates it (as for supplier intake).

import type { DatabaseSync } from 'node:sqlite';
import type { Transaction } from '../../kernel/index.ts';
import { findByIdentity, getDocument, insertDocument, updateDocument } from '../database/documents.ts';
import type { ErpDocument } from '../database/documents.ts';
import { frappeThrow } from '../frappe/envelope.ts';
import { formatAmount, parseDecimalAmount, sumAmounts } from '../money.ts';
import type { WebhookSource } from '../webhooks/record-delivery.ts';
import { paymentIdentity, refundsOfPayment } from '../webhooks/stage-stripe-refunds.ts';
import type { PostingAnswer } from './post-supplier-intake.ts';

/** A refund's customer is its original payment's: read it again, as the payment may have arrived (or named its customer) since. */
function customerOf(sqlite: DatabaseSync, event: ErpDocument): unknown {
  if (typeof event['customer'] === 'string' && event['customer'] !== '') return event['customer'];
  if (event['event_kind'] !== 'refund' || typeof event['payment_reference'] !== 'string') return event['customer'];
  const payment = findByIdentity(sqlite, 'Revenue Event', `${String(event['provider'])}:payment:${event['payment_reference']}`);
  return payment?.['customer'] ?? null;
}

/**
 * Refunds of a payment never post for more than it: the refunds of it already posted plus this one
 * stay within its amount, in its currency. A refund can be staged before its payment arrives (and
 * so without that check at intake); posting is where it holds. Without the payment, nothing to check.
 */
function beyondPayment(sqlite: DatabaseSync, event: ErpDocument, minor: bigint, currency: string): string | null {
  if (event['event_kind'] !== 'refund') return null;
  const source = String(event['provider']) as WebhookSource;
  const reference = String(event['payment_reference'] ?? event['provider_reference']);
  const payment = findByIdentity(sqlite, 'Revenue Event', paymentIdentity(source, reference));
  if (!payment) return null;
  const paid = `payment "${reference}" of ${String(payment['amount'])} ${String(payment['currency'])}`;
  if (payment['currency'] !== currency) return `the refund is in ${currency}, ${paid}`;
  const posted = refundsOfPayment(sqlite, source, reference).filter((doc) => doc.name !== event.name && doc['status'] === 'Posted');
  const total = sumAmounts([minor, ...posted.map((doc) => parseDecimalAmount(doc['amount'], currency, 'amount'))]);
  if (total <= parseDecimalAmount(payment['amount'], currency, 'amount')) return null;
  return `refunds would add up to more than ${paid}: ${formatAmount(total, currency)} with this one${posted.length > 0 ? ` (posted: ${posted.map((doc) => doc.name).join(', ')})` : ''}`;
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
  const beyond = beyondPayment(sqlite, event, minor, currency);
  if (beyond !== null) errors.push(beyond);
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
