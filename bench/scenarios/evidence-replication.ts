// evidence-replication: the ERP service taking signed payment_b deliveries with evidence
// replication to a local 3-server nats-server JetStream cluster (R3), in sync and in async mode,
// each beside the same service with replication off, measured in the same run. Targets (issue 25):
// sync at least 0.5 of off, async at least 0.9. A third record measures async lag under load:
// the service's /healthz is sampled while the load runs; the largest lag seen (rows, seconds) is
// what a host lost at that moment would have cost.
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { startNatsCluster } from '../../test/helpers/nats-cluster.ts';
import { startChildServer } from '../lib/child-server.ts';
import { compareHttp } from '../lib/compare-http.ts';
import { runLoad } from '../lib/load.ts';
import type { Scenario } from '../lib/scenario.ts';
import { delivery, SECRET } from './erp-payment-b.ts';

const SERVER = fileURLToPath(new URL('../servers/erp-payment-b.ts', import.meta.url));
const PATH = '/api/method/erp_core.api.webhooks.payment_b';

export const scenario: Scenario = {
  name: 'evidence-replication',
  description: 'ERP payment_b intake with evidence replicated to a 3-server JetStream cluster (R3): sync and async vs replication off, and async lag under load',
  async run(options) {
    const off = { PAYMENT_B_WEBHOOK_SECRET: SECRET };
    const request = { path: PATH, method: 'POST', body: delivery };
    const records = [];
    // A fresh cluster per variant: every variant's service is "erp" with a new database, and the
    // stream of the one before would (rightly) be refused as another writer of the same chains.
    for (const [mode, target] of [['sync', 0.5], ['async', 0.9]] as const) {
      const cluster = await startNatsCluster({ size: 3 });
      try {
        const on = { ...off, AIRLOCK_EVIDENCE_REPLICATION: mode, AIRLOCK_EVIDENCE_NATS_URL: cluster.urls };
        const record = await compareHttp({ scenario: `evidence-replication-${mode}`, server: SERVER, env: on, baselineServer: SERVER, baselineEnv: off, request, baselineRequest: request, expectStatus: 200 }, options);
        records.push({ ...record, target_ratio: target, baseline: 'the same ERP service with AIRLOCK_EVIDENCE_REPLICATION=off' });
      } finally {
        await cluster.stop();
      }
    }
    const cluster = await startNatsCluster({ size: 3 });
    try {
      records.push(await asyncLag({ ...off, AIRLOCK_EVIDENCE_REPLICATION: 'async', AIRLOCK_EVIDENCE_NATS_URL: cluster.urls }, options));
    } finally {
      await cluster.stop();
    }
    return records;
  },
};

/** Async mode under the same load: the largest lag /healthz reported while it ran, and how long the catch-up took after. */
async function asyncLag(env: Record<string, string>, options: { durationMs: number; warmupMs: number; concurrency: number }) {
  const server = await startChildServer(SERVER, env);
  try {
    let maxRows = 0;
    let maxSeconds = 0;
    let sampling = true;
    const lag = async () => {
      const health = (await (await fetch(`${server.url}/healthz`)).json()) as { checks: Record<string, { observedValue: number; lag_seconds: number }[]> };
      return health.checks['evidence:replication']![0]!;
    };
    const sampler = (async () => {
      while (sampling) {
        const check = await lag();
        maxRows = Math.max(maxRows, check.observedValue);
        maxSeconds = Math.max(maxSeconds, check.lag_seconds);
        await sleep(100);
      }
    })();
    const result = await runLoad(server.url, { request: { path: PATH, method: 'POST', body: delivery }, concurrency: options.concurrency, durationMs: options.durationMs, warmupMs: options.warmupMs, expectStatus: 200 });
    sampling = false;
    await sampler;
    const ended = Date.now();
    // Bounded: a replication that stopped would otherwise keep this waiting.
    for (let tries = 0; (await lag()).observedValue > 0; tries++) {
      if (tries > 500) throw new Error('async replication did not catch up within 10 s after the load');
      await sleep(20);
    }
    return {
      scenario: 'evidence-replication-async-lag',
      rps: Math.round(result.rps),
      baseline_rps: Math.round(result.rps),
      ratio: 1,
      p50_ms: result.p50_ms,
      p95_ms: result.p95_ms,
      p99_ms: result.p99_ms,
      errors: result.errors,
      max_lag_rows: maxRows,
      max_lag_seconds: maxSeconds,
      catch_up_ms_after_load: Date.now() - ended,
      note: 'max_lag_rows are the evidence rows (2 per delivery) a host lost at the worst sampled moment would have cost',
    };
  } finally {
    await server.stop();
  }
}
