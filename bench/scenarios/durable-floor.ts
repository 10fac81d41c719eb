// durable-floor: what a durable acknowledgement costs over HTTP, with nothing else. A POST whose
// body becomes one row through a group commit (WAL, synchronous=FULL, the answer after COMMIT),
// beside the bare node:http baseline answering the same POST. The gap between this figure and a
// durable-write scenario (signed-intake, governance-keyed-write, erp-payment-b) is that
// scenario's own work, not the fsync (docs/performance.md, "The durable floor").
import { fileURLToPath } from 'node:url';
import { compareHttp } from '../lib/compare-http.ts';
import type { Scenario } from '../lib/scenario.ts';

const BODY = JSON.stringify({ subject: 'supplier-0042', kind: 'contact.created', fields: { name: 'Ada', email: 'ada@example.test', tags: ['a', 'b'] } });
const request = { path: '/', method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY };

export const scenario: Scenario = {
  name: 'durable-floor',
  description: 'POST -> one row through a group commit (synchronous=FULL), answer after COMMIT, vs bare node:http',
  async run(options) {
    const record = await compareHttp({
      scenario: 'durable-floor',
      server: fileURLToPath(new URL('../servers/durable-floor.ts', import.meta.url)),
      request,
      baselineRequest: request,
      expectStatus: 202,
    }, options);
    return [record];
  },
};
