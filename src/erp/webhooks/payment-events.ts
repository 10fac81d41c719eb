// Payment-provider events, normalized. payment_a speaks Stripe's event object ({id, type,
// data.object}); payment_b speaks Standard Webhooks ({type, timestamp, data}, its id in the
// webhook-id header). Payment-succeeded and refund events become a staged Revenue Event (amount,
// currency, customer, provider reference); every other type is recorded without business effect.

import { formatAmount, parseCurrency, parseDecimalAmount, parseMinorUnits } from '../money.ts';
import { asObject, optionalString, requiredString } from '../fields.ts';
import type { Json } from '../fields.ts';

export interface PaymentFacts {
  kind: 'payment' | 'refund';
  /** Decimal string in the currency's minor unit. */
  amount: string;
  currency: string;
  customer: string | null;
  /** The payment's own id at the provider (a refund's id for a refund). */
  provider_reference: string;
}

export interface NormalizedPayment {
  providerEventId: string;
  eventType: string;
  /** Present for the event types that stage revenue. */
  facts?: PaymentFacts;
}

/** Stripe event types that carry a completed payment, and the field that holds its amount. */
const STRIPE_PAYMENT: Readonly<Record<string, string>> = {
  'payment_intent.succeeded': 'amount_received',
  'charge.succeeded': 'amount',
  'checkout.session.completed': 'amount_total',
};
const STRIPE_REFUND: Readonly<Record<string, string>> = { 'charge.refunded': 'amount_refunded', 'refund.created': 'amount' };

export function normalizeStripeEvent(body: unknown): NormalizedPayment {
  const event = asObject(body, 'event');
  const providerEventId = requiredString(event, 'id', '');
  const eventType = requiredString(event, 'type', '');
  const payment = STRIPE_PAYMENT[eventType];
  const refund = STRIPE_REFUND[eventType];
  if (!payment && !refund) return { providerEventId, eventType };
  const object = asObject(asObject(event['data'], 'data')['object'], 'data.object');
  const currency = parseCurrency(object['currency'], 'data.object.currency');
  const amountField = (payment ?? refund)!;
  const minor = parseMinorUnits(object[amountField] ?? object['amount'], `data.object.${amountField}`);
  // One payment can arrive as several events (charge and payment_intent): both name the intent.
  const reference = refund ? requiredString(object, 'id', 'data.object.') : (optionalString(object, 'payment_intent', 'data.object.') ?? requiredString(object, 'id', 'data.object.'));
  return { providerEventId, eventType, facts: { kind: refund ? 'refund' : 'payment', amount: formatAmount(minor, currency), currency, customer: stripeCustomer(object), provider_reference: reference } };
}

function stripeCustomer(object: Json): string | null {
  if (typeof object['customer'] === 'string' && object['customer'] !== '') return object['customer'];
  for (const key of ['customer_details', 'billing_details']) {
    const details = object[key] as Json | null | undefined;
    if (details && typeof details['email'] === 'string') return details['email'];
  }
  return typeof object['receipt_email'] === 'string' ? object['receipt_email'] : null;
}

const STANDARD_PAYMENT = new Set(['payment.succeeded', 'payment.completed']);
const STANDARD_REFUND = new Set(['payment.refunded', 'refund.succeeded']);

/** data.amount is an integer of minor units or a decimal string; data.id is the payment's reference. */
export function normalizeStandardEvent(body: unknown, webhookId: string): NormalizedPayment {
  const event = asObject(body, 'payload');
  const eventType = requiredString(event, 'type', '');
  const isPayment = STANDARD_PAYMENT.has(eventType);
  const isRefund = STANDARD_REFUND.has(eventType);
  if (!isPayment && !isRefund) return { providerEventId: webhookId, eventType };
  const data = asObject(event['data'], 'data');
  const currency = parseCurrency(data['currency'], 'data.currency');
  const minor = typeof data['amount'] === 'string' ? parseDecimalAmount(data['amount'], currency, 'data.amount') : parseMinorUnits(data['amount'], 'data.amount');
  return {
    providerEventId: webhookId,
    eventType,
    facts: {
      kind: isRefund ? 'refund' : 'payment',
      amount: formatAmount(minor, currency),
      currency,
      customer: optionalString(data, 'customer', 'data.') ?? null,
      provider_reference: requiredString(data, 'id', 'data.'),
    },
  };
}
