// signed-intake: verify a house-scheme signature, parse JSON, append durable evidence, answer —
// beside the bare node:http baseline answering the same POST. Target (issue 4): at least 0.25 of
// the baseline's requests/s and p99 under 10 ms at concurrency 50.
import { fileURLToPath } from 'node:url';
import { signRequest } from '../../src/kernel/index.ts';
import { compareHttp } from '../lib/compare-http.ts';
import type { Scenario } from '../lib/scenario.ts';

const SECRET = 'bench-intake-secret';
const BODY = Buffer.from(JSON.stringify({ subject: 'supplier-0042', kind: 'contact.created', fields: { name: 'Ada', email: 'ada@example.test', tags: ['a', 'b'] } }));

// Signed once a second, as the timestamp only moves that often: the load generator shares the
// machine's two cores with the server, and its own HMAC work is not what this scenario measures.
let signedAt = -1;
let signedHeaders: Record<string, string> = {};

function signedBody() {
  const now = Math.floor(Date.now() / 1000);
  if (now !== signedAt) {
    signedAt = now;
    signedHeaders = { ...signRequest('house', { rawBody: BODY, secret: SECRET, now }), 'content-type': 'application/json' };
  }
  return { body: BODY, headers: signedHeaders };
}

export const scenario: Scenario = {
  name: 'signed-intake',
  description: 'POST with a house-scheme signature -> verify, parse, append evidence (group commit, synchronous=FULL) vs bare node:http',
  async run(options) {
    const record = await compareHttp({
      scenario: 'signed-intake',
      server: fileURLToPath(new URL('../servers/signed-intake.ts', import.meta.url)),
      env: { BENCH_INTAKE_SECRET: SECRET },
      request: { path: '/api/v1/intake', method: 'POST', body: signedBody },
      baselineRequest: { path: '/', method: 'POST', body: signedBody },
      expectStatus: 202,
    }, options);
    return [{ ...record, target_ratio: 0.25, target_p99_ms: 10 }];
  },
};
