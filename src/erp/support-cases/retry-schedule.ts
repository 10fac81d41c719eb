// When a failed support handoff is tried again: capped exponential backoff with jitter (1 s,
// 2 s, 4 s ... up to 300 s, plus up to 1 s), and how many attempts the worker makes at most.

export const MAX_ATTEMPTS = 10;
const CAP_MS = 300_000;

/** When the next attempt may run after `attempts` failed ones. */
export function nextRetryAt(now: number, attempts: number, random: () => number = Math.random): string {
  const delay = Math.min(CAP_MS, 1000 * 2 ** Math.max(0, attempts - 1)) + Math.floor(random() * 1000);
  return new Date(now + delay).toISOString();
}
