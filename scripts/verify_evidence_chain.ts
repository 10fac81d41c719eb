// verify_evidence_chain: checks the hash chains of a service database's evidence tables offline,
// read-only. Exit 0 when every chain verifies, 1 naming the first broken row, 2 when the file is
// missing, is not a database, has no evidence tables, or --table names none of them.

import { AirlockError, defineCommand, EXIT_FAILED, EXIT_OK, listEvidenceTables, main, openDatabaseReadOnly, usageError, verifyChain } from '../src/kernel/index.ts';
import type { ChainVerification } from '../src/kernel/index.ts';

const command = defineCommand({
  name: 'verify_evidence_chain',
  summary: 'Verifies the SHA-256 hash chains of the evidence tables in an Airlock database',
  description: [
    'Each evidence row stores sha256 = SHA-256 of the RFC 8785 canonical JSON of its columns, and the',
    'sha256 of the row before it. The check recomputes every hash in seq order and reports the first',
    'row that does not match. It opens the file read-only and needs no service code: the tables and',
    'their columns come from the _evidence_tables registry in the file itself.',
  ].join('\n'),
  options: {
    db: { type: 'string', valueName: 'FILE', description: 'The SQLite database file (required)' },
    table: { type: 'string', valueName: 'NAME', description: 'Verify only this evidence table (default: all)' },
  },
  run({ values, json, print, printJson }) {
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
      const results = chosen.map((table) => verifyChain(sqlite, table));
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
