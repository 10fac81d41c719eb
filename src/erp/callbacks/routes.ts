// The callbacks.* slice: signed inbound execution evidence (house scheme), each with an optional
// Idempotency-Key (the kernel's: same key and body replays, another body is 422). Part 2 so far:
// automation_job_result; agent_runtime_approval and automation_hil_decision join with approval packets.

import { parseJsonBody } from '../../kernel/index.ts';
import { frappeHandler } from '../erp-route.ts';
import type { DepsRef, ErpRoute } from '../erp-route.ts';
import { frappeMessage } from '../frappe/envelope.ts';
import { methodPath } from '../identity.ts';
import { bodySha256 } from '../webhooks/record-delivery.ts';
import { parseJobResult, recordJobResult } from './job-result.ts';
import { lazyIdempotency } from './lazy-idempotency.ts';

export function callbackRoutes(deps: DepsRef): ErpRoute[] {
  const idempotency = { store: lazyIdempotency(deps), required: false };
  return [
    {
      family: 'callbacks',
      stability: 'stable',
      method: 'POST',
      path: methodPath('callbacks.automation_job_result'),
      auth: 'none',
      summary: 'Signed job or dispatch result (house scheme, AUTOMATION_SHARED_SECRET); acknowledges signed receipt and correlation only',
      request: { raw: true, contentTypes: ['application/json'] },
      signature: { scheme: 'house', secrets: () => { const s = deps().config.secrets.AUTOMATION_SHARED_SECRET; return s === undefined ? [] : [s]; } },
      idempotency,
      handler: frappeHandler(async (context) => {
        const input = parseJobResult(parseJsonBody(context.rawBody!));
        const { store, now } = deps();
        const rawSha256 = bodySha256(context.rawBody!);
        return frappeMessage(await store.write((sqlite, tx) => recordJobResult(sqlite, tx, { ...input, rawSha256, at: new Date(now()) })));
      }),
    },
  ];
}
