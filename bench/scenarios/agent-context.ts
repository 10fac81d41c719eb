// agent-context: a Prometheus scrape of /metrics and internal reads with the bearer token at the
// run's concurrency, each beside the bare node:http baseline: GET /api/v1/control-agent/status
// (a small answer: the control fold and governance truth, kept for 5 s) and GET
// /api/v1/persistent-agents (ten agents, about 4 KB). Target (issue 18): at least 0.5.
import { fileURLToPath } from 'node:url';
import { compareHttp } from '../lib/compare-http.ts';
import type { Scenario } from '../lib/scenario.ts';

const SERVER = fileURLToPath(new URL('../servers/agent-context.ts', import.meta.url));
const TOKEN = 'bench-agent-context-token-0001';

export const scenario: Scenario = {
  name: 'agent-context',
  description: 'GET /metrics, /api/v1/control-agent/status and /api/v1/persistent-agents (bearer) on agent-context, vs bare node:http',
  async run(options) {
    const metrics = await compareHttp({ scenario: 'agent-context-metrics', server: SERVER, request: { path: '/metrics' }, expectStatus: 200 }, options);
    const headers = { authorization: `Bearer ${TOKEN}` };
    const status = await compareHttp({ scenario: 'agent-context-read', server: SERVER, request: { path: '/api/v1/control-agent/status', headers }, expectStatus: 200 }, options);
    const agents = await compareHttp({ scenario: 'agent-context-read-agents', server: SERVER, request: { path: '/api/v1/persistent-agents', headers }, expectStatus: 200 }, options);
    return [{ ...metrics, target_ratio: 0.5 }, { ...status, target_ratio: 0.5 }, { ...agents, target_ratio: 0.5 }];
  },
};
