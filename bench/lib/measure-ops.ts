// Times a synchronous or asynchronous operation in a loop: throughput and latency percentiles.
// Latency is sampled per operation with process.hrtime.bigint(), which costs ~50 ns and is
// negligible next to anything worth benchmarking here.

import { percentile } from './percentile.ts';

export interface OpsMeasurement {
  ops: number;
  rps: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  errors: number;
}

/**
 * Runs `fn` for warmupMs (discarded), then for durationMs, and reports ops/s and latency.
 * An operation that throws or rejects counts as an error and is not timed.
 */
export async function measureOps(
  fn: () => unknown,
  options: { durationMs: number; warmupMs: number },
): Promise<OpsMeasurement> {
  await loop(fn, options.warmupMs, undefined);
  const samples: number[] = [];
  const started = process.hrtime.bigint();
  const errors = await loop(fn, options.durationMs, samples);
  const elapsedS = Number(process.hrtime.bigint() - started) / 1e9;
  samples.sort((a, b) => a - b);
  return {
    ops: samples.length,
    rps: samples.length / elapsedS,
    p50_ms: percentile(samples, 0.5),
    p95_ms: percentile(samples, 0.95),
    p99_ms: percentile(samples, 0.99),
    errors,
  };
}

async function loop(fn: () => unknown, durationMs: number, samples: number[] | undefined): Promise<number> {
  const end = process.hrtime.bigint() + BigInt(Math.round(durationMs * 1e6));
  let errors = 0;
  let sinceYield = 0;
  for (;;) {
    const t0 = process.hrtime.bigint();
    if (t0 >= end) return errors;
    try {
      const result = fn();
      if (result instanceof Promise) await result;
      samples?.push(Number(process.hrtime.bigint() - t0) / 1e6);
    } catch {
      // An operation's failure is the figure we report, not an error of the harness.
      errors++;
    }
    // Let timers and I/O run now and then, so a synchronous fn cannot starve the process.
    if (++sinceYield === 1000) {
      sinceYield = 0;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}
