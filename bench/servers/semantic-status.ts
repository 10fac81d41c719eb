// The semantic API serving its runtime status readback, with a control database that holds a
// realistic snapshot: reconciliation runs, receipts, quarantines. Consumer tokens come from
// BENCH_SEMANTIC_TOKEN. Prints the kernel's listening line.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, runService } from '../../src/kernel/index.ts';
import { loadApiConfig } from '../../src/semantic/config.ts';
import { openControlDatabase } from '../../src/semantic/control-schema.ts';
import { enqueueRecords } from '../../src/semantic/ingest-inbox.ts';
import { reconcileOnce } from '../../src/semantic/reconcile.ts';
import { createSemanticService } from '../../src/semantic/service.ts';

const TOKEN = process.env['BENCH_SEMANTIC_TOKEN'] ?? 'bench-consumer-token-0123456789';
const dir = mkdtempSync(join(tmpdir(), 'airlock-bench-semantic-'));
writeFileSync(join(dir, 'tokens.json'), JSON.stringify({ 'live-runtime-contract-check': TOKEN, 'host-runtime-snapshot-export': `${TOKEN}-2` }));

// What the worker would have written: 12 runs of 50 records, with quarantines and hidden edges.
const worker = openControlDatabase(join(dir, 'semantic.sqlite'));
for (let run = 0; run < 12; run++) {
  const records = Array.from({ length: 50 }, (_, i) => {
    const n = run * 50 + i;
    if (n % 10 === 0) return JSON.stringify({ record_id: `r${n}`, tenant_id: 't', kind: 'node', node_id: `n${n}`, label: 'X' });
    if (n % 3 === 0) return JSON.stringify({ record_id: `r${n}`, tenant_id: 't', isolation_domain_ref: 'payments', kind: 'edge', edge_id: `e${n}`, from: `n${n - 1}`, to: `n${n + 7}`, relation: 'links' });
    return JSON.stringify({ record_id: `r${n}`, tenant_id: 't', isolation_domain_ref: 'payments', kind: 'node', node_id: `n${n}`, label: 'Payment' });
  });
  await enqueueRecords(worker, records, { source: 'bench' });
  await reconcileOnce(worker, { batchSize: 50 });
}
await worker.close();

await runService(() => {
  const service = createSemanticService(
    loadApiConfig({ AIRLOCK_DATA_DIR: dir, SEMANTIC_LISTEN: '127.0.0.1:0', SEMANTIC_OPERATOR_TOKEN: 'bench-operator-token-0123456789', SEMANTIC_CONSUMER_TOKENS_FILE: join(dir, 'tokens.json') }),
    { log: createLogger({ name: 'semantic', service: 'semantic', level: 'warn' }) },
  );
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return service;
});
