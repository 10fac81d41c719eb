// support_cases.support_desk_outbound against a Zammad-speaking double: the exact method, path,
// headers and body of each operation, the audit Integration Event, and a failing, refusing or
// silent desk (timeout) reported in the delivery result, never as a 500.

import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { getDocument } from '../../src/erp/database/documents.ts';
import { callMethod, startErp, tableCounts } from './_service.ts';
import type { Running } from './_service.ts';
import { startZammadDouble } from './_zammad-double.ts';
import type { ZammadDouble } from './_zammad-double.ts';

const DESK_TOKEN = 'zammad-token-abc123';
let desk: ZammadDouble;
let erp: Running;

before(async () => {
  desk = await startZammadDouble(DESK_TOKEN);
  erp = await startErp({ env: { SUPPORT_DESK_URL: desk.url, SUPPORT_DESK_TOKEN: DESK_TOKEN, ERP_OUTBOUND_TIMEOUT_MS: '300' } });
});
after(async () => {
  await erp.stop();
  await desk.close();
});
beforeEach(() => {
  desk.calls.length = 0;
  desk.misbehave('none');
});

interface OutboundMessage {
  ok: boolean;
  audit_event_id: string;
  delivery_result: { ok: boolean; method: string; path: string; status: number | null; desk_object_id?: unknown; detail?: string };
  correlation_envelope: Record<string, unknown>;
}

const outbound = (args: Record<string, unknown>) => callMethod(erp.url, 'support_cases.support_desk_outbound', args);

describe('support_desk_outbound', () => {
  test('a reply is POST /api/v1/ticket_articles with Zammad\'s email article body and token header', async () => {
    const response = await outbound({ ticket_id: 42, operation: 'reply', message: { body: 'Your invoice is attached.', subject: 'Re: Invoice', to: 'customer@example.test' }, correlation_envelope: { correlation_id: 'corr-42' } });
    assert.equal(response.status, 200, response.text);
    assert.equal(desk.calls.length, 1);
    const call = desk.calls[0]!;
    assert.equal(call.method, 'POST');
    assert.equal(call.path, '/api/v1/ticket_articles');
    assert.equal(call.headers.authorization, `Token token=${DESK_TOKEN}`);
    assert.equal(call.headers['content-type'], 'application/json');
    assert.equal(call.body, JSON.stringify({ ticket_id: 42, body: 'Your invoice is attached.', content_type: 'text/plain', type: 'email', internal: false, sender: 'Agent', to: 'customer@example.test', subject: 'Re: Invoice' }));
    const message = (response.json() as { message: OutboundMessage }).message;
    assert.deepEqual([message.ok, message.delivery_result.status, message.delivery_result.desk_object_id], [true, 201, 100]);
    assert.deepEqual(message.correlation_envelope, { correlation_id: 'corr-42', ticket_id: '42', integration_event: message.audit_event_id });
    const audit = getDocument(erp.service.store.sqlite, 'Integration Event', message.audit_event_id)!;
    assert.deepEqual([audit['source'], audit['status'], audit['event_type']], ['support_desk_outbound', 'processed', 'support.reply']);
    assert.equal(JSON.stringify(audit).includes('Your invoice is attached.'), false, 'the message text stays with the desk');
  });

  test('a note is an internal note article; a status is PUT /api/v1/tickets/{id} with the desk state', async () => {
    assert.equal((await outbound({ ticket_id: '42', operation: 'note', message: { body: '<b>checked</b>', content_type: 'text/html' } })).status, 200);
    assert.equal((await outbound({ ticket_id: '42', operation: 'status', status: { state: 'closed' } })).status, 200);
    assert.deepEqual(desk.calls.map((c) => [c.method, c.path, c.headers.authorization, c.body]), [
      ['POST', '/api/v1/ticket_articles', `Token token=${DESK_TOKEN}`, JSON.stringify({ ticket_id: 42, body: '<b>checked</b>', content_type: 'text/html', type: 'note', internal: true, sender: 'Agent' })],
      ['PUT', '/api/v1/tickets/42', `Token token=${DESK_TOKEN}`, JSON.stringify({ state: 'closed' })],
    ]);
  });

  test('a failing, refusing or silent desk: 502 with the delivery result, the audit event failed', async () => {
    for (const [mode, expected] of [['error', /500/], ['unprocessable', /422/], ['hang', /no answer within 300 ms/]] as const) {
      desk.misbehave(mode);
      const response = await outbound({ ticket_id: 7, operation: 'status', status: { state: 'open' } });
      assert.equal(response.status, 502, `${mode}: ${response.text}`);
      const message = (response.json() as { message: OutboundMessage }).message;
      assert.equal(message.ok, false);
      assert.match(message.delivery_result.detail!, expected);
      assert.equal(getDocument(erp.service.store.sqlite, 'Integration Event', message.audit_event_id)!['status'], 'failed');
    }
  });

  test('a desk without configuration fails closed with its reason', async () => {
    const other = await startErp();
    try {
      const response = await callMethod(other.url, 'support_cases.support_desk_outbound', { ticket_id: 1, operation: 'note', message: { body: 'x' } });
      assert.equal(response.status, 502);
      assert.match((response.json() as { message: OutboundMessage }).message.delivery_result.detail!, /not configured/);
    } finally {
      await other.stop();
    }
  });

  test('bad input is 417, no auth 403, and neither reaches the desk nor writes evidence', async () => {
    const before = tableCounts(erp.service);
    const bad: Record<string, unknown>[] = [
      {},
      { ticket_id: 'abc', operation: 'note', message: { body: 'x' } },
      { ticket_id: 1.5, operation: 'note', message: { body: 'x' } },
      // Past 2^53 the number in Zammad's article body would name another ticket than the text did.
      { ticket_id: '900719925474099312', operation: 'note', message: { body: 'x' } },
      { ticket_id: '9007199254740993', operation: 'status', status: { state: 'closed' } },
      { ticket_id: 1, operation: 'delete' },
      { ticket_id: 1, operation: 'note' },
      { ticket_id: 1, operation: 'note', message: { body: '' } },
      { ticket_id: 1, operation: 'note', message: { body: 'x', to: 'a@b.c' } },
      { ticket_id: 1, operation: 'reply', message: { body: 'x' } },
      { ticket_id: 1, operation: 'note', message: { body: 'x', content_type: 'image/png' } },
      { ticket_id: 1, operation: 'note', message: { body: 'x', colour: 'red' } },
      { ticket_id: 1, operation: 'status', status: { state: 'exploded' } },
      { ticket_id: 1, operation: 'status', status: 'closed' },
      { ticket_id: 1, operation: 'status', status: { state: 'closed' }, message: { body: 'x' } },
      { ticket_id: 1, operation: 'note', message: { body: 'x' }, correlation_envelope: 'c' },
      { ticket_id: 1, operation: 'note', message: { body: 'x' }, extra: 1 },
    ];
    for (const args of bad) assert.equal((await outbound(args)).status, 417, JSON.stringify(args));
    assert.equal((await callMethod(erp.url, 'support_cases.support_desk_outbound', { ticket_id: 1, operation: 'note', message: { body: 'x' } }, { auth: undefined })).status, 403);
    assert.equal(desk.calls.length, 0);
    assert.deepEqual(tableCounts(erp.service), before);
  });
});
