// support_cases.*: the signed inbound (normalization by the rules data, idempotent persistence,
// ordering per ticket, the real handoff to an in-process governance service, failure and retry),
// and support_context's hydration markers. The outbound desk delivery has its own file.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { signRequest } from '../../src/kernel/index.ts';
import { getDocument } from '../../src/erp/database/documents.ts';
import { checkRules, SUPPORT_RULES } from '../../src/erp/support-cases/normalization-rules.ts';
import { nextRetryAt } from '../../src/erp/support-cases/retry-schedule.ts';
import { send } from '../helpers/http.ts';
import type { TestResponse } from '../helpers/http.ts';
import { OPERATOR_TOKEN, startGovernance } from '../governance/_service.ts';
import type { RunningGovernance } from '../governance/_service.ts';
import { callMethod, frappeErrorText, postStripe, SECRETS, startErp, tableCounts } from './_service.ts';
import type { Running } from './_service.ts';

const SUPPORT_SECRET = 'support-desk-secret-0001';
let governance: RunningGovernance;
let erp: Running;

before(async () => {
  governance = await startGovernance();
  erp = await startErp({ env: { SUPPORT_DESK_WEBHOOK_SECRET: SUPPORT_SECRET, GOVERNANCE_URL: governance.worker!, GOVERNANCE_TOKEN: OPERATOR_TOKEN } });
});
after(async () => {
  await erp.stop();
  await governance.stop();
});

function postInbound(url: string, payload: unknown, init: { secret?: string; raw?: Buffer; at?: number } = {}): Promise<TestResponse> {
  const raw = init.raw ?? Buffer.from(JSON.stringify(payload));
  const headers = signRequest('house', { rawBody: raw, secret: init.secret ?? SUPPORT_SECRET, now: init.at ?? Math.floor(Date.now() / 1000) });
  return send(`${url}/api/method/erp_core.api.support_cases.support_desk_inbound`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: raw });
}

const ticketEvent = (eventId: string, sequence: number, extra: Record<string, unknown> = {}) => ({
  event_id: eventId,
  kind: 'ticket',
  ticket_id: 4711,
  sequence,
  state: 'new',
  priority: '2 normal',
  title: 'Invoice question',
  refs: { sales_invoice: 'ACC-SINV-2026-09999' },
  correlation_id: 'corr-4711',
  ...extra,
});

interface InboundMessage {
  ok: boolean;
  reason?: string;
  event_audit_key: string;
  integration_event: string;
  correlation_envelope: Record<string, unknown>;
  ordering_result: { status: string; applied: boolean; last_applied_sequence: number | null };
  context_hydration_summary: { requested: number; hydrated: number; missing: { reason: string }[] };
  governance_handoff: { ok: boolean; skipped?: boolean; seq?: number; detail?: string };
}

const messageOf = (response: TestResponse) => (response.json() as { message: InboundMessage }).message;

async function handoffs(): Promise<{ event: string; payload: Record<string, unknown>; correlation_id: string }[]> {
  const response = await send(`${governance.platform}/api/v1/support-orchestration/handoffs?limit=1000`);
  assert.equal(response.status, 200, response.text);
  return (response.json() as { handoffs: { event: string; payload: Record<string, unknown>; correlation_id: string }[] }).handoffs;
}

describe('support_desk_inbound', () => {
  test('the rules file satisfies its schema, and a broken one is refused naming the field', () => {
    assert.equal(Array.isArray(checkRules(SUPPORT_RULES)), false);
    const broken = checkRules({ ...SUPPORT_RULES, priority: { '2 normal': 'medium' } });
    assert.ok(Array.isArray(broken) && broken.some((p) => p.startsWith('/priority')), String(broken));
  });

  test('a signed event is normalized by the rules, persisted, applied and handed off: the governance readback shows it', async () => {
    const response = await postInbound(erp.url, ticketEvent('zd-1', 1));
    assert.equal(response.status, 200, response.text);
    const message = messageOf(response);
    assert.equal(message.ok, true);
    assert.equal(message.event_audit_key, 'support_desk:zd-1');
    assert.deepEqual([message.ordering_result.status, message.ordering_result.applied], ['applied', true]);
    assert.deepEqual(message.correlation_envelope, { correlation_id: 'corr-4711', causation_id: 'support_desk:zd-1', ticket_id: '4711', sequence: 1, integration_event: message.integration_event });
    assert.deepEqual(message.context_hydration_summary.missing, [{ doctype: 'Sales Invoice', name: 'ACC-SINV-2026-09999', reason: 'not_found' }]);
    assert.equal(message.governance_handoff.ok, true);
    const recorded = (await handoffs()).find((h) => h.payload['event_audit_key'] === 'support_desk:zd-1');
    assert.ok(recorded, 'governance recorded the handoff');
    assert.equal(recorded.event, 'support.ticket_opened');
    assert.equal(recorded.correlation_id, 'corr-4711');
    assert.deepEqual([recorded.payload['lifecycle'], recorded.payload['priority'], recorded.payload['status_label']], ['open', 'normal', 'Open']);
    const ticket = getDocument(erp.service.store.sqlite, 'Support Ticket', 'SUP-TKT-4711')!;
    assert.deepEqual([ticket['last_applied_sequence'], ticket['lifecycle'], ticket['status']], [1, 'open', 'Open']);
    assert.equal(getDocument(erp.service.store.sqlite, 'Integration Event', message.integration_event)!['status'], 'processed');
  });

  test('a redelivery answers the same bytes and hands off nothing again', async () => {
    const before = [tableCounts(erp.service), (await handoffs()).length];
    const again = await postInbound(erp.url, ticketEvent('zd-1', 1));
    assert.equal(again.status, 200);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual([tableCounts(erp.service), (await handoffs()).length], before);
  });

  test('concurrent deliveries of one event: persisted and handed off once, every answer 200', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => postInbound(erp.url, ticketEvent('zd-race', 1, { ticket_id: 5000 }))));
    assert.deepEqual(answers.map((a) => a.status), [200, 200, 200, 200, 200, 200], answers.map((a) => a.text).join('\n'));
    assert.equal(new Set(answers.map((a) => messageOf(a).integration_event)).size, 1);
    assert.equal((await handoffs()).filter((h) => h.payload['event_audit_key'] === 'support_desk:zd-race').length, 1);
  });

  test('ordering per ticket: a higher sequence applies, an equal one is duplicate and a lower one late; neither is applied or handed off', async () => {
    const closed = await postInbound(erp.url, ticketEvent('zd-3', 3, { state: 'closed', priority: '3 high' }));
    assert.equal(closed.status, 200, closed.text);
    assert.equal(messageOf(closed).ordering_result.status, 'applied');
    const count = (await handoffs()).length;
    const duplicate = messageOf(await postInbound(erp.url, ticketEvent('zd-3b', 3, { state: 'open' })));
    assert.deepEqual([duplicate.ok, duplicate.ordering_result.status, duplicate.ordering_result.applied, duplicate.governance_handoff.skipped], [true, 'duplicate', false, true]);
    const late = messageOf(await postInbound(erp.url, ticketEvent('zd-2', 2, { state: 'open' })));
    assert.deepEqual([late.ordering_result.status, late.ordering_result.last_applied_sequence], ['late', 3]);
    assert.equal((await handoffs()).length, count);
    const ticket = getDocument(erp.service.store.sqlite, 'Support Ticket', 'SUP-TKT-4711')!;
    assert.deepEqual([ticket['last_applied_sequence'], ticket['lifecycle'], ticket['priority']], [3, 'closed', 'high']);
  });

  test('a message with attachments maps metadata by the rules (Zammad preferences.Content-Type, size as text)', async () => {
    const response = await postInbound(erp.url, { event_id: 'zd-msg-1', kind: 'message', ticket_id: '900', sequence: 1, state: 'open', priority: 'low', article: { subject: 'Hi', from: 'a@example.test', body: 'hello', attachments: [{ filename: 'a.pdf', size: '2048', preferences: { 'Content-Type': 'application/pdf' } }] } });
    assert.equal(response.status, 200, response.text);
    const recorded = (await handoffs()).find((h) => h.payload['event_audit_key'] === 'support_desk:zd-msg-1')!;
    assert.deepEqual([recorded.event, recorded.payload['attachment_count']], ['support.message_received', 1]);
    const event = getDocument(erp.service.store.sqlite, 'Integration Event', messageOf(response).integration_event)!;
    const payload = event['payload'] as { article: { attachments: unknown[]; body_sha256: string } };
    assert.deepEqual(payload.article.attachments, [{ filename: 'a.pdf', size: 2048, content_type: 'application/pdf' }]);
    assert.match(payload.article.body_sha256, /^[0-9a-f]{64}$/);
  });

  test('bad input is 417 (or 409, 401, 415) and changes nothing', async () => {
    const before = tableCounts(erp.service);
    const cases: [string, Promise<TestResponse>, number][] = [
      ['malformed JSON', postInbound(erp.url, null, { raw: Buffer.from('{"event_id": ') }), 417],
      ['an array', postInbound(erp.url, [1]), 417],
      ['unknown state', postInbound(erp.url, ticketEvent('b1', 9, { state: 'on fire' })), 417],
      ['unknown priority', postInbound(erp.url, ticketEvent('b2', 9, { priority: 'asap' })), 417],
      ['sequence as text', postInbound(erp.url, ticketEvent('b3', 9, { sequence: '9' })), 417],
      ['negative sequence', postInbound(erp.url, ticketEvent('b4', -1)), 417],
      ['extra field', postInbound(erp.url, ticketEvent('b5', 9, { colour: 'red' })), 417],
      ['missing event_id', postInbound(erp.url, ticketEvent('', 9)), 417],
      ['unknown ref shortcut', postInbound(erp.url, ticketEvent('b6', 9, { refs: { order: 'SO-1' } })), 417],
      ['message without article', postInbound(erp.url, ticketEvent('b7', 9, { kind: 'message' })), 417],
      ['too many attachments', postInbound(erp.url, ticketEvent('b8', 9, { article: { attachments: Array.from({ length: 21 }, () => ({ filename: 'x' })) } })), 417],
      ['bad occurred_at', postInbound(erp.url, ticketEvent('b9', 9, { occurred_at: 'yesterday' })), 417],
      ['event id reused with another body', postInbound(erp.url, ticketEvent('zd-1', 1, { title: 'changed' })), 409],
      ['wrong secret', postInbound(erp.url, ticketEvent('b10', 9), { secret: 'nope' }), 401],
      ['a replayed signature an hour old', postInbound(erp.url, ticketEvent('b12', 9), { at: Math.floor(Date.now() / 1000) - 3600 }), 401],
      ['a body over 1 MiB', postInbound(erp.url, null, { raw: Buffer.from(JSON.stringify({ ...ticketEvent('b13', 9), title: 'x'.repeat(1024 * 1024) })) }), 413],
      ['the automation secret while the desk secret is set', postInbound(erp.url, ticketEvent('b11', 9), { secret: SECRETS.AUTOMATION_SHARED_SECRET }), 401],
    ];
    for (const [name, pending, status] of cases) {
      const response = await pending;
      assert.equal(response.status, status, `${name}: ${response.text}`);
      if (status === 417) assert.equal(frappeErrorText(response).exc_type, 'ValidationError', name);
    }
    const wrongType = await send(`${erp.url}/api/method/erp_core.api.support_cases.support_desk_inbound`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
    assert.ok([401, 415].includes(wrongType.status), wrongType.text);
    assert.deepEqual(tableCounts(erp.service), before);
  });

  test('governance stopped: ok=false, reason governance_support_handoff_failed, the Integration Event failed; a redelivery after the restart completes it', async () => {
    const worker = new URL(governance.worker!);
    await governance.service.close();
    const failed = await postInbound(erp.url, ticketEvent('zd-10', 10, { state: 'open' }));
    assert.equal(failed.status, 503, failed.text);
    const message = messageOf(failed);
    assert.deepEqual([message.ok, message.reason, message.governance_handoff.ok], [false, 'governance_support_handoff_failed', false]);
    assert.match(message.governance_handoff.detail!, /unreachable/);
    assert.equal(getDocument(erp.service.store.sqlite, 'Integration Event', message.integration_event)!['status'], 'failed');
    assert.equal(getDocument(erp.service.store.sqlite, 'Support Ticket', 'SUP-TKT-4711')!['last_applied_sequence'], 10, 'applied once, at persistence');
    governance = await startGovernance({ dataDir: governance.dataDir, env: { GOVERNANCE_WORKER_LISTEN: worker.host } });
    const retried = await postInbound(erp.url, ticketEvent('zd-10', 10, { state: 'open' }));
    assert.equal(retried.status, 200, retried.text);
    const done = messageOf(retried);
    assert.deepEqual([done.ok, done.integration_event, done.ordering_result.status], [true, message.integration_event, 'applied']);
    assert.equal(getDocument(erp.service.store.sqlite, 'Integration Event', message.integration_event)!['status'], 'processed');
    assert.equal((await handoffs()).filter((h) => h.payload['event_audit_key'] === 'support_desk:zd-10').length, 1);
  });

  test('the retry worker completes a failed handoff without a redelivery (capped exponential backoff)', async () => {
    const worker = new URL(governance.worker!);
    await governance.service.close();
    const failed = await postInbound(erp.url, ticketEvent('zd-20', 20, { state: 'open' }));
    assert.equal(failed.status, 503, failed.text);
    const name = messageOf(failed).integration_event;
    const stored = getDocument(erp.service.store.sqlite, 'Integration Event', name)!;
    assert.equal(stored['handoff_attempts'], 1);
    assert.ok(Date.parse(String(stored['next_retry_at'])) > Date.now(), 'the next attempt is scheduled ahead');
    governance = await startGovernance({ dataDir: governance.dataDir, env: { GOVERNANCE_WORKER_LISTEN: worker.host } });
    const deadline = Date.now() + 10_000;
    while (getDocument(erp.service.store.sqlite, 'Integration Event', name)!['status'] !== 'processed') {
      assert.ok(Date.now() < deadline, 'the worker retried within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal((await handoffs()).filter((h) => h.payload['event_audit_key'] === 'support_desk:zd-20').length, 1);
    const replay = await postInbound(erp.url, ticketEvent('zd-20', 20, { state: 'open' }));
    assert.deepEqual([replay.status, replay.headers['idempotent-replayed']], [200, 'true']);
  });

  test('nextRetryAt doubles from 1 s to at most 300 s, plus under 1 s of jitter', () => {
    const at = (attempts: number, jitter: number) => Date.parse(nextRetryAt(0, attempts, () => jitter));
    assert.deepEqual([1, 2, 3, 9, 10, 30].map((n) => at(n, 0)), [1000, 2000, 4000, 256_000, 300_000, 300_000]);
    assert.equal(at(1, 0.999), 1999);
  });

  test('without SUPPORT_DESK_WEBHOOK_SECRET the AUTOMATION_SHARED_SECRET signs; without GOVERNANCE_URL every handoff fails closed', async () => {
    const other = await startErp();
    try {
      const response = await postInbound(other.url, ticketEvent('fb-1', 1), { secret: SECRETS.AUTOMATION_SHARED_SECRET });
      assert.equal(response.status, 503, response.text);
      assert.match(messageOf(response).governance_handoff.detail!, /not configured/);
    } finally {
      await other.stop();
    }
  });
});

describe('support_context', () => {
  test('hydrates documents with their links; missing-object and partial-enrichment markers for the rest', async () => {
    const staged = (await postStripe(erp.url, { id: 'evt_ctx', object: 'event', type: 'payment_intent.succeeded', data: { object: { id: 'pi_ctx', object: 'payment_intent', amount_received: 500, currency: 'eur', customer: 'cus_1' } } })).json() as { message: { revenue_event: string } };
    const revenue = staged.message.revenue_event;
    const response = await callMethod(erp.url, 'support_cases.support_context', { business_refs: [{ doctype: 'Revenue Event', name: revenue }, { doctype: 'Sales Invoice', name: 'ACC-SINV-2026-77777' }, { doctype: 'Spaceship', name: 'X' }] });
    assert.equal(response.status, 200, response.text);
    const context = (response.json() as { message: { hydrated: { name: string; related: { field: string }[] }[]; missing: unknown[]; partial: unknown[] } }).message;
    assert.deepEqual(context.hydrated.map((h) => [h.name, h.related.map((r) => r.field)]), [[revenue, ['integration_event']]]);
    assert.deepEqual(context.missing, [{ doctype: 'Sales Invoice', name: 'ACC-SINV-2026-77777', reason: 'not_found' }, { doctype: 'Spaceship', name: 'X', reason: 'unknown_doctype' }]);
    assert.deepEqual(context.partial, [{ doctype: 'Revenue Event', name: revenue, missing_links: [{ field: 'sales_invoice', doctype: 'Sales Invoice', reason: 'empty' }] }]);
  });

  test('auth and bad input', async () => {
    assert.equal((await callMethod(erp.url, 'support_cases.support_context', { business_refs: [] }, { auth: undefined })).status, 403);
    assert.equal((await callMethod(erp.url, 'support_cases.support_context', { business_refs: [] }, { auth: 'token a:b' })).status, 401);
    for (const args of [{}, { business_refs: 'Lead' }, { business_refs: [{ doctype: 'Lead' }] }, { business_refs: [{ doctype: 'Lead', name: 'x', extra: 1 }] }, { business_refs: [], other: 1 }, { business_refs: Array.from({ length: 51 }, (_, i) => ({ doctype: 'Lead', name: `L${i}` })) }]) {
      const response = await callMethod(erp.url, 'support_cases.support_context', args);
      assert.equal(response.status, 417, `${JSON.stringify(args).slice(0, 80)}: ${response.text}`);
    }
  });
});
