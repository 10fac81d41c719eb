// evidence-append: durable evidence appends through group commit with `concurrency` callers in
// flight, beside the same appends one transaction per row (the store with maxBatch 1, one caller
// at a time). Both on a file database in os.tmpdir() with synchronous=FULL, so every COMMIT
// waits for fsync. Latency is each append's time from call to acknowledgement (after COMMIT).
// Target (issue 4): at least 5 times the one-transaction-per-row rate at concurrency 50.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineEvidenceTable, openDatabase } from '../../src/kernel/index.ts';
import type { Store } from '../../src/kernel/index.ts';
import { measureOps } from '../lib/measure-ops.ts';
import { percentile, round3 } from '../lib/percentile.ts';
import type { Scenario, ScenarioOptions } from '../lib/scenario.ts';

const RECEIPTS = defineEvidenceTable({ name: 'receipts', columns: { subject: 'text', kind: 'text' } });
const TARGET_RATIO = 5;

let counter = 0;
function appendOne(store: Store) {
  const n = counter++;
  return store.append(RECEIPTS, {
    subject: `case-${n % 997}`,
    kind: 'payment.accepted',
    payload: { id: `evt_${n}`, amount: { currency: 'EUR', cents: 1299 + (n % 100) }, provider: 'payment_a', received_at: '2026-01-01T00:00:00Z' },
  });
}

/** `concurrency` callers appending back to back for `ms`; per-append latencies when `samples` is given. */
async function closedLoop(store: Store, concurrency: number, ms: number, samples?: number[]): Promise<number> {
  const end = process.hrtime.bigint() + BigInt(ms) * 1_000_000n;
  let errors = 0;
  const caller = async () => {
    while (process.hrtime.bigint() < end) {
      const t0 = process.hrtime.bigint();
      try {
        await appendOne(store);
        samples?.push(Number(process.hrtime.bigint() - t0) / 1e6);
      } catch {
        // A failed append is the figure we report (errors), not a failure of the bench.
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, caller));
  return errors;
}

async function measureGrouped(path: string, options: ScenarioOptions) {
  const store = openDatabase(path, { evidenceTables: [RECEIPTS] });
  try {
    await closedLoop(store, options.concurrency, options.warmupMs);
    const before = store.stats();
    const samples: number[] = [];
    const started = process.hrtime.bigint();
    const errors = await closedLoop(store, options.concurrency, options.durationMs, samples);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const after = store.stats();
    samples.sort((a, b) => a - b);
    return {
      rps: samples.length / seconds,
      p50_ms: percentile(samples, 0.5),
      p95_ms: percentile(samples, 0.95),
      p99_ms: percentile(samples, 0.99),
      errors,
      appends: samples.length,
      mean_batch: round3((after.writes - before.writes) / Math.max(1, after.commits - before.commits)),
    };
  } finally {
    await store.close();
  }
}

async function measurePlain(path: string, options: ScenarioOptions) {
  const store = openDatabase(path, { evidenceTables: [RECEIPTS], maxBatch: 1 });
  try {
    return await measureOps(() => appendOne(store), { durationMs: options.durationMs, warmupMs: options.warmupMs });
  } finally {
    await store.close();
  }
}

export const scenario: Scenario = {
  name: 'evidence-append',
  description: 'Durable evidence appends (synchronous=FULL) through group commit vs one transaction per row',
  async run(options) {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-bench-evidence-'));
    try {
      const grouped = await measureGrouped(join(dir, 'grouped.sqlite'), options);
      const plain = await measurePlain(join(dir, 'plain.sqlite'), options);
      return [
        {
          scenario: 'evidence-append',
          rps: Math.round(grouped.rps),
          baseline_rps: Math.round(plain.rps),
          ratio: round3(grouped.rps / plain.rps),
          p50_ms: grouped.p50_ms,
          p95_ms: grouped.p95_ms,
          p99_ms: grouped.p99_ms,
          errors: grouped.errors + plain.errors,
          baseline_p50_ms: plain.p50_ms,
          baseline_p99_ms: plain.p99_ms,
          mean_batch: grouped.mean_batch,
          appends: grouped.appends,
          concurrency: options.concurrency,
          duration_ms: options.durationMs,
          target_ratio: TARGET_RATIO,
          database_dir: tmpdir(),
        },
      ];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
