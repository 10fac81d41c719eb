import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { send } from '../helpers/http.ts';
import { TOKEN, callMethod, frappeErrorText, postHouse, postStripe, startErp, tableCounts } from './_service.ts';
import type { Running } from './_service.ts';

let erp: Running;
before(async () => {
  erp = await startErp();
});
after(() => erp.stop());

let sequence = 0;
async function stageIntake(overrides: Record<string, unknown> = {}): Promise<string> {
  const payload = { event_id: `wf-${sequence++}`, vendor: { name: 'Acme Parts GmbH' }, invoice: { number: `B-${sequence}`, currency: 'EUR' }, totals: { grand_total: '0.30' }, line_items: [{ description: 'a', amount: 0.1 }, { description: 'b', amount: '0.20' }], ...overrides };
  const response = await postHouse(erp.url, 'supplier_intake', payload);
  assert.equal(response.status, 200, response.text);
  return (response.json() as { message: { supplier_intake: string } }).message.supplier_intake;
}

const message = (text: string) => (JSON.parse(text) as { message: Record<string, unknown> }).message;

describe('workflows.post_supplier_intake', () => {
  test('exact money: lines whose float sum is off (0.1 + 0.2) post as 0.30; posting twice returns the same draft', async () => {
    const name = await stageIntake();
    const first = await callMethod(erp.url, 'workflows.post_supplier_intake', { name });
    assert.equal(first.status, 200, first.text);
    const posted = message(first.text);
    assert.deepEqual([posted['status'], posted['created'], posted['grand_total'], posted['docstatus']], ['posted', true, '0.30', 0]);
    assert.notEqual(0.1 + 0.2, 0.3); // what a float implementation would have compared
    const before = tableCounts(erp.service);
    const second = message((await callMethod(erp.url, 'workflows.post_supplier_intake', { name })).text);
    assert.deepEqual([second['purchase_invoice'], second['created']], [posted['purchase_invoice'], false]);
    assert.deepEqual(tableCounts(erp.service), before);
  });

  test('many cents: 10 lines of 0.10 and a large amount add up exactly', async () => {
    const lines = [...Array.from({ length: 10 }, (_, i) => ({ description: `l${i}`, amount: 0.1 })), { description: 'big', amount: '9007199254740.93' }];
    const name = await stageIntake({ line_items: lines, totals: { grand_total: '9007199254741.93' } });
    const posted = message((await callMethod(erp.url, 'workflows.post_supplier_intake', { name })).text);
    assert.equal(posted['status'], 'posted', JSON.stringify(posted));
    assert.equal(posted['grand_total'], '9007199254741.93');
  });

  test('the posting error state lists every reason, creates no invoice, and only force re-evaluates it', async () => {
    const name = await stageIntake({ vendor: { name: 'Unknown Co' }, invoice: { number: 'X', currency: 'EUR' }, totals: { net_total: '0.40', grand_total: '0.30', currency: 'USD' } });
    const invoicesBefore = tableCounts(erp.service);
    const failed = message((await callMethod(erp.url, 'workflows.post_supplier_intake', { name })).text);
    assert.equal(failed['status'], 'error');
    const errors = (failed['errors'] as string[]).join('\n');
    assert.match(errors, /unknown supplier "Unknown Co"/);
    assert.match(errors, /currency mismatch: totals are in USD/);
    assert.match(errors, /totals do not equal the lines/);
    const invoices = erp.service.store.sqlite.prepare("SELECT count(*) AS n FROM erp_documents WHERE doctype = 'Purchase Invoice'").get()!;
    const again = message((await callMethod(erp.url, 'workflows.post_supplier_intake', { name })).text);
    assert.deepEqual(again['errors'], failed['errors']);
    assert.match(String(again['hint']), /force/);
    const forced = message((await callMethod(erp.url, 'workflows.post_supplier_intake', { name, force: 1 })).text);
    assert.equal(forced['status'], 'error');
    const invoicesAfter = erp.service.store.sqlite.prepare("SELECT count(*) AS n FROM erp_documents WHERE doctype = 'Purchase Invoice'").get()!;
    assert.equal(invoicesAfter['n'], invoices['n']);
    assert.ok(tableCounts(erp.service)['document_events']! > invoicesBefore['document_events']!);
  });

  test('a supplier that bills in another currency is a currency mismatch', async () => {
    const name = await stageIntake({ invoice: { number: 'C-1', currency: 'USD' }, totals: { grand_total: '0.30' } });
    const failed = message((await callMethod(erp.url, 'workflows.post_supplier_intake', { name })).text);
    assert.match((failed['errors'] as string[]).join(), /bills in EUR/);
  });

  test('form-encoded body with force as text, and arguments in the query (frappe-client post_api)', async () => {
    const name = await stageIntake();
    const form = await send(`${erp.url}/api/method/erp_core.api.workflows.post_supplier_intake`, { method: 'POST', headers: { authorization: TOKEN, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ name, force: '0' }).toString() });
    assert.equal(form.status, 200, form.text);
    const query = await send(`${erp.url}/api/method/erp_core.api.workflows.post_supplier_intake/?name=${encodeURIComponent(name)}`, { method: 'POST', headers: { authorization: TOKEN } });
    assert.equal(message(query.text)['purchase_invoice'], message(form.text)['purchase_invoice']);
  });

  test('bad input: missing, unknown, wrong types, extra arguments, malformed bodies, wrong auth; every table unchanged', async () => {
    const name = await stageIntake();
    const before = tableCounts(erp.service);
    const path = `${erp.url}/api/method/erp_core.api.workflows.post_supplier_intake`;
    const cases: [string, Promise<import('../helpers/http.ts').TestResponse>, number, string][] = [
      ['missing name', callMethod(erp.url, 'workflows.post_supplier_intake', {}), 417, 'ValidationError'],
      ['unknown name', callMethod(erp.url, 'workflows.post_supplier_intake', { name: 'SUP-INT-2026-99999' }), 404, 'DoesNotExistError'],
      ['name not a string', callMethod(erp.url, 'workflows.post_supplier_intake', { name: 7 }), 417, 'ValidationError'],
      ['force not a flag', callMethod(erp.url, 'workflows.post_supplier_intake', { name, force: 'maybe' }), 417, 'ValidationError'],
      ['extra argument', callMethod(erp.url, 'workflows.post_supplier_intake', { name, price: 1 }), 417, 'ValidationError'],
      ['malformed JSON', send(path, { method: 'POST', headers: { authorization: TOKEN, 'content-type': 'application/json' }, body: '{"name":' }), 417, 'ValidationError'],
      ['JSON list', send(path, { method: 'POST', headers: { authorization: TOKEN, 'content-type': 'application/json' }, body: '[1]' }), 417, 'ValidationError'],
      ['text body', send(path, { method: 'POST', headers: { authorization: TOKEN, 'content-type': 'text/plain' }, body: name }), 415, 'UnsupportedMediaType'],
      ['oversized', send(path, { method: 'POST', headers: { authorization: TOKEN, 'content-type': 'application/json' }, body: `{"name":"${'x'.repeat(1024 * 1024)}"}` }), 413, 'RequestEntityTooLarge'],
      ['no credential', callMethod(erp.url, 'workflows.post_supplier_intake', { name }, { auth: undefined }), 403, 'PermissionError'],
      ['wrong secret', callMethod(erp.url, 'workflows.post_supplier_intake', { name }, { auth: 'token a1b2c3d4e5:wrong' }), 401, 'AuthenticationError'],
      ['bearer', callMethod(erp.url, 'workflows.post_supplier_intake', { name }, { auth: 'Bearer a1b2c3d4e5:f6g7h8i9j0' }), 401, 'AuthenticationError'],
      ['stale sid', send(path, { method: 'POST', headers: { cookie: 'sid=AAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'content-type': 'application/json' }, body: JSON.stringify({ name }) }), 401, 'AuthenticationError'],
    ];
    for (const [label, pending, status, excType] of cases) {
      const response = await pending;
      assert.equal(response.status, status, `${label}: ${response.text}`);
      assert.equal(frappeErrorText(response).exc_type, excType, label);
    }
    assert.deepEqual(tableCounts(erp.service), before);
  });
});

describe('workflows.post_revenue_event', () => {
  test('a payment posts to a draft Sales Invoice once; a refund posts a return; no customer is the error state', async () => {
    const paid = await postStripe(erp.url, { id: 'evt_wf1', type: 'payment_intent.succeeded', data: { object: { id: 'pi_wf1', amount_received: 30, currency: 'usd', customer: 'cus_1' } } });
    const revenue = (paid.json() as { message: { revenue_event: string } }).message.revenue_event;
    const first = message((await callMethod(erp.url, 'workflows.post_revenue_event', { name: revenue })).text);
    assert.deepEqual([first['status'], first['grand_total'], first['docstatus']], ['posted', '0.30', 0]);
    const before = tableCounts(erp.service);
    assert.equal(message((await callMethod(erp.url, 'workflows.post_revenue_event', { name: revenue })).text)['sales_invoice'], first['sales_invoice']);
    assert.deepEqual(tableCounts(erp.service), before);

    const refund = await postStripe(erp.url, { id: 'evt_wf2', type: 'charge.refunded', data: { object: { id: 'ch_wf2', amount_refunded: 30, currency: 'usd', customer: 'cus_1' } } });
    const returned = message((await callMethod(erp.url, 'workflows.post_revenue_event', { name: (refund.json() as { message: { revenue_event: string } }).message.revenue_event })).text);
    assert.equal(returned['grand_total'], '-0.30');

    const anonymous = await postStripe(erp.url, { id: 'evt_wf3', type: 'payment_intent.succeeded', data: { object: { id: 'pi_wf3', amount_received: 30, currency: 'usd' } } });
    const failed = message((await callMethod(erp.url, 'workflows.post_revenue_event', { name: (anonymous.json() as { message: { revenue_event: string } }).message.revenue_event })).text);
    assert.equal(failed['status'], 'error');
    assert.match((failed['errors'] as string[]).join(), /no customer/);
  });

  test('unknown name, an unknown argument, a force that is not a flag, no auth: refused, tables unchanged', async () => {
    const before = tableCounts(erp.service);
    assert.equal((await callMethod(erp.url, 'workflows.post_revenue_event', { name: 'REV-EVT-2026-99999' })).status, 404);
    assert.equal((await callMethod(erp.url, 'workflows.post_revenue_event', { name: 'REV-EVT-2026-00001', submit: 1 })).status, 417);
    assert.equal((await callMethod(erp.url, 'workflows.post_revenue_event', { name: 'REV-EVT-2026-00001', force: 'yes' })).status, 417);
    assert.equal((await callMethod(erp.url, 'workflows.post_revenue_event', { name: 'REV-EVT-2026-00001' }, { auth: undefined })).status, 403);
    assert.deepEqual(tableCounts(erp.service), before);
  });
});
