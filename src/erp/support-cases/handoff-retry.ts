// The retry of failed support handoffs without waiting for the desk to redeliver: every interval
// (1 s, DESIGN.md's worker cadence) the support events whose newest row is failed and whose
// next_retry_at has come are handed off again (the same single flight as a redelivery, so the two
// never race). The backoff between attempts doubles from 1 s up to 300 s with up to 1 s of jitter;
// after MAX_ATTEMPTS the worker stops (retry_exhausted) and a redelivery remains the way back.

import { statement } from '../../kernel/index.ts';
import type { ErpDocument } from '../database/documents.ts';
import type { DepsRef } from '../erp-route.ts';
import { retryHandoff } from './support-inbound.ts';


/** Failed support handoffs whose next_retry_at has come, from the partial due index of erp_current (never a scan of intake history). */
export const DUE_HANDOFFS_SQL = `SELECT t.payload FROM erp_current AS c JOIN integration_events AS t ON t.seq = c.seq
  WHERE c.doctype = 'Integration Event' AND c.due_at <= ? ORDER BY c.due_at LIMIT 500`;

export interface HandoffRetry {
  /** One pass: retries what is due; resolves to how many it tried. */
  tick(): Promise<number>;
  stop(): void;
}

export function startHandoffRetry(deps: DepsRef, intervalMs: number): HandoffRetry {
  let running = false;
  const tick = async (): Promise<number> => {
    if (running) return 0;
    running = true;
    try {
      const { store, now } = deps();
      const due = statement(store.sqlite, DUE_HANDOFFS_SQL)
        .all(new Date(now()).toISOString())
        .map((row) => JSON.parse(String(row['payload'])) as ErpDocument);
      for (const doc of due) await retryHandoff(deps(), doc);
      return due.length;
    } catch (error) {
      // A closed store during shutdown, or an outage: the next tick tries again.
      deps().log.warn('support handoff retry pass failed', { error });
      return 0;
    } finally {
      running = false;
    }
  };
  const timer = intervalMs > 0 ? setInterval(() => void tick(), intervalMs) : undefined;
  timer?.unref();
  return { tick, stop: () => clearInterval(timer) };
}
