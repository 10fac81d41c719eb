// evidence-append: durable evidence appends through group commit with `concurrency` callers in
// flight, beside the same appends one transaction per row (the store with maxBatch 1, one caller
// at a time). Both on a file database in os.tmpdir() with synchronous=FULL, so every COMMIT
// waits for fsync. Latency is each append's time from call to acknowledgement (after COMMIT).
// Target (issue 4): at least 5 times the one-transaction-per-row rate at concurrency 50.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/kernel/index.ts';
import { appendOne, measureGrouped, RECEIPTS } from '../lib/evidence-load.ts';
import { measureOps } from '../lib/measure-ops.ts';
import { round3 } from '../lib/percentile.ts';
import type { Scenario, ScenarioOptions } from '../lib/scenario.ts';

const TARGET_RATIO = 5;

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
