// Holds a service's read-pool queries in flight, for issue 24's "reads never stall the service"
// tests: a wrapped pool whose queries wait at a gate before they reach the real pool (or fail as
// a spent budget does), and a run that fires a service's heaviest reads, waits until they are all
// held, and sends the readiness probe meanwhile. On the event loop the reads would never reach
// the pool: they would all be answered instead, and the run says so.

import { AirlockError } from '../../src/kernel/index.ts';
import type { ReadPool } from '../../src/kernel/index.ts';
import type { TestResponse } from './http.ts';

export interface ReadHold {
  /** The pool whose query() and queryRecords() pass through the hold. */
  wrap(pool: ReadPool): ReadPool;
  /** Queries waiting at the gate (or at the real pool) now. */
  readonly inFlight: number;
  /** While true, every query fails with `read_budget`, as one whose budget is spent. */
  spent: boolean;
  /**
   * Fires `count` reads, waits until `queries` pool queries are held (or every read is answered,
   * or 10 s), sends `probe` while they are held, then lets them go.
   * `held` is the queries held and `answered` the reads answered when the probe was.
   */
  probeWhileHeld(options: { count: number; queries: number; read(): Promise<TestResponse>; probe(): Promise<TestResponse> }): Promise<{ held: number; answered: number; probe: TestResponse; reads: TestResponse[] }>;
}

export function createReadHold(database: string): ReadHold {
  let gate: Promise<void> | undefined;
  let inFlight = 0;
  const hold: ReadHold = {
    spent: false,
    get inFlight() {
      return inFlight;
    },
    wrap(pool) {
      const held = async <T>(read: () => Promise<T>): Promise<T> => {
        inFlight++;
        try {
          await gate;
          if (hold.spent) throw new AirlockError('read_budget', `Read on "${database}" did not finish within its 2000 ms budget: narrow the request, or retry later`);
          return await read();
        } finally {
          inFlight--;
        }
      };
      return { ...pool, query: (...args) => held(() => pool.query(...args)), queryRecords: (...args) => held(() => pool.queryRecords(...args)) };
    },
    async probeWhileHeld({ count, queries, read, probe }) {
      let release!: () => void;
      gate = new Promise((resolve) => (release = resolve));
      let answered = 0;
      const reads = Array.from({ length: count }, () => read().then((response) => {
        answered++;
        return response;
      }));
      try {
        for (const deadline = Date.now() + 10_000; inFlight < queries && answered < count && Date.now() < deadline;) await new Promise((resolve) => setTimeout(resolve, 5));
        const held = inFlight;
        const probed = await probe();
        const answeredWhenProbed = answered;
        gate = undefined;
        release();
        return { held, answered: answeredWhenProbed, probe: probed, reads: await Promise.all(reads) };
      } finally {
        gate = undefined;
        release();
      }
    },
  };
  return hold;
}
