import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createBudget, maxStartsInWindow, RATE_WINDOW_MS } from '../../scripts/_sweep/budget.ts';
import { runSweep } from '../../scripts/_sweep/run.ts';
import type { PlannedOperation } from '../../scripts/_sweep/plan.ts';
import type { SendGet } from '../../scripts/_sweep/send.ts';
import { createFakeClock } from './fixtures/sweep/fake-clock.ts';

async function schedule(n: number, options: { rpm: number; batchSize: number; batchSleepMs: number }) {
  const clock = createFakeClock();
  const start = clock.now();
  const budget = createBudget({ ...options, clock });
  for (let i = 0; i < n; i += 1) await budget.acquire();
  return { starts: budget.starts.map((s) => s - start), elapsed: clock.now() - start, sleeps: clock.sleeps };
}

function operation(template: string): PlannedOperation {
  return { method: 'GET', template, operationId: undefined, path: template, parameters: {}, sampleDependent: false, secured: false, unresolved: [] };
}

test('createBudget() keeps 200 requests at the defaults (90 rpm, batches of 30, 20 s sleep) within 90 per minute in 120 s', async () => {
  const { starts, elapsed } = await schedule(200, { rpm: 90, batchSize: 30, batchSleepMs: 20_000 });
  assert.equal(starts.length, 200);
  assert.equal(maxStartsInWindow(starts), 90);
  // Batches start at 0, 20, 40, 60, ... s: six sleeps before the seventh and last batch.
  assert.equal(elapsed, 120_000);
  assert.deepEqual([...new Set(starts)], [0, 20_000, 40_000, 60_000, 80_000, 100_000, 120_000]);
});

// The schedule is greedy, so the last start lands where the two rules force it (worked out by hand).
const SCHEDULES: [string, { rpm: number; batchSize: number; batchSleepMs: number }, number, number][] = [
  ['the window binds (60 rpm, batches of 30, 5 s sleep)', { rpm: 60, batchSize: 30, batchSleepMs: 5_000 }, 200, 180_000],
  ['batches straddle the window (45 rpm, batches of 30, 20 s)', { rpm: 45, batchSize: 30, batchSleepMs: 20_000 }, 100, 120_000],
  ['only the window (10 rpm, one big batch)', { rpm: 10, batchSize: 1_000, batchSleepMs: 20_000 }, 25, 120_000],
  ['only the batch sleep (6000 rpm, batches of 30, 20 s)', { rpm: 6_000, batchSize: 30, batchSleepMs: 20_000 }, 61, 40_000],
  ['no wait at all when both rules allow everything', { rpm: 1_000, batchSize: 1_000, batchSleepMs: 20_000 }, 50, 0],
];

for (const [name, options, n, expected] of SCHEDULES) {
  test(`createBudget() ${name}: ${n} starts end at ${expected / 1000} s and never exceed the rpm`, async () => {
    const { starts, elapsed } = await schedule(n, options);
    assert.equal(elapsed, expected);
    assert.ok(maxStartsInWindow(starts) <= options.rpm, `at most ${options.rpm} in any window`);
    for (let i = options.batchSize; i < n; i += options.batchSize) {
      assert.ok(starts[i]! - starts[i - 1]! >= options.batchSleepMs, `batch boundary before request ${i}`);
    }
  });
}

test('createBudget() counts retries: a 429 retry uses a start of the minute', async () => {
  const clock = createFakeClock();
  const start = clock.now();
  const budget = createBudget({ rpm: 2, batchSize: 100, batchSleepMs: 0, clock });
  const seen = new Map<string, number>();
  const send: SendGet = async (url) => {
    const count = (seen.get(url) ?? 0) + 1;
    seen.set(url, count);
    return count === 1
      ? { ok: true, status: 429, retryAfter: '0', body: undefined, latencyMs: 1 }
      : { ok: true, status: 200, retryAfter: undefined, body: undefined, latencyMs: 1 };
  };
  const results = await runSweep([operation('/a'), operation('/b')], { baseUrl: 'http://x', prefix: '', budget, clock, send, retry429: 2, timeoutMs: 1000 });
  assert.deepEqual(results.map((r) => [r.class, r.attempts]), [['ok', 2], ['ok', 2]]);
  assert.deepEqual(budget.starts.map((s) => s - start), [0, 0, 60_000, 60_000]);
});

test('runSweep() with 250 ms of latency per request still keeps 120 requests under 30 rpm', async () => {
  const clock = createFakeClock();
  const budget = createBudget({ rpm: 30, batchSize: 7, batchSleepMs: 3_000, clock });
  const send: SendGet = async () => {
    clock.advance(250);
    return { ok: true, status: 200, retryAfter: undefined, body: undefined, latencyMs: 250 };
  };
  const operations = Array.from({ length: 120 }, (_, i) => operation(`/r/${i}`));
  const started = clock.now();
  const results = await runSweep(operations, { baseUrl: 'http://x', prefix: '', budget, clock, send, retry429: 0, timeoutMs: 1000 });
  assert.equal(results.length, 120);
  assert.equal(maxStartsInWindow(budget.starts), 30);
  // 120 starts at 30 per minute: the 121st would be at 4 min, the 120th no earlier than 3 min.
  assert.ok(budget.starts.at(-1)! - started >= 3 * RATE_WINDOW_MS);
  assert.ok(budget.starts.at(-1)! - started < 4 * RATE_WINDOW_MS);
});

test('maxStartsInWindow() treats the window as half-open', () => {
  assert.equal(maxStartsInWindow([0, 59_999]), 2);
  assert.equal(maxStartsInWindow([0, 60_000]), 1);
  assert.equal(maxStartsInWindow([]), 0);
  assert.equal(maxStartsInWindow([5, 0, 5, 70_000, 70_001]), 3);
});

test('createBudget() refuses an rpm or batch size below 1', () => {
  const clock = createFakeClock();
  assert.throws(() => createBudget({ rpm: 0, batchSize: 1, batchSleepMs: 0, clock }), RangeError);
  assert.throws(() => createBudget({ rpm: 1, batchSize: 0, batchSleepMs: 0, clock }), RangeError);
  assert.throws(() => createBudget({ rpm: 1.5, batchSize: 1, batchSleepMs: 0, clock }), RangeError);
});
