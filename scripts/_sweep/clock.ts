// The sweep's notion of time: the budget and the 429 backoff only ever ask a SweepClock, so a
// test can run a twenty-minute sweep schedule in milliseconds with a fake one.

import { setTimeout as delay } from 'node:timers/promises';

export interface SweepClock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** Wall-clock time and real timers. */
export const SYSTEM_CLOCK: SweepClock = {
  now: () => Date.now(),
  sleep: (ms) => (ms > 0 ? delay(ms) : Promise.resolve()),
};
