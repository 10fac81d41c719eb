// The decision callbacks: agent_runtime_approval (packet identity, callback token, decision, actor
// metadata) and automation_hil_decision (a human-in-loop decision for an existing packet).

import { asObject, refuseExtra, requiredString } from '../fields.ts';
import { frappeThrow } from '../frappe/envelope.ts';

export interface Decision {
  packet: string;
  token: string | undefined;
  decision: 'approved' | 'rejected';
  actor: Record<string, unknown>;
}

export function parseDecision(body: unknown, options: { tokenRequired: boolean }): Decision {
  const payload = asObject(body, 'payload');
  refuseExtra(payload, ['approval_packet', 'decision', 'actor', ...(options.tokenRequired ? ['callback_token'] : [])], '');
  const decision = requiredString(payload, 'decision', '', 16);
  if (decision !== 'approved' && decision !== 'rejected') frappeThrow(`Field "decision" must be "approved" or "rejected", got ${JSON.stringify(decision)}`);
  const actor = payload['actor'] === undefined ? {} : asObject(payload['actor'], 'actor');
  if (JSON.stringify(actor).length > 4096) frappeThrow('Field "actor" is larger than 4 KiB');
  return {
    packet: requiredString(payload, 'approval_packet', '', 140),
    token: options.tokenRequired ? requiredString(payload, 'callback_token', '', 256) : undefined,
    decision,
    actor,
  };
}
