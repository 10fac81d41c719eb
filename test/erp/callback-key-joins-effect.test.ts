// A keyed callback's effect and its Idempotency-Key commit in one transaction (DESIGN.md,
// Idempotency; kernel writeReply). A failure injected between them, a SQLite trigger that refuses
// to mark the key completed, must roll the effect back too: otherwise the effect is committed
// under a key that is released, and the client's retry with the same key applies it twice.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { signRequest } from '../../src/kernel/index.ts';
import { IDEMPOTENCY_TABLE } from '../../src/kernel/store/idempotency-store.ts';
import { getDocument } from '../../src/erp/database/documents.ts';
import { send } from '../helpers/http.ts';
import type { TestResponse } from '../helpers/http.ts';
import { SECRETS, callMethod, postHouse, startErp, tableCounts } from './_service.ts';
import type { Running } from './_service.ts';

let erp: Running;
before(async () => {
  erp = await startErp();
});
after(() => erp.stop());

const message = (r: TestResponse) => (r.json() as { message: Record<string, any> }).message;
function signed(fn: string, body: unknown, key: string, secret = SECRETS.AUTOMATION_SHARED_SECRET): Promise<TestResponse> {
  const raw = Buffer.from(JSON.stringify(body));
  const headers = signRequest('house', { rawBody: raw, secret, now: Math.floor(Date.now() / 1000) });
  return send(`${erp.url}/api/method/erp_core.api.callbacks.${fn}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': key }, body: raw });
}

/** Makes every key completion fail until the returned function is called. */
function refuseKeyCompletion(): () => void {
  const sqlite = erp.service.store.sqlite;
  sqlite.exec(`CREATE TRIGGER refuse_key_completion BEFORE UPDATE ON ${IDEMPOTENCY_TABLE} WHEN NEW.state = 'completed' BEGIN SELECT RAISE(ABORT, 'injected failure completing the key'); END`);
  return () => sqlite.exec('DROP TRIGGER refuse_key_completion');
}

describe('keyed callbacks: key completion and effect share one transaction', () => {
  test('automation_job_result: a failed key completion leaves no receipt; the retry records exactly one', async () => {
    await callMethod(erp.url, 'workflows.materialize_dispatch_callback_job', { dispatch_job: 'job-tx', callback_payload: { correlation_id: 'corr-tx' } });
    const body = { dispatch_job: 'job-tx', correlation_id: 'corr-tx', status: 'succeeded' };
    const before = tableCounts(erp.service);
    const restore = refuseKeyCompletion();
    const failed = await signed('automation_job_result', body, 'tx-key-1');
    restore();
    assert.equal(failed.status, 500, failed.text);
    assert.deepEqual(tableCounts(erp.service), before, 'the effect rolled back with the key');
    assert.equal(getDocument(erp.service.store.sqlite, 'Dispatch Job', 'job-tx')!['callback_receipts'] ?? 0, 0);
    const retry = await signed('automation_job_result', body, 'tx-key-1');
    assert.equal(retry.status, 200, retry.text);
    const replay = await signed('automation_job_result', body, 'tx-key-1');
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(getDocument(erp.service.store.sqlite, 'Dispatch Job', 'job-tx')!['callback_receipts'], 1);
  });

  test('automation_hil_decision: a failed key completion leaves the packet undecided; the retry decides it once', async () => {
    const lead = await postHouse(erp.url, 'website_contact_intake', { contact: { email: 'keyed-tx@example.test' } });
    const leadName = message(lead)['lead'];
    const packet = message(await callMethod(erp.url, 'workflows.request_approval', { doctype: 'Lead', docname: leadName }))['approval_packet'];
    const body = { approval_packet: packet, decision: 'approved' };
    const before = tableCounts(erp.service);
    const restore = refuseKeyCompletion();
    const failed = await signed('automation_hil_decision', body, 'tx-key-2');
    restore();
    assert.equal(failed.status, 500, failed.text);
    assert.deepEqual(tableCounts(erp.service), before, 'the decision rolled back with the key');
    assert.equal(getDocument(erp.service.store.sqlite, 'Approval Packet', packet)!['status'], 'requested');
    const retry = await signed('automation_hil_decision', body, 'tx-key-2');
    assert.equal(retry.status, 200, `a retry with the same key decides the packet, not a 409 for a decision already taken: ${retry.text}`);
    assert.equal(getDocument(erp.service.store.sqlite, 'Approval Packet', packet)!['status'], 'decision_received');
  });
});

describe('only executed requests keep their result under an Idempotency-Key', () => {
  test('automation_job_result: a 404 for a job that does not exist yet is not replayed once the job exists', async () => {
    const body = { dispatch_job: 'job-later', correlation_id: 'corr-later' };
    const early = await signed('automation_job_result', body, '"key-later"');
    assert.equal(early.status, 404);
    await callMethod(erp.url, 'workflows.materialize_dispatch_callback_job', { dispatch_job: 'job-later', callback_payload: { correlation_id: 'corr-later' } });
    const retry = await signed('automation_job_result', body, '"key-later"');
    assert.deepEqual([retry.status, retry.headers['idempotent-replayed']], [200, undefined]);
    assert.equal(message(retry)['receipt'], 'signed_receipt_recorded');
    // Executed: now the key keeps its result.
    const replay = await signed('automation_job_result', body, '"key-later"');
    assert.deepEqual([replay.status, replay.headers['idempotent-replayed'], replay.text], [200, 'true', retry.text]);
  });

  test('a validation refusal and an unknown packet are not stored under the key either', async () => {
    const invalid = await signed('automation_job_result', { dispatch_job: 'job-later' }, '"key-invalid"');
    assert.equal(invalid.status, 417);
    const again = await signed('automation_job_result', { dispatch_job: 'job-later' }, '"key-invalid"');
    assert.deepEqual([again.status, again.headers['idempotent-replayed']], [417, undefined]);
    const unknown = await signed('automation_hil_decision', { approval_packet: 'APR-PKT-2026-99999', decision: 'approved' }, '"key-packet"');
    assert.equal(unknown.status, 404);
    const rows = erp.service.store.sqlite.prepare(`SELECT count(*) AS n FROM ${IDEMPOTENCY_TABLE} WHERE key IN ('key-invalid', 'key-packet', 'key-later') AND state = 'completed'`).get()!;
    assert.equal(Number(rows['n']), 1);
  });
});
