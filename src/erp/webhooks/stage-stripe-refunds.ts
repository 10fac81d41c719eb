// Stripe refunds as Stripe models them: a Refund object (`re_...`) of one payment is one refund
// Revenue Event, whichever of its events (refund.created, charge.refunded) arrives first or again.
// charge.refunded adds only the refunds not seen yet: those its `refunds` list names, and the rest
// of its cumulative `amount_refunded` as one refund not yet attributed to a Refund id (a later
// refund.created of the same amount claims it instead of staging a second). The customer and the
// currency are the original payment's; the refunds of a payment never add up to more than it.

import type { DatabaseSync } from 'node:sqlite';
import type { Transaction } from '../../kernel/index.ts';
import { statement } from '../../kernel/index.ts';
import { findByIdentity, insertDocument, updateDocument } from '../database/documents.ts';
import type { ErpDocument } from '../database/documents.ts';
import { formatAmount, parseDecimalAmount, sumAmounts } from '../money.ts';
import type { StripeRefundFacts } from './payment-events.ts';
import type { EffectOutcome, WebhookSource } from './record-delivery.ts';

/** The identity prefix of every refund of one payment (the unique (doctype, identity) index answers a range of it). */
function refundPrefix(source: WebhookSource, paymentReference: string): string {
  return `${source}:refund:${paymentReference}:`;
}

/** The identity of the original payment's Revenue Event (stage-revenue-event.ts). */
export function paymentIdentity(source: WebhookSource, paymentReference: string): string {
  return `${source}:payment:${paymentReference}`;
}

function refundsOf(sqlite: DatabaseSync, prefix: string): ErpDocument[] {
  // ';' follows ':' in every collation SQLite uses here: the range is exactly the prefix.
  return statement(sqlite, "SELECT data FROM erp_documents WHERE doctype = 'Revenue Event' AND identity >= ? AND identity < ? ORDER BY identity")
    .all(prefix, `${prefix.slice(0, -1)};`)
    .map((row) => JSON.parse(String(row['data'])) as ErpDocument);
}

export function stageStripeRefunds(sqlite: DatabaseSync, tx: Transaction, input: { source: WebhookSource; facts: StripeRefundFacts; at: Date; integrationEvent: string; base: Record<string, unknown> }): EffectOutcome {
  const { source, facts, at, integrationEvent, base } = input;
  const payment = findByIdentity(sqlite, 'Revenue Event', paymentIdentity(source, facts.payment_reference));
  const currency = payment ? String(payment['currency']) : facts.currency;
  const recorded = (note: string, target?: string): EffectOutcome => ({
    status: 'recorded',
    ...(target !== undefined && { targetDoctype: 'Revenue Event', targetName: target }),
    message: { ...base, status: 'recorded', target_doctype: 'Revenue Event', revenue_event: target ?? null, revenue_events: [], business_effect: null, note },
  });
  if (currency !== facts.currency) return recorded(`The refund is in ${facts.currency}, payment "${facts.payment_reference}" was in ${currency}: nothing staged`);
  const minor = (text: string) => parseDecimalAmount(text, currency, 'amount');
  const prefix = refundPrefix(source, facts.payment_reference);
  const staged = refundsOf(sqlite, prefix);
  let total = sumAmounts(staged.map((doc) => minor(String(doc['amount']))));
  const cap = payment ? minor(String(payment['amount'])) : null;
  const created: string[] = [];
  const seen: string[] = [];
  const exceeded: string[] = [];
  const stage = (refundId: string | null, amount: bigint, reference: string) => {
    if (cap !== null && total + amount > cap) {
      exceeded.push(reference);
      return;
    }
    const doc = insertDocument(sqlite, tx, {
      doctype: 'Revenue Event',
      identity: `${prefix}${reference}`,
      owner: `webhook:${source}`,
      at,
      fields: {
        provider: source, event_kind: 'refund', amount: formatAmount(amount, currency), currency,
        customer: payment ? (payment['customer'] ?? null) : facts.customer,
        provider_reference: reference, refund_id: refundId, payment_reference: facts.payment_reference, charge: facts.charge,
        integration_event: integrationEvent, status: 'Staged',
      },
    });
    total += amount;
    staged.push(doc);
    created.push(doc.name);
  };
  for (const refund of facts.refunds) {
    const amount = minor(refund.amount);
    const known = staged.find((doc) => doc['refund_id'] === refund.id);
    if (known) {
      seen.push(known.name);
      continue;
    }
    // charge.refunded came first and staged this amount without a Refund id: this is that refund.
    const unattributed = staged.find((doc) => doc['refund_id'] === null && minor(String(doc['amount'])) === amount);
    if (unattributed) {
      Object.assign(unattributed, updateDocument(sqlite, tx, unattributed, { refund_id: refund.id }, at));
      seen.push(unattributed.name);
      continue;
    }
    stage(refund.id, amount, refund.id);
  }
  if (facts.amount_refunded !== null) {
    const rest = minor(facts.amount_refunded) - total;
    if (rest > 0n) stage(null, rest, `${facts.charge}:amount_refunded:${facts.amount_refunded}`);
  }
  const first = created[0] ?? seen[0];
  if (created.length > 0) {
    return {
      status: 'processed',
      targetDoctype: 'Revenue Event',
      targetName: created[0]!,
      message: { ...base, status: 'processed', target_doctype: 'Revenue Event', revenue_event: created[0], revenue_events: created, business_effect: 'revenue_event_staged', ...(exceeded.length > 0 && { note: `Not staged, as they would refund more than payment "${facts.payment_reference}": ${exceeded.join(', ')}` }) },
    };
  }
  if (exceeded.length > 0) return recorded(`Refunds of payment "${facts.payment_reference}" would add up to more than its ${formatAmount(cap!, currency)} ${currency}: nothing staged`, first);
  return recorded(`Every refund this event names for payment "${facts.payment_reference}" is already staged${first === undefined ? '' : ` (${[...new Set(seen)].join(', ')})`}`, first);
}
