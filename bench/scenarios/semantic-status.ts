// semantic-status: GET /api/v1/semantic/runtime/status (consumer bearer auth, CDC admission,
// cached body, strong ETag) with and without If-None-Match, beside the bare node:http baseline.
// Targets (issue 5): at least 0.7 of the baseline's requests/s for 200s and 0.8 for 304s at
// concurrency 50. The 304 run sends `If-None-Match: *`, which matches any current representation
// (RFC 9110 13.1.2): the server does the same work as for a specific tag (serialize, hash, compare)
// without the load generator having to learn the ETag of a server it starts itself.
import { fileURLToPath } from 'node:url';
import { compareHttp } from '../lib/compare-http.ts';
import type { BenchRecord, Scenario } from '../lib/scenario.ts';

const TOKEN = 'bench-consumer-token-0123456789';
const SERVER = fileURLToPath(new URL('../servers/semantic-status.ts', import.meta.url));
const PATH = '/api/v1/semantic/runtime/status';

export const scenario: Scenario = {
  name: 'semantic-status',
  description: 'Semantic runtime status readback, 200 and 304, vs bare node:http',
  async run(options) {
    const headers = { authorization: `Bearer ${TOKEN}` };
    const records: BenchRecord[] = [];
    const full = await compareHttp({
      scenario: 'semantic-status-200',
      server: SERVER,
      env: { BENCH_SEMANTIC_TOKEN: TOKEN },
      request: { path: PATH, headers },
      expectStatus: 200,
    }, options);
    records.push({ ...full, target_ratio: 0.7 });
    const notModified = await compareHttp({
      scenario: 'semantic-status-304',
      server: SERVER,
      env: { BENCH_SEMANTIC_TOKEN: TOKEN },
      request: { path: PATH, headers: { ...headers, 'if-none-match': '*' } },
      expectStatus: 304,
    }, options);
    records.push({ ...notModified, target_ratio: 0.8 });
    return records;
  },
};
