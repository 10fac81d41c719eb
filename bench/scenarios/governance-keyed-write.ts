// governance-keyed-write: POST /api/v1/events/outbox/planning with a fresh Idempotency-Key per
// request, on the worker listener, beside the bare node:http baseline of the same run. Each
// request begins its key, appends one hash-chained outbox row and completes the key in the same
// transaction (DESIGN.md, Idempotency), all through the group committer.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { compareHttp } from '../lib/compare-http.ts';
import type { Scenario } from '../lib/scenario.ts';

const SERVER = fileURLToPath(new URL('../servers/governance-write.ts', import.meta.url));
const PATH = '/api/v1/events/outbox/planning';
const BODY = JSON.stringify({
  event: 'planning.owner_decision_recorded',
  occurred_at: '2026-11-21T12:00:00Z',
  payload: { session_id: 'ps_11111111-2222-4333-8444-555555555555', revision: 2, decision: 'approved', planning_event_seq: 7 },
});

export const scenario: Scenario = {
  name: 'governance-keyed-write',
  description: `POST ${PATH} with a fresh Idempotency-Key each time (key, row and stored answer in one transaction), vs bare node:http`,
  async run(options) {
    const record = await compareHttp({
      scenario: 'governance-keyed-write',
      server: SERVER,
      request: {
        path: PATH,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer bench-operator-token-0001' },
        body: () => ({ body: BODY, headers: { 'idempotency-key': `"${randomUUID()}"` } }),
      },
      expectStatus: 201,
    }, options);
    return [record];
  },
};
