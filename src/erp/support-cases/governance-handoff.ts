// The support handoff to the governance service: POST <GOVERNANCE_URL>/api/v1/events/outbox/support
// with the lane token, the event audit key as Idempotency-Key (so a retry after a lost answer
// records nothing twice), a timeout, and no redirects. Governance checks the payload against the
// support.* event's payload_schema; anything but 201 is a failed handoff, reported with what
// happened (status or transport error), never the token.

import type { OutboundConfig } from '../outbound-config.ts';
import { describeFetchFailure } from '../outbound-failure.ts';

export interface HandoffRecord {
  event: string;
  occurred_at: string;
  correlation_id: string;
  payload: Record<string, unknown>;
}

export type HandoffResult =
  | { ok: true; status: number; receiver: string; family: 'support'; event: string; seq: number; sha256: string; readback: string; attempted_at: string }
  | { ok: false; reason: 'governance_support_handoff_failed'; detail: string; status: number | null; receiver: string | null; attempted_at: string };

export const HANDOFF_PATH = '/api/v1/events/outbox/support';
export const HANDOFF_READBACK = '/api/v1/support-orchestration/handoffs';

export async function handOff(config: OutboundConfig, auditKey: string, record: HandoffRecord, now: Date): Promise<HandoffResult> {
  const attempted_at = now.toISOString();
  const failed = (detail: string, status: number | null, receiver: string | null): HandoffResult => ({ ok: false, reason: 'governance_support_handoff_failed', detail, status, receiver, attempted_at });
  if (config.governanceUrl === undefined || config.governanceToken === undefined) return failed('GOVERNANCE_URL and GOVERNANCE_TOKEN are not configured', null, null);
  const receiver = `${config.governanceUrl}${HANDOFF_PATH}`;
  let response: Response;
  try {
    response = await fetch(receiver, {
      method: 'POST',
      headers: { authorization: `Bearer ${config.governanceToken}`, 'content-type': 'application/json', accept: 'application/json', 'idempotency-key': JSON.stringify(auditKey) },
      body: JSON.stringify(record),
      signal: AbortSignal.timeout(config.timeoutMs),
      redirect: 'error',
    });
  } catch (error) {
    return failed(describeFetchFailure(error, config.timeoutMs), null, receiver);
  }
  const text = await response.text().catch(() => '');
  if (response.status !== 201) {
    let detail = `governance answered ${response.status}`;
    try {
      const problem = JSON.parse(text) as { detail?: unknown };
      if (typeof problem.detail === 'string') detail += `: ${problem.detail.slice(0, 300)}`;
    } catch {
      // A body that is not JSON adds nothing an operator can use.
    }
    return failed(detail, response.status, receiver);
  }
  let body: { seq: number; sha256: string; event: string };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return failed('governance answered 201 without a JSON body', response.status, receiver);
  }
  return { ok: true, status: 201, receiver, family: 'support', event: body.event, seq: body.seq, sha256: body.sha256, readback: HANDOFF_READBACK, attempted_at };
}
