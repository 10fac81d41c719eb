// Stripe refunds as Stripe models them: a Refund object (`re_...`) of one payment is one refund
// Revenue Event, whichever of its events (refund.created, charge.refunded) arrives first or again.
// charge.refunded adds only the refunds not seen yet: those its `refunds` list names, and the rest
// of its cumulative `amount_refunded` as one refund not yet attributed to a Refund id. What is
// staged is the larger of Stripe's two figures, amount_refunded and the Refunds known, so a later
// refund.created that amount already counted stages nothing (it names or is listed in that refund).
// The customer and the currency are the original payment's; the refunds of a payment never add up
// to more than it.

import type { DatabaseSync } from 'node:sqlite';
import type { Transaction } from '../../kernel/index.ts';
import { statement } from '../../kernel/index.ts';
import { findByIdentity, insertDocument, storedDocSql, updateDocument } from '../database/documents.ts';
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

/** Every refund Revenue Event of one payment: Stripe's under the payment's prefix, payment_b's one refund under `<source>:refund:<payment>`. */
export function refundsOfPayment(sqlite: DatabaseSync, source: WebhookSource, paymentReference: string): ErpDocument[] {
  const prefix = refundPrefix(source, paymentReference);
  const single = findByIdentity(sqlite, 'Revenue Event', prefix.slice(0, -1));
  return [...(single ? [single] : []), ...refundsOf(sqlite, prefix)];
}

/** A Refund counted inside a Revenue Event staged from a cumulative amount_refunded before its id was known. */
interface CoveredRefund {
  refund_id: string;
  amount: string;
}

function refundsOf(sqlite: DatabaseSync, prefix: string): ErpDocument[] {
  // ';' follows ':' in every collation SQLite uses here: the range is exactly the prefix.
  return statement(sqlite, `SELECT ${storedDocSql('d')} AS data FROM erp_documents AS d WHERE d.doctype = 'Revenue Event' AND d.identity >= ? AND d.identity < ? ORDER BY d.identity`)
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
  // Every Refund Stripe has named for this payment, once, at its full amount: with a Revenue Event
  // of its own, or counted inside one staged from a cumulative amount_refunded (covered_refunds).
  const known = new Map<string, bigint>();
  for (const doc of staged) {
    if (typeof doc['refund_id'] === 'string') known.set(doc['refund_id'], minor(String(doc['refund_amount'] ?? doc['amount'])));
    for (const covered of (doc['covered_refunds'] as CoveredRefund[] | undefined) ?? []) known.set(covered.refund_id, minor(covered.amount));
  }
  // What is staged follows what Stripe said was refunded: the most of this event's amount_refunded
  // and the sum of the Refunds known. Neither is ever more than was refunded, whatever order the
  // events arrive in, and once every refund.created is in, the second is exactly it.
  const refunded = () => {
    const refunds = sumAmounts([...known.values()]);
    const cumulative = facts.amount_refunded === null ? 0n : minor(facts.amount_refunded);
    return refunds > cumulative ? refunds : cumulative;
  };
  const created: string[] = [];
  const seen: string[] = [];
  const exceeded: string[] = [];
  const stage = (refundId: string | null, amount: bigint, reference: string, fullAmount: bigint = amount): boolean => {
    if (cap !== null && total + amount > cap) {
      exceeded.push(reference);
      return false;
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
        ...(fullAmount !== amount && { refund_amount: formatAmount(fullAmount, currency) }),
        integration_event: integrationEvent, status: 'Staged',
      },
    });
    total += amount;
    staged.push(doc);
    created.push(doc.name);
    return true;
  };
  const update = (doc: ErpDocument, fields: Record<string, unknown>) => {
    Object.assign(doc, updateDocument(sqlite, tx, doc, fields, at));
    seen.push(doc.name);
  };
  for (const refund of facts.refunds) {
    const amount = minor(refund.amount);
    if (known.has(refund.id)) {
      const holder = staged.find((doc) => doc['refund_id'] === refund.id || ((doc['covered_refunds'] as CoveredRefund[] | undefined) ?? []).some((c) => c.refund_id === refund.id));
      if (holder) seen.push(holder.name);
      continue;
    }
    known.set(refund.id, amount);
    const fresh = refunded() - total;
    if (fresh > 0n) {
      // Money not staged yet: all of this Refund, or the part of it an earlier amount_refunded did not count.
      if (!stage(refund.id, fresh < amount ? fresh : amount, refund.id, amount)) known.delete(refund.id);
      continue;
    }
    // Already counted by a charge.refunded that came first: this is (part of) that staged amount.
    const unattributed = staged.filter((doc) => doc['refund_id'] === null);
    const same = unattributed.find((doc) => minor(String(doc['amount'])) === amount && ((doc['covered_refunds'] as CoveredRefund[] | undefined) ?? []).length === 0);
    if (same) {
      update(same, { refund_id: refund.id });
      continue;
    }
    const holder = unattributed.at(-1) ?? staged.at(-1);
    if (holder) update(holder, { covered_refunds: [...((holder['covered_refunds'] as CoveredRefund[] | undefined) ?? []), { refund_id: refund.id, amount: formatAmount(amount, currency) }] });
  }
  if (facts.amount_refunded !== null) {
    const rest = refunded() - total;
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
