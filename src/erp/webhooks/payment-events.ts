// Payment-provider events, normalized. payment_a speaks Stripe's event object ({id, type,
// data.object}); payment_b speaks Standard Webhooks ({type, timestamp, data}, its id in the
// webhook-id header). Payment-succeeded events become a staged Revenue Event (amount, currency,
// customer, provider reference); refunds too, Stripe's as Refund objects of their payment
// (stage-stripe-refunds.ts); every other type is recorded without business effect.

import { formatAmount, parseCurrency, parseDecimalAmount, parseMinorUnits } from '../money.ts';
import { asObject, optionalString, requiredString } from '../fields.ts';
import type { Json } from '../fields.ts';
import { frappeThrow } from '../frappe/envelope.ts';

export interface PaymentFacts {
  kind: 'payment' | 'refund';
  /** Decimal string in the currency's minor unit. */
  amount: string;
  currency: string;
  customer: string | null;
  /** The payment's own id at the provider (a refund's id for a refund). */
  provider_reference: string;
}

/**
 * A Stripe refund event as Stripe models it: Refund objects (`re_...`) of one payment. refund.created
 * names one; charge.refunded names the charge's cumulative `amount_refunded` and, when the API
 * version renders it, its `refunds` list. Amounts are decimal strings in `currency`.
 */
export interface StripeRefundFacts {
  /** The original payment's reference: its payment intent, else its charge. */
  payment_reference: string;
  charge: string | null;
  currency: string;
  customer: string | null;
  refunds: { id: string; amount: string }[];
  /** charge.refunded: everything refunded of the charge so far; null for refund.created. */
  amount_refunded: string | null;
}

export interface NormalizedPayment {
  providerEventId: string;
  eventType: string;
  /** Present for the event types that stage revenue (payments, and payment_b's refunds). */
  facts?: PaymentFacts;
  /** payment_a's refund events. */
  stripeRefund?: StripeRefundFacts;
}

/** Stripe event types that carry a completed payment, and the field that holds its amount. */
const STRIPE_PAYMENT: Readonly<Record<string, string>> = {
  'payment_intent.succeeded': 'amount_received',
  'charge.succeeded': 'amount',
  'checkout.session.completed': 'amount_total',
};
const MAX_REFUNDS = 100;

export function normalizeStripeEvent(body: unknown): NormalizedPayment {
  const event = asObject(body, 'event');
  const providerEventId = requiredString(event, 'id', '');
  const eventType = requiredString(event, 'type', '');
  const payment = STRIPE_PAYMENT[eventType];
  const isRefund = eventType === 'charge.refunded' || eventType === 'refund.created';
  if (!payment && !isRefund) return { providerEventId, eventType };
  const object = asObject(asObject(event['data'], 'data')['object'], 'data.object');
  const currency = parseCurrency(object['currency'], 'data.object.currency');
  if (isRefund) return { providerEventId, eventType, stripeRefund: stripeRefundFacts(eventType, object, currency) };
  const minor = parseMinorUnits(object[payment!] ?? object['amount'], `data.object.${payment!}`);
  // One payment can arrive as several events (charge and payment_intent): both name the intent.
  const reference = optionalString(object, 'payment_intent', 'data.object.') ?? requiredString(object, 'id', 'data.object.');
  return { providerEventId, eventType, facts: { kind: 'payment', amount: formatAmount(minor, currency), currency, customer: stripeCustomer(object), provider_reference: reference } };
}

function stripeRefundFacts(eventType: string, object: Json, currency: string): StripeRefundFacts {
  const amount = (value: unknown, field: string) => formatAmount(parseMinorUnits(value, field), currency);
  const intent = optionalString(object, 'payment_intent', 'data.object.') ?? null;
  if (eventType === 'refund.created') {
    // data.object is the Refund: its id, amount, and the charge and payment intent it refunds.
    const id = requiredString(object, 'id', 'data.object.');
    const charge = optionalString(object, 'charge', 'data.object.') ?? null;
    const paymentReference = intent ?? charge ?? frappeThrow('Field "data.object.payment_intent" or "data.object.charge" is required: a refund names the payment it refunds');
    return { payment_reference: paymentReference, charge, currency, customer: null, refunds: [{ id, amount: amount(object['amount'], 'data.object.amount') }], amount_refunded: null };
  }
  // charge.refunded: data.object is the Charge.
  const charge = requiredString(object, 'id', 'data.object.');
  const listed = object['refunds'] === undefined || object['refunds'] === null ? [] : asObject(object['refunds'], 'data.object.refunds')['data'];
  if (!Array.isArray(listed)) frappeThrow('Field "data.object.refunds.data" must be a list of Refund objects');
  if (listed.length > MAX_REFUNDS) frappeThrow(`Field "data.object.refunds.data" lists more than ${MAX_REFUNDS} refunds`);
  const refunds = listed.map((entry, index) => {
    const refund = asObject(entry, `data.object.refunds.data[${index}]`);
    return { id: requiredString(refund, 'id', `data.object.refunds.data[${index}].`), amount: amount(refund['amount'], `data.object.refunds.data[${index}].amount`) };
  });
  return { payment_reference: intent ?? charge, charge, currency, customer: stripeCustomer(object), refunds, amount_refunded: amount(object['amount_refunded'], 'data.object.amount_refunded') };
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
  const minor = typeof data['amount'] === 'string' ? parseDecimalAmount(data['amount'], currency, 'data.amount') : parseMinorUnits(data['amount'], 'data.amount', { alsoDecimal: true });
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
