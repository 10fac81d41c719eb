// The resident reconciliation worker: runs bounded batches back to back while the inbox has a
// backlog, sleeps `intervalMs` when it is drained, and on stop() finishes the run in progress
// before resolving (a batch is never cut half way). A failed schema-integrity check stops it for
// good (fail closed): nothing is merged, the reason is logged and kept in `failure`.

import type { Logger, Store } from '../kernel/index.ts';
import type { ReadbackPayload } from './control-schema.ts';
import { isIntegrityRefusal, reconcileOnce } from './reconcile.ts';

export interface ReconciliationWorker {
  /** Resolves when the worker has stopped (after stop(), once the current run finished). */
  readonly stopped: Promise<void>;
  /** Asks the worker to stop; resolves once it has. */
  stop(): Promise<void>;
  /** Why the worker stopped on its own (schema integrity failed); undefined otherwise. */
  readonly failure: string | undefined;
}

export interface WorkerOptions {
  store: Store;
  batchSize: number;
  intervalMs: number;
  log: Logger;
  /** Called after every run that did work (tests and progress). */
  onRun?: (run: ReadbackPayload) => void;
}

/**
 * Starts the loop at once.
 *
 * @example
 * const worker = startReconciliationWorker({ store, batchSize: 100, intervalMs: 2000, log });
 * process.once('SIGTERM', () => void worker.stop());
 */
export function startReconciliationWorker(options: WorkerOptions): ReconciliationWorker {
  let stopping = false;
  let failure: string | undefined;
  let wake: (() => void) | undefined;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const stopped = (async () => {
    while (!stopping) {
      let run: ReadbackPayload | undefined;
      try {
        run = await reconcileOnce(options.store, { batchSize: options.batchSize });
      } catch (error) {
        if (isIntegrityRefusal(error)) {
          const reasons = error.details;
          options.log.error('reconciliation refused: schema integrity failed', { reasons });
          failure = `schema integrity failed: ${reasons.join('; ')}`;
          break;
        }
        // A failed batch rolled back whole; the same records are planned again next time.
        options.log.error('reconciliation run failed', { error });
      }
      if (run !== undefined) {
        options.log.info('reconciliation run', { run_id: run.run_id, taken: run.taken, merged: run.merged, quarantined: run.quarantined, backlog_remaining: run.backlog_remaining });
        options.onRun?.(run);
      }
      if (stopping) break;
      await (run !== undefined && run.backlog_remaining > 0 ? new Promise<void>((resolve) => setImmediate(resolve)) : sleep(options.intervalMs));
    }
  })();

  return {
    stopped,
    get failure() {
      return failure;
    },
    stop() {
      stopping = true;
      wake?.();
      return stopped;
    },
  };
}
