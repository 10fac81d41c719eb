// callbacks.automation_job_result: a signed job or dispatch result from the automation tool. The
// acknowledgement confirms signed receipt and correlation only: the receipt is one more row of the
// Dispatch Job's evidence chain, the job is never closed by it (closeout needs the owner's readback
// of ERP business truth), and an unknown dispatch_job is rejected. The same body twice is one receipt.

import type { DatabaseSync } from 'node:sqlite';
import type { Transaction } from '../../kernel/index.ts';
import { findByIdentity, getDocument, updateDocument } from '../database/documents.ts';
import { asObject, isObject, optionalString, refuseExtra, requiredString } from '../fields.ts';
import { frappeThrow } from '../frappe/envelope.ts';

export interface JobResult {
  dispatchJob: string;
  dispatchKey: string | undefined;
  correlationId: string;
  status: string | undefined;
  result: unknown;
}

export function parseJobResult(body: unknown): JobResult {
  const payload = asObject(body, 'payload');
  refuseExtra(payload, ['dispatch_job', 'dispatch_key', 'correlation_id', 'status', 'result'], '');
  const result = payload['result'];
  if (result !== undefined && result !== null && !isObject(result)) frappeThrow('Field "result" must be an object');
  return {
    dispatchJob: requiredString(payload, 'dispatch_job', '', 140),
    dispatchKey: optionalString(payload, 'dispatch_key', '', 500),
    correlationId: requiredString(payload, 'correlation_id', '', 200),
    status: optionalString(payload, 'status', '', 64),
    result: result ?? null,
  };
}

export function recordJobResult(sqlite: DatabaseSync, tx: Transaction, input: JobResult & { rawSha256: string; at: Date }): Record<string, unknown> {
  const job = getDocument(sqlite, 'Dispatch Job', input.dispatchJob) ?? frappeThrow(`Dispatch Job ${input.dispatchJob} not found: materialize it first`, 'DoesNotExistError');
  if (input.dispatchKey !== undefined && findByIdentity(sqlite, 'Dispatch Job', input.dispatchKey)?.name !== job.name) {
    frappeThrow(`Correlation mismatch: dispatch_key does not belong to Dispatch Job ${job.name}`);
  }
  const expected = (job['callback_payload'] as Record<string, unknown> | null)?.['correlation_id'];
  if (typeof expected === 'string' && expected !== input.correlationId) frappeThrow(`Correlation mismatch: Dispatch Job ${job.name} expects another correlation_id`);
  const receipts = (job['receipt_sha256'] as string[] | undefined) ?? [];
  const answer = { ok: true, dispatch_job: job.name, correlation_id: input.correlationId, receipt: 'signed_receipt_recorded', closeout_allowed: false, note: 'A callback is execution evidence, not business closeout: closeout needs the owner readback of ERP business truth' };
  if (receipts.includes(input.rawSha256)) return answer;
  updateDocument(sqlite, tx, job, {
    callback_receipts: Number(job['callback_receipts'] ?? 0) + 1,
    receipt_sha256: [...receipts, input.rawSha256].slice(-100),
    last_callback: { correlation_id: input.correlationId, status: input.status ?? null, result: input.result, received_at: input.at.toISOString() },
  }, input.at);
  return answer;
}
