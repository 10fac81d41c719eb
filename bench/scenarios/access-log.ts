// access-log: what the kernel's access log (on by default) costs. The kernel-json server with the
// log on is measured against the same server with AIRLOCK_ACCESS_LOG=0 as the baseline, in
// alternating halves of one run, so the ratio is the share of throughput the log leaves. The
// lines go to /dev/null (see bench/lib/child-server.ts), as cheap a sink as a journal gets.
import { fileURLToPath } from 'node:url';
import { compareHttp } from '../lib/compare-http.ts';
import type { Scenario } from '../lib/scenario.ts';

export const scenario: Scenario = {
  name: 'access-log',
  description: 'GET of a small JSON document through the kernel with the access log on vs off',
  async run(options) {
    const server = fileURLToPath(new URL('../servers/kernel-json.ts', import.meta.url));
    const request = { path: '/api/v1/small' };
    const record = await compareHttp({
      scenario: 'access-log',
      server,
      env: { AIRLOCK_ACCESS_LOG: '1' },
      baselineServer: server,
      baselineEnv: { AIRLOCK_ACCESS_LOG: '0' },
      baselineRequest: request,
      request,
      expectStatus: 200,
    }, options);
    return [{ ...record, baseline: 'kernel-json with AIRLOCK_ACCESS_LOG=0' }];
  },
};
