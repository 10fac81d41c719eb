// The callbacks.* slice: signed inbound execution evidence (house scheme), each with an optional
// Idempotency-Key (the kernel's: same key and body replays, another body is 422), whose
// completion commits in the effect's own transaction (writeReply): automation_job_result,
// agent_runtime_approval and automation_hil_decision.

import { lazyIdempotencyStore, parseJsonBody, writeReply } from '../../kernel/index.ts';
import type { IdempotencyStore } from '../../kernel/index.ts';
import { frappeHandler, signedBy } from '../erp-route.ts';
import type { DepsRef, ErpRoute } from '../erp-route.ts';
import { frappeMessage } from '../frappe/envelope.ts';
import { methodPath } from '../identity.ts';
import { bodySha256 } from '../webhooks/record-delivery.ts';
import { applyDecision } from '../approvals/packets.ts';
import { parseDecision } from './decision.ts';
import { parseJobResult, recordJobResult } from './job-result.ts';

/**
 * Only executed requests keep their result under an Idempotency-Key (Stripe's rule): a handler that
 * took effect completed the key inside its own transaction (writeReply). A refusal before any
 * effect (unknown dispatch_job, validation) reaches the kernel's own completion instead, which
 * releases the key here, so a retry once the job exists runs afresh instead of replaying a 404.
 */
export function executedOnly(store: IdempotencyStore): IdempotencyStore {
  return { ...store, complete: ({ token, scope, key }) => store.abandon({ scope, key, token }) };
}

export function callbackRoutes(deps: DepsRef): ErpRoute[] {
  // Each handler commits its effect through writeReply: a key's completion joins the effect's transaction.
  const idempotency = { store: executedOnly(lazyIdempotencyStore(() => deps().idempotency)), required: false };
  const base = { family: 'callbacks', stability: 'stable', method: 'POST', auth: 'none', request: { raw: true, contentTypes: ['application/json'] }, idempotency } as const;
  const decision = (source: string, tokenRequired: boolean) => frappeHandler(async (context) => {
    const input = parseDecision(parseJsonBody(context.rawBody!), { tokenRequired });
    const { store, now } = deps();
    return writeReply(context, { store, work: (sqlite, tx) => applyDecision(sqlite, tx, { ...input, source, at: new Date(now()) }), reply: (result) => frappeMessage(result) });
  });
  return [
    { ...base, path: methodPath('callbacks.agent_runtime_approval'), summary: 'Signed approval decision from the agent runtime (house scheme, AGENT_RUNTIME_CALLBACK_SECRET) with the packet\'s callback token', signature: signedBy(deps, 'AGENT_RUNTIME_CALLBACK_SECRET'), handler: decision('agent_runtime', true) },
    { ...base, path: methodPath('callbacks.automation_hil_decision'), summary: 'Signed human-in-loop decision for an existing approval packet (house scheme, AUTOMATION_SHARED_SECRET)', signature: signedBy(deps, 'AUTOMATION_SHARED_SECRET'), handler: decision('automation_hil', false) },
    {
      family: 'callbacks',
      stability: 'stable',
      method: 'POST',
      path: methodPath('callbacks.automation_job_result'),
      auth: 'none',
      summary: 'Signed job or dispatch result (house scheme, AUTOMATION_SHARED_SECRET); acknowledges signed receipt and correlation only',
      request: { raw: true, contentTypes: ['application/json'] },
      signature: signedBy(deps, 'AUTOMATION_SHARED_SECRET'),
      idempotency,
      handler: frappeHandler(async (context) => {
        const input = parseJobResult(parseJsonBody(context.rawBody!));
        const { store, now } = deps();
        const rawSha256 = bodySha256(context.rawBody!);
        return writeReply(context, { store, work: (sqlite, tx) => recordJobResult(sqlite, tx, { ...input, rawSha256, at: new Date(now()) }), reply: (result) => frappeMessage(result) });
      }),
    },
  ];
}
