// Evidence appends under load, shared by the evidence-append and group-commit-sync scenarios:
// `concurrency` callers appending back to back through one store's group committer.

import { defineEvidenceTable, openDatabase } from '../../src/kernel/index.ts';
import type { Store } from '../../src/kernel/index.ts';
import { percentile, round3 } from './percentile.ts';
import type { ScenarioOptions } from './scenario.ts';

export const RECEIPTS = defineEvidenceTable({ name: 'receipts', columns: { subject: 'text', kind: 'text' } });
let counter = 0;
export function appendOne(store: Store) {
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

/** Grouped appends on a new store at `path`; `synchronous` sets that pragma after opening (FULL is the store's own). */
export async function measureGrouped(path: string, options: ScenarioOptions, synchronous: 'FULL' | 'OFF' = 'FULL') {
  const store = openDatabase(path, { evidenceTables: [RECEIPTS] });
  if (synchronous !== 'FULL') store.sqlite.exec(`PRAGMA synchronous = ${synchronous}`);
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
