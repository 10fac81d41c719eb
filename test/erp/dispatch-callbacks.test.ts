import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { signRequest } from '../../src/kernel/index.ts';
import { getDocument } from '../../src/erp/database/documents.ts';
import { send } from '../helpers/http.ts';
import type { TestResponse } from '../helpers/http.ts';
import { SECRETS, TOKEN, callMethod, frappeErrorText, startErp, tableCounts } from './_service.ts';
import type { Running } from './_service.ts';

let erp: Running;
before(async () => {
  erp = await startErp();
});
after(() => erp.stop());

const message = (r: TestResponse) => (r.json() as { message: Record<string, any> }).message;
function jobResult(body: unknown, init: { key?: string; secret?: string; raw?: string } = {}): Promise<TestResponse> {
  const raw = Buffer.from(init.raw ?? JSON.stringify(body));
  const headers = signRequest('house', { rawBody: raw, secret: init.secret ?? SECRETS.AUTOMATION_SHARED_SECRET, now: Math.floor(Date.now() / 1000) });
  return send(`${erp.url}/api/method/erp_core.api.callbacks.automation_job_result`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json', ...(init.key && { 'idempotency-key': `"${init.key}"` }) }, body: raw });
}

describe('workflows.materialize_dispatch_callback_job', () => {
  test('creates a Dispatch Job, and the same dispatch_key returns the same job', async () => {
    const first = message(await callMethod(erp.url, 'workflows.materialize_dispatch_callback_job', { dispatch_job: 'job-1', dispatch_key: 'key-1', document_type: 'Purchase Invoice', document_name: 'ACC-PINV-2026-00001', callback_payload: { correlation_id: 'corr-1' } }));
    assert.deepEqual([first['dispatch_job'], first['dispatch_key'], first['status'], first['created']], ['job-1', 'key-1', 'Queued', true]);
    const before = tableCounts(erp.service);
    const again = message(await callMethod(erp.url, 'workflows.materialize_dispatch_callback_job', { dispatch_job: 'job-1b', dispatch_key: 'key-1' }));
    assert.deepEqual([again['dispatch_job'], again['created']], ['job-1', false]);
    assert.deepEqual(tableCounts(erp.service), before);
    const form = await send(`${erp.url}/api/method/erp_core.api.workflows.materialize_dispatch_callback_job`, { method: 'POST', headers: { authorization: TOKEN, 'content-type': 'application/x-www-form-urlencoded' }, body: 'dispatch_job=job-2&callback_payload=%7B%22correlation_id%22%3A%22corr-2%22%7D' });
    assert.equal(message(form)['dispatch_key'], 'job-2');
    assert.equal((getDocument(erp.service.store.sqlite, 'Dispatch Job', 'job-2')!['callback_payload'] as { correlation_id: string }).correlation_id, 'corr-2');
  });

  test('bad input: missing or malformed dispatch_job, wrong types, unknown arguments, a reused name, no auth', async () => {
    const before = tableCounts(erp.service);
    const cases: [Record<string, unknown>, number][] = [
      [{}, 417], [{ dispatch_job: 'has space' }, 417], [{ dispatch_job: 'j', callback_payload: 'x' }, 417], [{ dispatch_job: 'j', callback_url: 'ftp://x' }, 417],
      [{ dispatch_job: 'j', surprise: 1 }, 417], [{ dispatch_job: 'j', status: 5 }, 417], [{ dispatch_job: 'job-1', dispatch_key: 'other-key' }, 409],
      // Review: any status and the Approval Packet document type were accepted.
      [{ dispatch_job: 'j', status: 'Closed' }, 417], [{ dispatch_job: 'j', status: 'Delivered' }, 417], [{ dispatch_job: 'j', status: 'Dead' }, 417],
      [{ dispatch_job: 'j', document_type: 'Approval Packet', document_name: 'APR-PKT-2026-00001' }, 417], [{ dispatch_job: 'j', document_type: 'Dead Letter' }, 417],
      [{ dispatch_job: 'j', document_name: 'ACC-PINV-2026-00001' }, 417],
    ];
    for (const [args, status] of cases) {
      const response = await callMethod(erp.url, 'workflows.materialize_dispatch_callback_job', args);
      assert.equal(response.status, status, `${JSON.stringify(args)}: ${response.text}`);
    }
    assert.equal((await callMethod(erp.url, 'workflows.materialize_dispatch_callback_job', { dispatch_job: 'j' }, { auth: undefined })).status, 403);
    assert.deepEqual(tableCounts(erp.service), before);
  });

  test('a job awaiting its external callback may be materialized as Dispatched', async () => {
    const job = message(await callMethod(erp.url, 'workflows.materialize_dispatch_callback_job', { dispatch_job: 'job-dispatched', status: 'Dispatched', document_type: 'Sales Invoice', document_name: 'ACC-SINV-2026-00001' }));
    assert.deepEqual([job['status'], job['document_type'], job['created']], ['Dispatched', 'Sales Invoice', true]);
  });
});

describe('callbacks.automation_job_result', () => {
  test('acknowledges signed receipt and correlation only; the job is not closed; the same body is one receipt', async () => {
    const body = { dispatch_job: 'job-1', correlation_id: 'corr-1', status: 'succeeded', result: { id: 'n8n-exec-7' } };
    const ack = await jobResult(body);
    assert.equal(ack.status, 200, ack.text);
    assert.deepEqual([message(ack)['receipt'], message(ack)['closeout_allowed']], ['signed_receipt_recorded', false]);
    const job = getDocument(erp.service.store.sqlite, 'Dispatch Job', 'job-1')!;
    assert.deepEqual([job['callback_receipts'], job['status'], job['closeout']], [1, 'Queued', 'owner_readback_required']);
    const before = tableCounts(erp.service);
    assert.equal((await jobResult(body)).status, 200);
    assert.deepEqual(tableCounts(erp.service), before);
  });

  test('Idempotency-Key: same key and body replays; same key, other body is an error; neither changes state', async () => {
    const body = { dispatch_job: 'job-2', correlation_id: 'corr-2', status: 'running' };
    const first = await jobResult(body, { key: 'cb-key-1' });
    assert.equal(first.status, 200);
    const before = tableCounts(erp.service);
    const replay = await jobResult(body, { key: 'cb-key-1' });
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.text, first.text);
    const conflict = await jobResult({ ...body, status: 'failed' }, { key: 'cb-key-1' });
    assert.equal(conflict.status, 417);
    assert.equal(frappeErrorText(conflict).exc_type, 'ValidationError');
    assert.match(frappeErrorText(conflict).message, /Idempotency-Key "cb-key-1" was used with another request body/);
    assert.deepEqual(tableCounts(erp.service), before);
  });

  test('unknown dispatch_job, correlation mismatch, bad signature, malformed and extra fields: refused, nothing changes', async () => {
    const before = tableCounts(erp.service);
    const cases: [Promise<TestResponse>, number, string][] = [
      [jobResult({ dispatch_job: 'nope', correlation_id: 'c' }), 404, 'DoesNotExistError'],
      [jobResult({ dispatch_job: 'job-1', correlation_id: 'other' }), 417, 'ValidationError'],
      [jobResult({ dispatch_job: 'job-1', correlation_id: 'corr-1', dispatch_key: 'key-x' }), 417, 'ValidationError'],
      [jobResult({ dispatch_job: 'job-1', correlation_id: 'corr-1' }, { secret: 'wrong' }), 401, 'AuthenticationError'],
      [jobResult(null, { raw: '{"dispatch_job":' }), 417, 'ValidationError'],
      [jobResult({ dispatch_job: 'job-1', correlation_id: 'corr-1', extra: 1 }), 417, 'ValidationError'],
      [jobResult({ dispatch_job: 'job-1' }), 417, 'ValidationError'],
    ];
    for (const [pending, status, excType] of cases) {
      const response = await pending;
      assert.equal(response.status, status, response.text);
      assert.equal(frappeErrorText(response).exc_type, excType);
    }
    assert.deepEqual(tableCounts(erp.service), before);
  });

  test('Dispatch Jobs read back through /api/resource from their evidence chain', async () => {
    const list = await send(`${erp.url}/api/resource/Dispatch%20Job?fields=["name","dispatch_key","callback_receipts"]&order_by=name%20asc`, { headers: { authorization: TOKEN } });
    assert.deepEqual((list.json() as { data: unknown[] }).data, [{ name: 'job-1', dispatch_key: 'key-1', callback_receipts: 1 }, { name: 'job-2', dispatch_key: 'job-2', callback_receipts: 1 }, { name: 'job-dispatched', dispatch_key: 'job-dispatched', callback_receipts: 0 }]);
  });
});
