// verify_evidence_chain: checks the hash chains of a service database's evidence tables offline,
// read-only. Exit 0 when every chain verifies, 1 naming the first broken row, 2 when the file is
// missing, is not a database, has no evidence tables, or --table names none of them.

import { availableParallelism } from 'node:os';
import { AirlockError, defineCommand, EXIT_FAILED, EXIT_OK, listEvidenceTables, main, openDatabaseReadOnly, usageError, verifyChainParallel, wholeNumberOption } from '../src/kernel/index.ts';
import type { ChainVerification } from '../src/kernel/index.ts';

const MAX_DEFAULT_THREADS = 4;

const command = defineCommand({
  name: 'verify_evidence_chain',
  summary: 'Verifies the SHA-256 hash chains of the evidence tables in an Airlock database',
  description: [
    'Each evidence row stores sha256 = SHA-256 of the RFC 8785 canonical JSON of its columns, and the',
    'sha256 of the row before it. The check recomputes every hash in seq order and reports the first',
    'row that does not match. It opens the file read-only and needs no service code: the tables and',
    'their columns come from the _evidence_tables registry in the file itself. Rows are hashed on',
    '--threads worker threads in seq ranges (their hashes are independent); the links between rows',
    'are checked in order, so the answer is that of one walk in seq order.',
  ].join('\n'),
  options: {
    db: { type: 'string', valueName: 'FILE', description: 'The SQLite database file (required)' },
    table: { type: 'string', valueName: 'NAME', description: 'Verify only this evidence table (default: all)' },
    threads: { type: 'string', valueName: 'N', description: `Threads that hash rows (default: the CPUs, at most ${MAX_DEFAULT_THREADS})` },
  },
  async run({ values, json, print, printJson }) {
    if (values.db === undefined) usageError('Missing --db FILE: name the database to verify');
    const sqlite = openDatabaseReadOnly(values.db);
    try {
      const registered = listEvidenceTables(sqlite);
      if (registered.length === 0) {
        throw new AirlockError('environment', `Cannot verify "${values.db}": the database has no evidence tables`);
      }
      const chosen = values.table === undefined ? registered : registered.filter((table) => table.name === values.table);
      if (chosen.length === 0) {
        usageError(`Unknown evidence table "${values.table}" in "${values.db}": choose from ${registered.map((table) => table.name).join(', ')}`);
      }
      const threads = values.threads === undefined ? Math.min(availableParallelism(), MAX_DEFAULT_THREADS) : wholeNumberOption('--threads', values.threads);
      const results = [];
      for (const table of chosen) results.push(await verifyChainParallel(sqlite, table, { path: values.db, threads }));
      const ok = results.every((result) => result.ok);
      if (json) printJson({ ok, db: values.db, tables: results });
      else for (const result of results) print(describe(result));
      return ok ? EXIT_OK : EXIT_FAILED;
    } finally {
      sqlite.close();
    }
  },
});

function describe(result: ChainVerification): string {
  if (result.ok) return `${result.table}: ok, ${result.rows} rows, head ${result.head}`;
  return `${result.table}: broken at seq ${result.seq ?? '(none)'}: ${result.reason}`;
}

await main(command);
