// The realistic request mix the ERP performance gate drives: signed webhooks of all four kinds
// (fresh event ids, so every one is a real intake), integration-status reads, and posting calls
// on what the run itself staged. Signing uses the service's own secret variables.

import { randomBytes } from 'node:crypto';
import { signRequest } from '../../src/kernel/index.ts';

export interface GateSecrets {
  PAYMENT_A_WEBHOOK_SECRET: string;
  PAYMENT_B_WEBHOOK_SECRET: string;
  AUTOMATION_SHARED_SECRET: string;
  ERP_API_SHARED_SECRET: string;
  /** "key:secret", the first pair of ERP_API_KEYS. */
  apiKeyPair: string;
}

export interface PlannedRequest {
  kind: string;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Reads the answer's message to feed later posting calls. */
  onAnswer?: (message: Record<string, unknown>) => void;
}

const METHOD = '/api/method/erp_core.api.';
/** Out of 20 requests: what the mix sends. */
const WHEEL = ['payment_b', 'status', 'payment_a', 'supplier_intake', 'payment_b', 'website_contact_intake', 'status', 'post_supplier_intake', 'payment_b', 'status', 'payment_a', 'website_contact_intake', 'supplier_intake', 'post_revenue_event', 'payment_b', 'status', 'payment_a', 'supplier_intake', 'website_contact_intake', 'post_revenue_event'] as const;

export function createLoadMix(secrets: GateSecrets): { next(): PlannedRequest; kinds: readonly string[] } {
  const run = randomBytes(4).toString('hex');
  let counter = 0;
  const intakes: string[] = [];
  const revenue: string[] = [];
  const now = () => Math.floor(Date.now() / 1000);
  const json = (value: unknown) => Buffer.from(JSON.stringify(value));
  const post = (kind: string, headers: Record<string, string>, body: Buffer, onAnswer?: PlannedRequest['onAnswer']): PlannedRequest => ({
    kind, method: 'POST', path: `${METHOD}webhooks.${kind}`, headers: { ...headers, 'content-type': 'application/json' }, body, ...(onAnswer && { onAnswer }),
  });
  const keep = (list: string[], field: string) => (message: Record<string, unknown>) => {
    if (typeof message[field] === 'string' && list.length < 10_000) list.push(message[field] as string);
  };
  const posting = (kind: 'post_supplier_intake' | 'post_revenue_event', list: string[]): PlannedRequest | undefined => {
    const name = list.shift();
    if (name === undefined) return undefined;
    return { kind, method: 'POST', path: `${METHOD}workflows.${kind}`, headers: { authorization: `token ${secrets.apiKeyPair}`, 'content-type': 'application/json' }, body: json({ name }) };
  };

  function make(kind: (typeof WHEEL)[number], id: string): PlannedRequest {
    switch (kind) {
      case 'payment_a': {
        const body = json({ id: `evt_${id}`, object: 'event', type: 'payment_intent.succeeded', data: { object: { id: `pi_${id}`, object: 'payment_intent', amount_received: 4999, currency: 'eur', customer: `cus_${id}` } } });
        return post(kind, signRequest('stripe', { rawBody: body, secret: secrets.PAYMENT_A_WEBHOOK_SECRET, now: now() }), body, keep(revenue, 'revenue_event'));
      }
      case 'payment_b': {
        const body = json({ type: 'payment.succeeded', timestamp: new Date().toISOString(), data: { id: `pay_${id}`, amount: '12.30', currency: 'EUR', customer: `c-${id}@example.test` } });
        return post(kind, signRequest('standard-webhooks', { rawBody: body, secret: secrets.PAYMENT_B_WEBHOOK_SECRET, now: now(), id: `msg_${id}` }), body, keep(revenue, 'revenue_event'));
      }
      case 'supplier_intake': {
        const body = json({ event_id: `sup-${id}`, vendor: { name: 'Performance Gate Supplier' }, invoice: { number: `PG-${id}`, currency: 'EUR' }, totals: { net_total: '0.30', tax_total: '0.06', grand_total: '0.36' }, line_items: [{ description: 'a', amount: '0.10' }, { description: 'b', amount: '0.20' }] });
        return post(kind, signRequest('house', { rawBody: body, secret: secrets.AUTOMATION_SHARED_SECRET, now: now() }), body, keep(intakes, 'supplier_intake'));
      }
      case 'website_contact_intake': {
        const body = json({ event_id: `web-${id}`, contact: { email: `lead-${id}@example.test`, first_name: 'Gate' }, interest: { product: 'erp' }, site: { domain: 'example.test' } });
        return post(kind, signRequest('house', { rawBody: body, secret: secrets.ERP_API_SHARED_SECRET, now: now() }), body);
      }
      case 'post_supplier_intake':
        return posting(kind, intakes) ?? make('status', id);
      case 'post_revenue_event':
        return posting(kind, revenue) ?? make('status', id);
      case 'status':
        return { kind, method: 'GET', path: `${METHOD}health.integration_status`, headers: {} };
    }
  }

  return {
    kinds: [...new Set(WHEEL)],
    next() {
      const n = counter++;
      return make(WHEEL[n % WHEEL.length]!, `${run}-${n}`);
    },
  };
}
