import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { signRequest } from '../../src/kernel/index.ts';
import { send } from '../helpers/http.ts';
import type { TestResponse } from '../helpers/http.ts';
import { SECRETS, TOKEN, callMethod, frappeErrorText, postHouse, postStandard, startErp, tableCounts } from './_service.ts';
import type { Running } from './_service.ts';

let erp: Running;
let intake: string;
let revenue: string;
before(async () => {
  // The worker ticks only when a test calls tick(): its own 1 s timer closed the decided packet
  // between two of a test's reads whenever a tick fell there.
  erp = await startErp({ env: { AGENT_RUNTIME_URL: 'http://127.0.0.1:9/agent', ERP_WORKER_INTERVAL_MS: '60000' } });
  const staged = await postHouse(erp.url, 'supplier_intake', { vendor: { name: 'Globex LLC' }, invoice: { number: 'AP-1', currency: 'USD' }, totals: { grand_total: '5.00' }, line_items: [{ description: 'x', amount: '5.00' }] });
  intake = (staged.json() as { message: { supplier_intake: string } }).message.supplier_intake;
  const paid = await postStandard(erp.url, { type: 'payment.succeeded', data: { id: 'pay_ap', amount: 500, currency: 'USD', customer: 'c' } });
  revenue = (paid.json() as { message: { revenue_event: string } }).message.revenue_event;
});
after(() => erp.stop());

const message = (r: TestResponse) => (r.json() as { message: Record<string, any> }).message;
function callback(fn: 'agent_runtime_approval' | 'automation_hil_decision', body: unknown, init: { secret?: string; key?: string } = {}): Promise<TestResponse> {
  const raw = Buffer.from(JSON.stringify(body));
  const secret = init.secret ?? (fn === 'agent_runtime_approval' ? SECRETS.AGENT_RUNTIME_CALLBACK_SECRET : SECRETS.AUTOMATION_SHARED_SECRET);
  const headers = signRequest('house', { rawBody: raw, secret, now: Math.floor(Date.now() / 1000) });
  return send(`${erp.url}/api/method/erp_core.api.callbacks.${fn}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json', ...(init.key && { 'idempotency-key': init.key }) }, body: raw });
}

describe('approval packets', () => {
  let packet: string;
  let token: string;

  test('request_supplier_intake_approval creates a packet with its callback token and dispatch bundle; a second request returns the open packet', async () => {
    const first = message(await callMethod(erp.url, 'workflows.request_supplier_intake_approval', { name: intake, approval_context: { reason: 'new supplier' } }));
    assert.deepEqual([first['status'], first['created'], first['target_doctype']], ['requested', true, 'Supplier Intake']);
    assert.equal(first['dispatch_bundle'].agent_runtime_url, 'http://127.0.0.1:9/agent');
    token = first['dispatch_bundle'].callback.callback_token;
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    packet = first['approval_packet'];
    const before = tableCounts(erp.service);
    const second = message(await callMethod(erp.url, 'workflows.request_approval', { doctype: 'Supplier Intake', docname: intake }));
    assert.deepEqual([second['approval_packet'], second['created'], second['dispatch_bundle'].callback.callback_token], [packet, false, null]);
    assert.deepEqual(tableCounts(erp.service), before);
    const readback = await send(`${erp.url}/api/resource/Approval%20Packet/${packet}`, { headers: { authorization: TOKEN } });
    assert.ok(!readback.text.includes('callback_token_sha256'));
  });

  test('agent_runtime_approval with the right token records the decision; the packet is not closed; a second decision is refused', async () => {
    const wrongToken = await callback('agent_runtime_approval', { approval_packet: packet, callback_token: 'x'.repeat(43), decision: 'approved' });
    assert.equal(wrongToken.status, 401);
    const ack = await callback('agent_runtime_approval', { approval_packet: packet, callback_token: token, decision: 'approved', actor: { agent: 'reviewer-1' } });
    assert.equal(ack.status, 200, ack.text);
    assert.deepEqual([message(ack)['status'], message(ack)['closeout_allowed']], ['decision_received', false]);
    const before = tableCounts(erp.service);
    const again = await callback('agent_runtime_approval', { approval_packet: packet, callback_token: token, decision: 'rejected' });
    assert.equal(again.status, 409);
    assert.equal(frappeErrorText(again).exc_type, 'InvalidStatusError');
    const hil = await callback('automation_hil_decision', { approval_packet: packet, decision: 'rejected' });
    assert.equal(hil.status, 409);
    assert.deepEqual(tableCounts(erp.service), before);
  });

  test('automation_hil_decision decides an open packet; Idempotency-Key replays it', async () => {
    const created = message(await callMethod(erp.url, 'workflows.request_revenue_event_approval', { name: revenue }));
    const body = { approval_packet: created['approval_packet'], decision: 'rejected', actor: { human: 'ops' } };
    const first = await callback('automation_hil_decision', body, { key: 'hil-1' });
    assert.equal(message(first)['status'], 'decision_received');
    const before = tableCounts(erp.service);
    const replay = await callback('automation_hil_decision', body, { key: 'hil-1' });
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.text, first.text);
    assert.deepEqual(tableCounts(erp.service), before);
  });

  test('bad input: unknown targets and packets, wrong types, bad signatures, unknown fields; nothing changes', async () => {
    const before = tableCounts(erp.service);
    const cases: [Promise<TestResponse>, number][] = [
      [callMethod(erp.url, 'workflows.request_supplier_intake_approval', { name: 'SUP-INT-2026-99999' }), 404],
      [callMethod(erp.url, 'workflows.request_approval', { doctype: 'User', docname: 'x' }), 417],
      [callMethod(erp.url, 'workflows.request_approval', { doctype: 'Lead' }), 417],
      [callMethod(erp.url, 'workflows.request_revenue_event_approval', { name: revenue, approval_context: 'x' }), 417],
      [callMethod(erp.url, 'workflows.request_revenue_event_approval', { name: revenue, extra: 1 }), 417],
      [callMethod(erp.url, 'workflows.request_revenue_event_approval', { name: revenue }, { auth: undefined }), 403],
      [callback('automation_hil_decision', { approval_packet: 'APR-PKT-2026-99999', decision: 'approved' }), 404],
      [callback('automation_hil_decision', { approval_packet: 'x', decision: 'maybe' }), 417],
      [callback('automation_hil_decision', { approval_packet: 'x', decision: 'approved', callback_token: 't' }), 417],
      [callback('agent_runtime_approval', { approval_packet: 'x', decision: 'approved' }), 417],
      [callback('agent_runtime_approval', { approval_packet: 'x', callback_token: 't', decision: 'approved' }, { secret: SECRETS.AUTOMATION_SHARED_SECRET }), 401],
    ];
    for (const [pending, status] of cases) {
      const response = await pending;
      assert.equal(response.status, status, response.text);
      assert.ok(frappeErrorText(response).message);
    }
    assert.deepEqual(tableCounts(erp.service), before);
  });
});

describe('dispatch namespace', () => {
  test('materialize_dispatch_callback_job cannot take over a packet\'s dispatch key, the DSP-JOB- series or the approval job type', async () => {
    const lead = await postHouse(erp.url, 'website_contact_intake', { contact: { email: 'squat@example.test' } });
    const leadName = (lead.json() as { message: { lead: string } }).message.lead;
    const packet = message(await callMethod(erp.url, 'workflows.request_approval', { doctype: 'Lead', docname: leadName }))['approval_packet'];
    const before = tableCounts(erp.service);
    for (const args of [
      { dispatch_job: 'squat-1', dispatch_key: `approval:${packet}` },
      { dispatch_job: 'squat-2', dispatch_key: `APPROVAL:${packet}` },
      { dispatch_job: 'DSP-JOB-2026-00099' },
      { dispatch_job: 'dsp-job-2026-00099', dispatch_key: 'other' },
      { dispatch_job: 'squat-3', job_type: 'approval_dispatch' },
    ]) {
      const refused = await callMethod(erp.url, 'workflows.materialize_dispatch_callback_job', args);
      assert.equal(refused.status, 417, `${JSON.stringify(args)}: ${refused.text}`);
      assert.equal(frappeErrorText(refused).exc_type, 'ValidationError');
    }
    assert.deepEqual(tableCounts(erp.service), before);
    const dispatched = message(await callMethod(erp.url, 'workflows.dispatch_approval_packet', { approval_packet: packet }));
    assert.deepEqual([dispatched['status'], dispatched['created']], ['dispatched', true]);
    assert.match(dispatched['dispatch_job'], /^DSP-JOB-/);
  });
});

describe('closeout', () => {
  test('a decided packet closes only when the owner readback confirms its target; a changed target blocks it', async () => {
    const lead = await postHouse(erp.url, 'website_contact_intake', { contact: { email: 'closeout@example.test' } });
    const leadName = (lead.json() as { message: { lead: string } }).message.lead;
    const created = message(await callMethod(erp.url, 'workflows.request_approval', { doctype: 'Lead', docname: leadName }));
    await callback('automation_hil_decision', { approval_packet: created['approval_packet'], decision: 'approved' });
    await erp.service.dispatchWorker.tick();
    const closed = (await send(`${erp.url}/api/resource/Approval%20Packet/${created['approval_packet']}`, { headers: { authorization: TOKEN } })).json() as { data: Record<string, any> };
    assert.equal(closed.data['status'], 'closed');
    assert.equal(closed.data['owner_readback'].name, leadName);

    const other = await postHouse(erp.url, 'website_contact_intake', { contact: { email: 'changed@example.test' } });
    const otherLead = (other.json() as { message: { lead: string } }).message.lead;
    const packet = message(await callMethod(erp.url, 'workflows.request_approval', { doctype: 'Lead', docname: otherLead }))['approval_packet'];
    await postHouse(erp.url, 'website_contact_intake', { contact: { email: 'changed@example.test', company: 'New Co' } });
    await callback('automation_hil_decision', { approval_packet: packet, decision: 'approved' });
    await erp.service.dispatchWorker.tick();
    const blocked = (await send(`${erp.url}/api/resource/Approval%20Packet/${packet}`, { headers: { authorization: TOKEN } })).json() as { data: Record<string, any> };
    assert.equal(blocked.data['status'], 'decision_received');
    assert.match(blocked.data['closeout_blocked'], /owner follow-through required/);
    const late = await callback('automation_hil_decision', { approval_packet: created['approval_packet'], decision: 'rejected' });
    assert.equal(late.status, 409, 'a callback for a closed packet is refused');
  });
});
