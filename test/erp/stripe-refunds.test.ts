// Stripe refunds as Stripe models them (review reproductions): one real refund sends
// charge.refunded and refund.created, in either order, and stages exactly one refund; a second
// partial refund of the same charge is staged too (30.00 of 50.00 known as refunded); refunds of a
// payment never exceed it; the customer and currency are the original payment's. Also: a Revenue
// Event in the posting error state is retried with force, and a known event id with other bytes is
// a 409 conflict that stores nothing, on every webhook.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { getDocument, storedDocSql } from '../../src/erp/database/documents.ts';
import type { TestResponse } from '../helpers/http.ts';
import { callMethod, frappeErrorText, postHouse, postStandard, postStripe, startErp, tableCounts } from './_service.ts';
import type { Running } from './_service.ts';

let erp: Running;
before(async () => {
  erp = await startErp();
});
after(() => erp.stop());

const message = (r: TestResponse) => (r.json() as { message: Record<string, any> }).message;
const event = (id: string, type: string, object: Record<string, unknown>) => ({ id, object: 'event', type, data: { object } });
const paid = (pi: string, amount: number, customer: string | null = 'cus_1') => event(`evt_${pi}_paid`, 'payment_intent.succeeded', { id: pi, object: 'payment_intent', amount_received: amount, currency: 'usd', ...(customer && { customer }) });
const refundCreated = (id: string, re: string, pi: string, amount: number) => event(id, 'refund.created', { id: re, object: 'refund', amount, charge: `ch_${pi}`, payment_intent: pi, currency: 'usd', status: 'succeeded' });
const chargeRefunded = (id: string, pi: string, amountRefunded: number, refunds?: { id: string; amount: number }[]) => event(id, 'charge.refunded', { id: `ch_${pi}`, object: 'charge', amount: 5000, amount_refunded: amountRefunded, payment_intent: pi, currency: 'usd', customer: 'cus_1', ...(refunds && { refunds: { object: 'list', data: refunds.map((r) => ({ object: 'refund', ...r })) } }) });

function refundsOf(pi: string): Record<string, unknown>[] {
  return erp.service.store.sqlite.prepare(`SELECT doc FROM (SELECT ${storedDocSql('d')} AS doc FROM erp_documents AS d WHERE d.doctype = 'Revenue Event') WHERE doc ->> '$.event_kind' = 'refund' AND doc ->> '$.payment_reference' = ?`).all(pi).map((row) => JSON.parse(String(row['doc'])) as Record<string, unknown>);
}

describe('Stripe refunds', () => {
  test('one real refund (charge.refunded, then refund.created) stages exactly one refund, which posts with the payment\'s customer', async () => {
    assert.equal((await postStripe(erp.url, paid('pi_one', 5000))).status, 200);
    const first = message(await postStripe(erp.url, chargeRefunded('evt_one_c', 'pi_one', 2000)));
    assert.equal(first['business_effect'], 'revenue_event_staged');
    const second = message(await postStripe(erp.url, refundCreated('evt_one_r', 're_one', 'pi_one', 2000)));
    assert.deepEqual([second['business_effect'], second['revenue_event']], [null, first['revenue_event']]);
    const refunds = refundsOf('pi_one');
    assert.equal(refunds.length, 1);
    assert.deepEqual([refunds[0]!['amount'], refunds[0]!['customer'], refunds[0]!['refund_id'], refunds[0]!['currency']], ['20.00', 'cus_1', 're_one', 'USD']);
    const posted = message(await callMethod(erp.url, 'workflows.post_revenue_event', { name: first['revenue_event'] }));
    assert.deepEqual([posted['status'], posted['grand_total']], ['posted', '-20.00']);
  });

  test('the other order (refund.created, then charge.refunded) also stages one refund', async () => {
    await postStripe(erp.url, paid('pi_two', 5000));
    const first = message(await postStripe(erp.url, refundCreated('evt_two_r', 're_two', 'pi_two', 1500)));
    assert.equal(first['business_effect'], 'revenue_event_staged');
    const second = message(await postStripe(erp.url, chargeRefunded('evt_two_c', 'pi_two', 1500)));
    assert.equal(second['business_effect'], null);
    assert.equal(refundsOf('pi_two').length, 1);
  });

  test('a second partial refund of the same charge is staged: 30.00 of 50.00 is known as refunded; more than the payment is not', async () => {
    await postStripe(erp.url, paid('pi_part', 5000));
    await postStripe(erp.url, refundCreated('evt_p1r', 're_p1', 'pi_part', 2000));
    await postStripe(erp.url, chargeRefunded('evt_p1c', 'pi_part', 2000));
    const second = message(await postStripe(erp.url, chargeRefunded('evt_p2c', 'pi_part', 3000)));
    assert.equal(second['business_effect'], 'revenue_event_staged');
    await postStripe(erp.url, refundCreated('evt_p2r', 're_p2', 'pi_part', 1000));
    const refunds = refundsOf('pi_part');
    assert.deepEqual(refunds.map((r) => [r['amount'], r['refund_id']]).sort(), [['10.00', 're_p2'], ['20.00', 're_p1']]);
    const before = tableCounts(erp.service);
    const over = message(await postStripe(erp.url, refundCreated('evt_p3r', 're_p3', 'pi_part', 2500)));
    assert.equal(over['business_effect'], null);
    assert.match(String(over['note']), /more than its 50\.00 USD/);
    assert.equal(refundsOf('pi_part').length, 2);
    assert.equal(tableCounts(erp.service)['erp_documents'], before['erp_documents']);
  });

  test('out of order: two refunds whose charge.refunded snapshots both arrive first stage 30.00 of 50.00, not 50.00', async () => {
    // Real refunds of 20.00 (re_o1) then 10.00 (re_o2); Stripe sends charge.refunded after each
    // (amount_refunded 2000, then 3000, no refunds list since API 2022-11-15) and refund.created
    // for each. They arrive: the newer snapshot, the older one, then both refund.created.
    await postStripe(erp.url, paid('pi_ooo', 5000));
    await postStripe(erp.url, chargeRefunded('evt_o2c', 'pi_ooo', 3000));
    await postStripe(erp.url, chargeRefunded('evt_o1c', 'pi_ooo', 2000));
    const first = message(await postStripe(erp.url, refundCreated('evt_o1r', 're_o1', 'pi_ooo', 2000)));
    const second = message(await postStripe(erp.url, refundCreated('evt_o2r', 're_o2', 'pi_ooo', 1000)));
    const total = refundsOf('pi_ooo').reduce((sum, r) => sum + Number(r['amount']), 0);
    assert.equal(total, 30, JSON.stringify(refundsOf('pi_ooo')));
    assert.deepEqual([first['business_effect'], second['business_effect']], [null, null]);
    assert.match(String(second['note']), /already staged/);
  });

  test('a refund the cumulative amount_refunded already counted is kept, so the refund it did not count is staged when it comes', async () => {
    // charge.refunded after re_k1 (20.00) arrives first; then re_k2 (10.00, made later) and re_k1.
    await postStripe(erp.url, paid('pi_keep', 5000));
    await postStripe(erp.url, chargeRefunded('evt_k1c', 'pi_keep', 2000));
    await postStripe(erp.url, refundCreated('evt_k2r', 're_k2', 'pi_keep', 1000));
    await postStripe(erp.url, refundCreated('evt_k1r', 're_k1', 'pi_keep', 2000));
    await postStripe(erp.url, chargeRefunded('evt_k2c', 'pi_keep', 3000));
    const refunds = refundsOf('pi_keep');
    assert.equal(refunds.reduce((sum, r) => sum + Number(r['amount']), 0), 30, JSON.stringify(refunds));
    // Each Refund id is named once among the staged refunds.
    const named = refunds.flatMap((r) => [r['refund_id'], ...((r['covered_refunds'] as { refund_id: string }[] | undefined) ?? []).map((c) => c.refund_id)]).filter((id) => id !== null).sort();
    assert.deepEqual(named, ['re_k1', 're_k2']);
  });

  test('charge.refunded with its refunds list stages each Refund not seen yet, by its re_ id', async () => {
    await postStripe(erp.url, paid('pi_list', 5000));
    await postStripe(erp.url, refundCreated('evt_l1', 're_l1', 'pi_list', 500));
    const listed = message(await postStripe(erp.url, chargeRefunded('evt_lc', 'pi_list', 1200, [{ id: 're_l1', amount: 500 }, { id: 're_l2', amount: 700 }])));
    assert.equal(listed['revenue_events'].length, 1);
    assert.deepEqual(refundsOf('pi_list').map((r) => r['refund_id']).sort(), ['re_l1', 're_l2']);
    // Redelivered or re-sent with another event id, nothing more.
    message(await postStripe(erp.url, chargeRefunded('evt_lc2', 'pi_list', 1200, [{ id: 're_l1', amount: 500 }, { id: 're_l2', amount: 700 }])));
    assert.equal(refundsOf('pi_list').length, 2);
  });

  test('a refund in another currency than its payment stages nothing', async () => {
    await postStripe(erp.url, paid('pi_cur', 5000));
    const other = await postStripe(erp.url, event('evt_cur', 'refund.created', { id: 're_cur', object: 'refund', amount: 100, payment_intent: 'pi_cur', currency: 'eur' }));
    assert.equal(message(other)['business_effect'], null);
    assert.equal(refundsOf('pi_cur').length, 0);
  });

  test('a refund that names no payment is a 417, nothing stored', async () => {
    const before = tableCounts(erp.service);
    const bad = await postStripe(erp.url, event('evt_nopay', 'refund.created', { id: 're_x', object: 'refund', amount: 100, currency: 'usd' }));
    assert.equal(bad.status, 417);
    assert.match(frappeErrorText(bad).message, /names the payment/);
    const badList = await postStripe(erp.url, event('evt_badlist', 'charge.refunded', { id: 'ch_x', amount_refunded: 100, currency: 'usd', refunds: { data: 'nope' } }));
    assert.equal(badList.status, 417);
    // A Refund of nothing or less would lower what is known as refunded and let later refunds past the payment.
    for (const amount of [0, -2000]) {
      const negative = await postStripe(erp.url, refundCreated(`evt_neg_${amount}`, `re_neg_${amount}`, 'pi_part', amount));
      assert.equal(negative.status, 417, negative.text);
      assert.match(frappeErrorText(negative).message, /must be positive/);
    }
    const negativeList = await postStripe(erp.url, chargeRefunded('evt_neg_list', 'pi_part', 100, [{ id: 're_neg_l', amount: -100 }]));
    assert.equal(negativeList.status, 417);
    const negativeCumulative = await postStripe(erp.url, chargeRefunded('evt_neg_cum', 'pi_part', -100));
    assert.equal(negativeCumulative.status, 417);
    assert.deepEqual(tableCounts(erp.service), before);
  });
});

describe('posting error retry', () => {
  test('a refund that arrived before its payment is a posting error until force=1 after the payment came', async () => {
    const early = message(await postStripe(erp.url, refundCreated('evt_early_r', 're_early', 'pi_early', 300)));
    const name = early['revenue_event'] as string;
    const error = message(await callMethod(erp.url, 'workflows.post_revenue_event', { name }));
    assert.equal(error['status'], 'error');
    assert.match(error['errors'][0], /no customer/);
    await postStripe(erp.url, paid('pi_early', 5000, 'cus_late'));
    const kept = message(await callMethod(erp.url, 'workflows.post_revenue_event', { name }));
    assert.deepEqual([kept['status'], kept['hint']], ['error', 'send force=1 to retry']);
    const forced = message(await callMethod(erp.url, 'workflows.post_revenue_event', { name, force: 1 }));
    assert.equal(forced['status'], 'posted');
    const invoice = getDocument(erp.service.store.sqlite, 'Sales Invoice', forced['sales_invoice'])!;
    assert.deepEqual([invoice['customer'], invoice['is_return']], ['cus_late', 1]);
  });

  test('refunds that arrived before their payment never post for more than it (Stripe and payment_b)', async () => {
    const early = message(await postStripe(erp.url, refundCreated('evt_big_r', 're_big', 'pi_big', 9000)));
    await postStripe(erp.url, paid('pi_big', 5000, 'cus_big'));
    const over = message(await callMethod(erp.url, 'workflows.post_revenue_event', { name: early['revenue_event'] }));
    assert.equal(over['status'], 'error', JSON.stringify(over));
    assert.match(over['errors'].join(' '), /more than payment "pi_big" of 50\.00 USD/);
    const staged = message(await postStandard(erp.url, { type: 'payment.succeeded', data: { id: 'pay_small', amount: '10.00', currency: 'USD', customer: 'c@x.test' } }));
    const refund = message(await postStandard(erp.url, { type: 'refund.succeeded', data: { id: 'pay_small', amount: '99.00', currency: 'USD' } }));
    assert.notEqual(refund['revenue_event'], staged['revenue_event']);
    const b = message(await callMethod(erp.url, 'workflows.post_revenue_event', { name: refund['revenue_event'] }));
    assert.equal(b['status'], 'error', JSON.stringify(b));
    assert.match(b['errors'].join(' '), /more than payment "pay_small" of 10\.00 USD/);
    // Within the payment, both post.
    const fits = message(await postStripe(erp.url, refundCreated('evt_fit_r', 're_fit', 'pi_fit', 1000)));
    await postStripe(erp.url, paid('pi_fit', 5000, 'cus_fit'));
    assert.equal(message(await callMethod(erp.url, 'workflows.post_revenue_event', { name: fits['revenue_event'] }))['status'], 'posted');
  });

  test('a payment without customer is retried with force once a later event for it names the customer', async () => {
    const first = message(await postStandard(erp.url, { type: 'payment.succeeded', data: { id: 'pay_nocus', amount: 700, currency: 'USD' } }));
    const name = first['revenue_event'] as string;
    assert.equal(message(await callMethod(erp.url, 'workflows.post_revenue_event', { name }))['status'], 'error');
    const later = message(await postStandard(erp.url, { type: 'payment.completed', data: { id: 'pay_nocus', amount: 700, currency: 'USD', customer: 'c@x.test' } }));
    assert.equal(later['business_effect'], 'customer_filled_in');
    const forced = message(await callMethod(erp.url, 'workflows.post_revenue_event', { name, force: '1' }));
    assert.equal(forced['status'], 'posted');
  });
});

describe('a known event id with other bytes is a conflict', () => {
  test('payment_a, payment_b, supplier_intake and website_contact_intake answer 409 DuplicateEntryError and store nothing', async () => {
    assert.equal((await postStripe(erp.url, paid('pi_dup', 100))).status, 200);
    assert.equal((await postStandard(erp.url, { type: 'payment.succeeded', data: { id: 'pay_dup', amount: 1, currency: 'USD' } }, { id: 'msg_dup' })).status, 200);
    const intake = { event_id: 'sup_dup', vendor: { name: 'Globex LLC' }, invoice: { number: 'D-1', currency: 'USD' }, totals: { grand_total: '1.00' }, line_items: [{ description: 'x', amount: '1.00' }] };
    assert.equal((await postHouse(erp.url, 'supplier_intake', intake)).status, 200);
    assert.equal((await postHouse(erp.url, 'website_contact_intake', { event_id: 'web_dup', contact: { email: 'dup@example.test' } })).status, 200);
    const before = tableCounts(erp.service);
    const conflicts = [
      await postStripe(erp.url, paid('pi_dup', 999)),
      await postStandard(erp.url, { type: 'payment.succeeded', data: { id: 'pay_dup', amount: 2, currency: 'USD' } }, { id: 'msg_dup' }),
      await postHouse(erp.url, 'supplier_intake', { ...intake, invoice: { number: 'D-2', currency: 'USD' } }),
      await postHouse(erp.url, 'website_contact_intake', { event_id: 'web_dup', contact: { email: 'other@example.test' } }),
    ];
    for (const answer of conflicts) {
      assert.equal(answer.status, 409, answer.text);
      assert.equal(frappeErrorText(answer).exc_type, 'DuplicateEntryError');
      assert.match(frappeErrorText(answer).message, /delivered before with another body/);
      assert.equal(answer.headers['idempotent-replayed'], undefined);
    }
    assert.deepEqual(tableCounts(erp.service), before);
    // The very same bytes are still a redelivery.
    const again = await postStripe(erp.url, paid('pi_dup', 100));
    assert.deepEqual([again.status, again.headers['idempotent-replayed']], [200, 'true']);
  });
});
