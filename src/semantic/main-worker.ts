// semantic-worker: the resident reconciliation worker. It takes ingest records from the inbox in
// bounded batches (SEMANTIC_WORKER_BATCH), quarantines or merges them, repairs edge visibility,
// and writes projection_reconciliation_readback and _receipts. --once runs one batch and exits.

import { createLogger, defineCommand, environmentHelp, EVIDENCE_REPLICATION_HELP, EXIT_FAILED, EXIT_OK, main } from '../kernel/index.ts';
import { loadWorkerConfig, WORKER_SPEC } from './config.ts';
import { openControlDatabase } from './control-schema.ts';
import { isIntegrityRefusal, reconcileOnce } from './reconcile.ts';
import { startReconciliationWorker } from './reconciliation-worker.ts';

const command = defineCommand({
  name: 'semantic-worker',
  summary: 'Runs the semantic reconciliation worker over the control database $AIRLOCK_DATA_DIR/semantic.sqlite',
  description: [
    'Resident by default: prints one JSON "running" line on stdout, logs JSON lines on stderr, and on SIGTERM or SIGINT finishes the batch in progress and exits 0.',
    'Fails closed: when the control database fails its schema-integrity check nothing is merged, the reasons are logged and the exit is 1.',
    '',
    environmentHelp(WORKER_SPEC),
    EVIDENCE_REPLICATION_HELP,
  ].join('\n'),
  options: {
    once: { type: 'boolean', description: 'Run one bounded batch, print its readback snapshot (or that the inbox is drained), and exit' },
  },
  async run({ values, json, print, printJson, io }) {
    const config = loadWorkerConfig(io.env);
    const store = openControlDatabase(config.databasePath);
    const log = createLogger({ name: 'semantic.worker', service: 'semantic' });
    try {
      if (values.once) {
        let run;
        try {
          run = await reconcileOnce(store, { batchSize: config.batchSize });
        } catch (error) {
          if (!isIntegrityRefusal(error)) throw error;
          const reasons = error.details;
          log.error('reconciliation refused: schema integrity failed', { reasons });
          if (json) printJson({ ok: false, run: null, reasons });
          return EXIT_FAILED;
        }
        if (json) printJson({ ok: true, run: run ?? null });
        else print(run ? `${run.run_id}: took ${run.taken} (merged ${run.merged}, quarantined ${run.quarantined}), ${run.backlog_remaining} waiting` : 'inbox has nothing undecided');
        return EXIT_OK;
      }
      const worker = startReconciliationWorker({ store, batchSize: config.batchSize, intervalMs: config.intervalMs, log });
      print(JSON.stringify({ msg: 'running', service: 'semantic', role: 'worker', batch_size: config.batchSize, interval_ms: config.intervalMs }));
      const stop = (signal: NodeJS.Signals) => {
        log.info('stopping', { signal });
        void worker.stop();
      };
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
      await worker.stopped;
      return worker.failure === undefined ? EXIT_OK : EXIT_FAILED;
    } finally {
      await store.close();
    }
  },
});

await main(command);
