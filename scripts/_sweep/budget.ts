// The sweep's client-side request budget (seed 001 "Limits"): at most `rpm` request starts in
// any 60 s window, and a pause of `batchSleepMs` after every `batchSize` requests. Every start
// counts, retries included. The schedule is greedy: each request starts as soon as both rules
// allow, so the elapsed time of a sweep is exactly what the two rules force.

import type { SweepClock } from './clock.ts';

export const RATE_WINDOW_MS = 60_000;

export interface BudgetOptions {
  rpm: number;
  batchSize: number;
  batchSleepMs: number;
  clock: SweepClock;
}

export interface Budget {
  /** Waits until a request may start, records the start and returns its time. */
  acquire(): Promise<number>;
  /** Every start so far, in order (for evidence and tests). */
  readonly starts: readonly number[];
}

/** Creates a budget; throws RangeError for an rpm or batch size below 1. */
export function createBudget(options: BudgetOptions): Budget {
  const { rpm, batchSize, batchSleepMs, clock } = options;
  if (!(Number.isInteger(rpm) && rpm >= 1)) throw new RangeError(`rpm must be an integer of at least 1, got ${rpm}`);
  if (!(Number.isInteger(batchSize) && batchSize >= 1)) throw new RangeError(`batchSize must be an integer of at least 1, got ${batchSize}`);
  const starts: number[] = [];
  // Index of the oldest start still inside the window; starts before it have left.
  let windowHead = 0;
  let inBatch = 0;
  return {
    starts,
    async acquire() {
      if (inBatch === batchSize) {
        await clock.sleep(batchSleepMs);
        inBatch = 0;
      }
      for (;;) {
        const now = clock.now();
        // A start at s counts for the half-open window (now - 60 s, now].
        while (windowHead < starts.length && starts[windowHead]! <= now - RATE_WINDOW_MS) windowHead += 1;
        if (starts.length - windowHead < rpm) break;
        await clock.sleep(starts[windowHead]! + RATE_WINDOW_MS - now);
      }
      const start = clock.now();
      starts.push(start);
      inBatch += 1;
      return start;
    },
  };
}

/** The largest number of starts inside any half-open window [t, t + windowMs). */
export function maxStartsInWindow(starts: readonly number[], windowMs = RATE_WINDOW_MS): number {
  const sorted = [...starts].sort((a, b) => a - b);
  let most = 0;
  let tail = 0;
  for (let head = 0; head < sorted.length; head += 1) {
    while (sorted[tail]! <= sorted[head]! - windowMs) tail += 1;
    most = Math.max(most, head - tail + 1);
  }
  return most;
}
