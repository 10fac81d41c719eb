// The business effect of a payment event: one staged Revenue Event per provider payment (or
// payment_b refund). A second event for the same payment is recorded on its Integration Event
// only, except that it fills in a customer the first event did not name (so a posting error of
// "no customer" can be retried with force). Stripe's refunds follow Stripe's Refund model
// (stage-stripe-refunds.ts).

import type { DatabaseSync } from 'node:sqlite';
import type { Transaction } from '../../kernel/index.ts';
import { findByIdentity, insertDocument, updateDocument } from '../database/documents.ts';
import type { NormalizedPayment } from './payment-events.ts';
import type { Effect, EffectOutcome, WebhookSource } from './record-delivery.ts';
import { paymentIdentity, stageStripeRefunds } from './stage-stripe-refunds.ts';

export function stageRevenueEvent(source: WebhookSource, payment: NormalizedPayment): Effect {
  return (sqlite: DatabaseSync, tx: Transaction, at: Date, integrationEvent: string): EffectOutcome => {
    const base = { ok: true, integration_event: integrationEvent, source, event_type: payment.eventType };
    if (payment.stripeRefund) return stageStripeRefunds(sqlite, tx, { source, facts: payment.stripeRefund, at, integrationEvent, base });
    const facts = payment.facts;
    if (!facts) {
      return { status: 'recorded', message: { ...base, status: 'recorded', business_effect: null, note: `Event type "${payment.eventType}" is recorded without business effect` } };
    }
    const identity = facts.kind === 'payment' ? paymentIdentity(source, facts.provider_reference) : `${source}:${facts.kind}:${facts.provider_reference}`;
    const existing = findByIdentity(sqlite, 'Revenue Event', identity);
    if (existing) {
      const fills = (existing['customer'] === null || existing['customer'] === undefined) && facts.customer !== null;
      if (fills) updateDocument(sqlite, tx, existing, { customer: facts.customer }, at);
      return {
        status: 'recorded',
        targetDoctype: 'Revenue Event',
        targetName: existing.name,
        message: { ...base, status: 'recorded', target_doctype: 'Revenue Event', revenue_event: existing.name, business_effect: fills ? 'customer_filled_in' : null, note: `Payment "${facts.provider_reference}" is already staged as ${existing.name}${fills ? '; this event named its customer' : ''}` },
      };
    }
    const doc = insertDocument(sqlite, tx, {
      doctype: 'Revenue Event',
      identity,
      owner: `webhook:${source}`,
      at,
      fields: { provider: source, event_kind: facts.kind, amount: facts.amount, currency: facts.currency, customer: facts.customer, provider_reference: facts.provider_reference, integration_event: integrationEvent, status: 'Staged' },
    });
    return {
      status: 'processed',
      targetDoctype: 'Revenue Event',
      targetName: doc.name,
      message: { ...base, status: 'processed', target_doctype: 'Revenue Event', revenue_event: doc.name, business_effect: 'revenue_event_staged' },
    };
  };
}
