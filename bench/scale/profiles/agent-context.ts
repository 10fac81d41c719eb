// The agent-context service at scale. Its business event is the write its users make most: an
// execution run, dispatched (POST /api/v1/execution/runs) and then its result recorded (POST
// .../runs/:run_id/result). Each is a guarded write: the authority context is projected through
// the governance context composer, and the authority decision, the run row and the outbox event
// commit together (six evidence rows per run). Twenty persistent agents get one runtime patch
// each first, and one more patch every thousand runs (a rollout), so the rollouts audit grows too.
// A real governance service (role test, on a temporary install root declaring both services)
// runs in the harness process for every size: the composer admits the writes, and the reads that
// report governance truth answer with it.

import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { createLogger } from '../../../src/kernel/index.ts';
import type { RequestContext } from '../../../src/kernel/index.ts';
import { openAgentContextDatabase } from '../../../src/agent-context/database.ts';
import type { GovernanceClient } from '../../../src/agent-context/governance-client.ts';
import { COMPOSER_PATH } from '../../../src/agent-context/governance-client.ts';
import { guardedWrite } from '../../../src/agent-context/guarded-write.ts';
import type { GuardedWrite } from '../../../src/agent-context/guarded-write.ts';
import { createServiceMetrics } from '../../../src/agent-context/service-metrics.ts';
import { PATCH_APPLY, RUN_DISPATCH, RUN_RESULT } from '../../../src/agent-context/writes.ts';
import { stackRoot } from '../../../test/agent-context/_stack.ts';
import { rootEnv } from '../../../test/governance/_fixtures.ts';
import type { TempRoot } from '../../../test/governance/_fixtures.ts';
import { OPERATOR_TOKEN, startGovernance } from '../../../test/governance/_service.ts';
import type { RunningGovernance } from '../../../test/governance/_service.ts';
import type { GrowOutcome, ReadRoute, ScaleProfile } from '../profile.ts';

const TOKEN = 'scale-bench-agent-context-token';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const AGENTS = 20;
const RUNS_PER_ROLLOUT = 1000;
const GROW_CONCURRENCY = 16;
const authority = (intent: string) => ({ role: 'operator', module_key: 'agent-runtime-control', action_intent: intent, actor: 'ops-scale' });

interface Write {
  route: string;
  params: Record<string, string>;
  body: Record<string, unknown>;
}

/** The writes of the n-th execution run: a rollout patch first when one is due, then dispatch and result. */
function writesOf(n: number): Write[] {
  const agent = `agent-${n % AGENTS}`;
  const run = `run-${n}`;
  const rollout = Math.floor(n / RUNS_PER_ROLLOUT);
  const patch = n % RUNS_PER_ROLLOUT < AGENTS && (rollout > 0 || n < AGENTS)
    ? [{ route: '/api/v1/agent-runtime/patch/apply', params: {}, body: { agent_id: agent, runtime: 'node', version: `1.${rollout}.0`, reason: `rollout ${rollout}`, authority_context: authority('patch_agent_runtime') } }]
    : [];
  return [
    ...patch,
    { route: '/api/v1/execution/runs', params: {}, body: { agent_id: agent, run_id: run, action: 'summarize-inbox', authority_context: authority('dispatch_execution') } },
    { route: '/api/v1/execution/runs/:run_id/result', params: { run_id: run }, body: { outcome: n % 20 === 19 ? 'failed' : 'succeeded', observed_version: `1.${rollout}.0`, authority_context: authority('dispatch_execution') } },
  ];
}

const WRITE_OF: Record<string, GuardedWrite> = {
  '/api/v1/agent-runtime/patch/apply': PATCH_APPLY,
  '/api/v1/execution/runs': RUN_DISPATCH,
  '/api/v1/execution/runs/:run_id/result': RUN_RESULT,
};

export function agentContextProfile(): ScaleProfile {
  const grown: GrowOutcome = { events: 0, rawBytes: 0 };
  let governance: RunningGovernance | undefined;
  let root: TempRoot | undefined;
  const get = (name: string, path: string, headers: Record<string, string> = AUTH): ReadRoute => ({ name, request: { path, headers } });
  return {
    service: 'agent-context',
    businessEvent: 'execution run',
    entry: fileURLToPath(new URL('../../../src/agent-context/main.ts', import.meta.url)),
    bundle: 'agent-context-api.mjs',
    async start() {
      root = stackRoot();
      governance = await startGovernance({ role: 'test', env: rootEnv(root.root) });
    },
    async stop() {
      await governance?.stop();
      root?.cleanup();
    },
    env: (dir) => ({
      AIRLOCK_DATA_DIR: dir,
      AGENT_CONTEXT_LISTEN: '127.0.0.1:0',
      AGENT_CONTEXT_TOKEN: TOKEN,
      AGENT_CONTEXT_SERVICE_AUTH_TOKEN: OPERATOR_TOKEN,
      GOVERNANCE_URL: governance!.worker!,
    }),
    database: (dir) => join(dir, 'agent-context.sqlite'),
    async grow(url, target) {
      let next = grown.events;
      const worker = async () => {
        while (next < target) {
          const n = next++;
          for (const write of writesOf(n)) {
            const path = write.route.replace(':run_id', write.params['run_id'] ?? '');
            const body = JSON.stringify(write.body);
            const res = await fetch(new URL(path, url), { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body });
            await res.arrayBuffer();
            if (res.status !== 201) throw new Error(`agent-context answered ${res.status} to ${path}`);
            if (write.route !== '/api/v1/agent-runtime/patch/apply') grown.rawBytes += Buffer.byteLength(body);
          }
          grown.events++;
        }
      };
      await Promise.all(Array.from({ length: GROW_CONCURRENCY }, worker));
      return { ...grown };
    },
    // guardedWrite() as the routes run it: the authority projection, the check and the effect in
    // one transaction. The composer's answer for this role and module is asked once of the real
    // governance and given to every write (it is the same answer each time; an HTTP call per
    // write would make growth to 10^6 take hours).
    async growDirect(dir, target) {
      const store = openAgentContextDatabase(join(dir, 'agent-context.sqlite'), dir);
      const answer = await fetch(`${governance!.worker}${COMPOSER_PATH}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ role: 'operator', module_key: 'agent-runtime-control', include: ['action_context'] }),
      });
      if (answer.status !== 200) throw new Error(`The governance composer answered ${answer.status}`);
      const composition = { ok: true as const, status: 200, body: await answer.json() as unknown };
      const client: GovernanceClient = { truth: () => Promise.resolve(composition), compose: () => Promise.resolve(composition), lastSuccess: () => undefined, configured: true };
      const metrics = createServiceMetrics({ version: 'scale', rows: () => [], bytes: () => 0, control: () => ({ mode: 'running', commands: 0, last: null }), governanceLastSuccess: () => undefined, now: Date.now, startedAt: Date.now() });
      const deps = { store: () => store, governance: client, metrics };
      const handlers = new Map(Object.entries(WRITE_OF).map(([route, write]) => [route, guardedWrite(route, write, deps)]));
      const log = createLogger({ name: 'scale', service: 'agent-context', write: () => undefined });
      const context = (write: Write, id: number) => ({ method: 'POST', path: write.route, query: new URLSearchParams(), params: write.params, headers: {}, requestId: `scale-${id}`, listener: 'main', remoteAddress: '127.0.0.1', rawBody: undefined, body: write.body, principal: 'scale', signature: undefined, log }) as unknown as RequestContext;
      try {
        let id = 0;
        while (grown.events < target) {
          // One run's writes are in order (the result needs its dispatch); runs are independent.
          const batch: Promise<void>[] = [];
          while (batch.length < 500 && grown.events < target) {
            const n = grown.events++;
            batch.push((async () => {
              for (const write of writesOf(n)) {
                const reply = await handlers.get(write.route)!(context(write, id++));
                if (reply.status !== 201) throw new Error(`${write.route} answered ${reply.status}: ${JSON.stringify((reply as { body?: unknown }).body)}`);
                if (write.route !== '/api/v1/agent-runtime/patch/apply') grown.rawBytes += Buffer.byteLength(JSON.stringify(write.body));
              }
            })());
          }
          await Promise.all(batch);
        }
      } finally {
        await store.close();
      }
      return { ...grown };
    },
    reads: [
      get('GET /health', '/health', {}),
      get('GET /ready', '/ready', {}),
      get('GET /version', '/version', {}),
      get('GET /metrics', '/metrics', {}),
      get('GET /openapi.json', '/openapi.json', {}),
      get('GET /governance-manifest.json', '/governance-manifest.json', {}),
      get('GET runtime/inventory', '/api/v1/runtime/inventory'),
      get('GET topology/diff', '/api/v1/topology/diff'),
      get('GET drift/summary', '/api/v1/drift/summary'),
      get('GET rollouts/audit', '/api/v1/rollouts/audit'),
      get('GET control-agent/status', '/api/v1/control-agent/status'),
      get('GET persistent-agents', '/api/v1/persistent-agents'),
      { name: 'POST context/compose (read-only: a governance composition)', request: { method: 'POST', path: '/api/v1/context/compose', headers: { ...AUTH, 'content-type': 'application/json' }, body: JSON.stringify({ role: 'operator', module_key: 'agent-runtime-control', include: ['action_context'] }) } },
    ],
    heaviest: get('GET rollouts/audit', '/api/v1/rollouts/audit'),
    readiness: get('GET /ready', '/ready', {}),
  };
}
