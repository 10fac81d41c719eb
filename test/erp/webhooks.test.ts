import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { signRequest } from '../../src/kernel/index.ts';
import { getDocument } from '../../src/erp/database/documents.ts';
import { send } from '../helpers/http.ts';
import { SECRETS, frappeErrorText, postHouse, postStandard, postStripe, startErp, tableCounts } from './_service.ts';
import type { Running } from './_service.ts';

let erp: Running;
before(async () => {
  erp = await startErp();
});
after(() => erp.stop());

const PAYMENT_A = '/api/method/erp_core.api.webhooks.payment_a';
const stripeEvent = (id: string, type = 'payment_intent.succeeded', object: Record<string, unknown> = {}) => ({
  id,
  object: 'event',
  type,
  data: { object: { id: `pi_${id}`, object: 'payment_intent', amount_received: 1999, currency: 'usd', customer: 'cus_42', ...object } },
});

function doc(doctype: string, name: string): Record<string, unknown> {
  return getDocument(erp.service.store.sqlite, doctype, name)!;
}

describe('webhooks.payment_a (Stripe-compatible)', () => {
  test('a payment_intent.succeeded stages one Revenue Event in exact money; the redelivery answers the same and changes nothing', async () => {
    const first = await postStripe(erp.url, stripeEvent('evt_a1'));
    assert.equal(first.status, 200, first.text);
    const message = (first.json() as { message: Record<string, string> }).message;
    assert.equal(message['business_effect'], 'revenue_event_staged');
    const revenue = doc('Revenue Event', message['revenue_event']!);
    assert.deepEqual([revenue['amount'], revenue['currency'], revenue['customer'], revenue['provider_reference'], revenue['docstatus']], ['19.99', 'USD', 'cus_42', 'pi_evt_a1', 0]);
    const event = doc('Integration Event', message['integration_event']!);
    assert.equal(event['source'], 'payment_a');
    assert.equal(event['provider_event_id'], 'evt_a1');
    assert.match(String(event['raw_body_sha256']), /^[0-9a-f]{64}$/);
    const before = tableCounts(erp.service);
    const again = await postStripe(erp.url, stripeEvent('evt_a1'));
    assert.equal(again.status, 200);
    assert.equal(again.text, first.text);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(tableCounts(erp.service), before);
  });

  test('concurrent redeliveries of one event take effect once', async () => {
    const before = tableCounts(erp.service);
    const answers = await Promise.all(Array.from({ length: 8 }, () => postStripe(erp.url, stripeEvent('evt_race'))));
    assert.ok(answers.every((a) => a.status === 200 && a.text === answers[0]!.text));
    const after = tableCounts(erp.service);
    assert.equal(after['integration_events']! - before['integration_events']!, 1);
  });

  test('a refund stages a refund Revenue Event; a second event for the same payment stages nothing new', async () => {
    const refund = await postStripe(erp.url, stripeEvent('evt_r1', 'charge.refunded', { id: 'ch_9', object: 'charge', amount_refunded: 500, amount: 1999 }));
    const message = (refund.json() as { message: Record<string, string> }).message;
    assert.equal(doc('Revenue Event', message['revenue_event']!)['event_kind'], 'refund');
    assert.equal(doc('Revenue Event', message['revenue_event']!)['amount'], '5.00');
    // Stripe sends charge.succeeded beside payment_intent.succeeded: both name the intent.
    const charge = await postStripe(erp.url, stripeEvent('evt_a1_charge', 'charge.succeeded', { id: 'ch_1', object: 'charge', amount: 1999, payment_intent: 'pi_evt_a1' }));
    const second = (charge.json() as { message: Record<string, unknown> }).message;
    assert.equal(second['business_effect'], null);
    assert.match(String(second['note']), /already staged/);
  });

  test('other event types are recorded and acknowledged without business effect, and say so', async () => {
    const before = tableCounts(erp.service);
    const answer = await postStripe(erp.url, stripeEvent('evt_o1', 'customer.created'));
    const message = (answer.json() as { message: Record<string, unknown> }).message;
    assert.deepEqual([message['status'], message['business_effect']], ['recorded', null]);
    assert.match(String(message['note']), /without business effect/);
    assert.equal(tableCounts(erp.service)['document_events'], before['document_events']);
  });

  test('bad, stale and missing signatures: one fixed 401 in Frappe form, nothing stored', async () => {
    const before = tableCounts(erp.service);
    const raw = Buffer.from(JSON.stringify(stripeEvent('evt_bad')));
    const wrong = await postStripe(erp.url, stripeEvent('evt_bad'), { secret: 'whsec_other' });
    const stale = await postStripe(erp.url, stripeEvent('evt_bad'), { at: Math.floor(Date.now() / 1000) - 301 });
    const missing = await send(`${erp.url}${PAYMENT_A}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: raw });
    const good = signRequest('stripe', { rawBody: raw, secret: SECRETS.PAYMENT_A_WEBHOOK_SECRET, now: Math.floor(Date.now() / 1000) });
    const tampered = await send(`${erp.url}${PAYMENT_A}`, { method: 'POST', headers: { ...good, 'content-type': 'application/json' }, body: Buffer.concat([raw, Buffer.from(' ')]) });
    const texts = new Set([wrong, stale, missing, tampered].map((r) => `${r.status} ${r.text}`));
    assert.equal(texts.size, 1, [...texts].join('\n'));
    assert.equal(wrong.status, 401);
    assert.equal(frappeErrorText(wrong).exc_type, 'AuthenticationError');
    assert.deepEqual(tableCounts(erp.service), before);
  });

  test('malformed JSON, wrong types, missing fields, oversized and non-JSON bodies: 4xx Frappe errors, nothing stored', async () => {
    const before = tableCounts(erp.service);
    const signedRaw = (raw: Buffer, type = 'application/json') => {
      const headers = signRequest('stripe', { rawBody: raw, secret: SECRETS.PAYMENT_A_WEBHOOK_SECRET, now: Math.floor(Date.now() / 1000) });
      return send(`${erp.url}${PAYMENT_A}`, { method: 'POST', headers: { ...headers, 'content-type': type }, body: raw });
    };
    const cases: [string, Promise<import('../helpers/http.ts').TestResponse>, number][] = [
      ['malformed', signedRaw(Buffer.from('{"id": "evt_x", ')), 417],
      ['duplicate names', signedRaw(Buffer.from('{"id":"evt_x","id":"evt_y","type":"customer.created"}')), 417],
      ['not an object', signedRaw(Buffer.from('[1,2]')), 417],
      ['missing type', postStripe(erp.url, { id: 'evt_x' }), 417],
      ['amount as float', postStripe(erp.url, stripeEvent('evt_f', 'payment_intent.succeeded', { amount_received: 19.99 })), 417],
      ['bad currency', postStripe(erp.url, stripeEvent('evt_c', 'payment_intent.succeeded', { currency: 'dollars' })), 417],
      ['oversized', signedRaw(Buffer.alloc(1024 * 1024 + 1, 32)), 413],
      ['not JSON', signedRaw(Buffer.from('id=evt_x'), 'application/x-www-form-urlencoded'), 415],
    ];
    for (const [label, pending, status] of cases) {
      const response = await pending;
      assert.equal(response.status, status, `${label}: ${response.text}`);
      assert.ok(frappeErrorText(response).message.length > 0, label);
    }
    assert.deepEqual(tableCounts(erp.service), before);
  });

  test('GET on a webhook is refused with 405 and Allow, in Frappe form', async () => {
    const response = await send(`${erp.url}${PAYMENT_A}`);
    assert.equal(response.status, 405);
    assert.equal(response.headers['allow'], 'POST');
    assert.equal(frappeErrorText(response).exc_type, 'PermissionError');
  });
});

describe('webhooks.payment_b (Standard Webhooks)', () => {
  test('payment.succeeded with a decimal amount stages a Revenue Event; the same webhook-id is a redelivery', async () => {
    const payload = { type: 'payment.succeeded', timestamp: '2026-01-01T00:00:00Z', data: { id: 'pay_b1', amount: '10.10', currency: 'EUR', customer: 'c@x.test' } };
    const first = await postStandard(erp.url, payload, { id: 'msg_b1' });
    assert.equal(first.status, 200, first.text);
    const name = (first.json() as { message: Record<string, string> }).message['revenue_event']!;
    assert.equal(doc('Revenue Event', name)['amount'], '10.10');
    const before = tableCounts(erp.service);
    const again = await postStandard(erp.url, payload, { id: 'msg_b1' });
    assert.equal(again.text, first.text);
    assert.deepEqual(tableCounts(erp.service), before);
  });

  test('integer minor units, refunds, and unknown types', async () => {
    const paid = await postStandard(erp.url, { type: 'payment.succeeded', data: { id: 'pay_b2', amount: 250, currency: 'JPY' } });
    const name = (paid.json() as { message: Record<string, string> }).message['revenue_event']!;
    assert.equal(doc('Revenue Event', name)['amount'], '250');
    const refunded = await postStandard(erp.url, { type: 'payment.refunded', data: { id: 'pay_b2', amount: 100, currency: 'JPY' } });
    assert.equal(doc('Revenue Event', (refunded.json() as { message: Record<string, string> }).message['revenue_event']!)['event_kind'], 'refund');
    const other = await postStandard(erp.url, { type: 'invoice.created', data: {} });
    assert.equal((other.json() as { message: Record<string, unknown> }).message['status'], 'recorded');
  });

  test('a stale timestamp, a missing webhook-id and three decimals in EUR are refused; nothing stored', async () => {
    const before = tableCounts(erp.service);
    const payload = { type: 'payment.succeeded', data: { id: 'pay_bx', amount: '1.005', currency: 'EUR' } };
    const stale = await postStandard(erp.url, { ...payload, data: { ...payload.data, amount: '1.00' } }, { at: Math.floor(Date.now() / 1000) - 600 });
    assert.equal(stale.status, 401);
    const raw = Buffer.from(JSON.stringify(payload));
    const headers = signRequest('standard-webhooks', { rawBody: raw, secret: SECRETS.PAYMENT_B_WEBHOOK_SECRET, now: Math.floor(Date.now() / 1000), id: 'msg_x' });
    const noId = await send(`${erp.url}/api/method/erp_core.api.webhooks.payment_b`, { method: 'POST', headers: { ...headers, 'webhook-id': undefined, 'content-type': 'application/json' }, body: raw });
    assert.equal(noId.status, 401);
    const decimals = await postStandard(erp.url, payload);
    assert.equal(decimals.status, 417);
    assert.match(frappeErrorText(decimals).message, /3 decimals; EUR allows 2/);
    assert.deepEqual(tableCounts(erp.service), before);
  });
});

describe('webhooks.supplier_intake', () => {
  const intake = { event_id: 'sup-1', vendor: { name: 'Acme Parts GmbH', tax_id: 'DE123' }, invoice: { number: 'B-77', currency: 'EUR', date: '2026-01-05' }, totals: { net_total: '100.00', tax_total: '19.00', grand_total: '119.00' }, line_items: [{ description: 'Bolts', qty: 2, rate: '50.00', amount: '100.00' }], attachments: [{ filename: 'b-77.pdf', content_type: 'application/pdf', size: 1024 }] };

  test('stages a Supplier Intake with nested vendor, invoice, totals, lines and attachment metadata; redelivery is the same answer', async () => {
    const first = await postHouse(erp.url, 'supplier_intake', intake);
    assert.equal(first.status, 200, first.text);
    const name = (first.json() as { message: Record<string, string> }).message['supplier_intake']!;
    const staged = doc('Supplier Intake', name);
    assert.deepEqual([staged['status'], staged['docstatus'], staged['bill_no'], (staged['totals'] as Record<string, string>)['grand_total']], ['Staged', 0, 'B-77', '119.00']);
    const before = tableCounts(erp.service);
    assert.equal((await postHouse(erp.url, 'supplier_intake', intake)).text, first.text);
    assert.deepEqual(tableCounts(erp.service), before);
  });

  test('missing vendor, unknown fields, attachment content, bad signature: 4xx, nothing stored', async () => {
    const before = tableCounts(erp.service);
    const bad: [unknown, number, RegExp][] = [
      [{ ...intake, event_id: 'x1', vendor: undefined }, 417, /vendor/],
      [{ ...intake, event_id: 'x2', surprise: 1 }, 417, /Unknown field "surprise"/],
      [{ ...intake, event_id: 'x3', attachments: [{ filename: 'a.pdf', content: 'JVBERi0=' }] }, 417, /attachments\[0\]\.content/],
      [{ ...intake, event_id: 'x4', line_items: 'none' }, 417, /line_items/],
      [{ ...intake, event_id: 'x5', totals: { grand_total: 1.234 } }, 417, /decimals/],
    ];
    for (const [payload, status, pattern] of bad) {
      const response = await postHouse(erp.url, 'supplier_intake', payload);
      assert.equal(response.status, status, response.text);
      assert.match(frappeErrorText(response).message, pattern);
    }
    assert.equal((await postHouse(erp.url, 'supplier_intake', intake, { secret: SECRETS.ERP_API_SHARED_SECRET })).status, 401);
    assert.deepEqual(tableCounts(erp.service), before);
  });
});

describe('webhooks.website_contact_intake', () => {
  test('one Lead per e-mail: the same address (any case) updates, never duplicates; the answer has the four fields', async () => {
    const first = await postHouse(erp.url, 'website_contact_intake', { contact: { email: 'Ada@Example.test', first_name: 'Ada' }, interest: { product: 'erp' }, site: { domain: 'example.test' } });
    const message = (first.json() as { message: Record<string, unknown> }).message;
    assert.deepEqual(Object.keys(message).sort(), ['ack', 'integration_event', 'lead', 'target_doctype']);
    assert.equal(message['target_doctype'], 'Lead');
    assert.equal(message['ack'], true);
    const second = await postHouse(erp.url, 'website_contact_intake', { contact: { email: 'ada@example.test', company: 'Analytical Engines' }, profiling: { size: '10-50' } });
    const again = (second.json() as { message: Record<string, unknown> }).message;
    assert.equal(again['lead'], message['lead']);
    assert.notEqual(again['integration_event'], message['integration_event']);
    const lead = doc('Lead', String(message['lead']));
    assert.deepEqual([lead['email_id'], lead['first_name'], lead['company_name'], lead['source']], ['ada@example.test', 'Ada', 'Analytical Engines', 'Website']);
    const leads = erp.service.store.sqlite.prepare("SELECT count(*) AS n FROM erp_documents WHERE doctype = 'Lead' AND identity = 'ada@example.test'").get()!;
    assert.equal(Number(leads['n']), 1);
  });

  test('missing or malformed e-mail, wrong section types, wrong secret: refused, nothing stored', async () => {
    const before = tableCounts(erp.service);
    for (const payload of [{ contact: {} }, { contact: { email: 'not-an-address' } }, { contact: { email: 'a@b.test' }, interest: 7 }, { contact: 'a@b.test' }, {}]) {
      const response = await postHouse(erp.url, 'website_contact_intake', payload);
      assert.equal(response.status, 417, response.text);
      assert.equal(frappeErrorText(response).exc_type, 'ValidationError');
    }
    assert.equal((await postHouse(erp.url, 'website_contact_intake', { contact: { email: 'a@b.test' } }, { secret: SECRETS.AUTOMATION_SHARED_SECRET })).status, 401);
    assert.deepEqual(tableCounts(erp.service), before);
  });
});

describe('error wording (review)', () => {
  test('an absent value is "nothing", not "a undefined"; payment_b names the decimal strings it accepts; the ceiling is named', async () => {
    const noData = await postStripe(erp.url, { id: 'evt_nodata', type: 'payment_intent.succeeded' });
    assert.equal(frappeErrorText(noData).message, 'Field "data" must be an object, got nothing');
    const float = await postStandard(erp.url, { type: 'payment.succeeded', data: { id: 'pay_f', amount: 1.5, currency: 'USD' } });
    assert.equal(frappeErrorText(float).message, 'Field "data.amount" must be a whole number of minor units or a decimal string such as "12.50", got 1.5');
    const stripeFloat = await postStripe(erp.url, stripeEvent('evt_wf', 'payment_intent.succeeded', { amount_received: 1.5 }));
    assert.equal(frappeErrorText(stripeFloat).message, 'Field "data.object.amount_received" must be a whole number of minor units, got 1.5');
    const huge = await postStandard(erp.url, { type: 'payment.succeeded', data: { id: 'pay_h', amount: 10 ** 15 + 1, currency: 'USD' } });
    assert.match(frappeErrorText(huge).message, /at most 10\^15 minor units/);
    for (const r of [noData, float, stripeFloat, huge]) assert.ok(!/a undefined/.test(r.text));
  });
});
