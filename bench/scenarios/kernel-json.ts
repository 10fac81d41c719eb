// kernel-json: a kernel service answering a small JSON route, beside the bare node:http baseline.
// Target (issue 2): at least 0.85 of the baseline's requests/s at concurrency 50.
import { fileURLToPath } from 'node:url';
import { compareHttp } from '../lib/compare-http.ts';
import type { Scenario } from '../lib/scenario.ts';

export const scenario: Scenario = {
  name: 'kernel-json',
  description: 'GET of a small JSON document through the kernel pipeline vs bare node:http',
  async run(options) {
    const record = await compareHttp({
      scenario: 'kernel-json',
      server: fileURLToPath(new URL('../servers/kernel-json.ts', import.meta.url)),
      request: { path: '/api/v1/small' },
      expectStatus: 200,
    }, options);
    return [{ ...record, target_ratio: 0.85 }];
  },
};
