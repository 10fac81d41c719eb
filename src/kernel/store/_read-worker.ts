// The body of a read-pool worker thread. It is started from its own source text (Worker `eval`),
// so a single-file bundle or a standalone binary needs no second file on disk: the function must
// therefore stand alone, reaching Node's built-ins through process.getBuiltinModule and nothing
// from its module. It opens the database read-only (WAL lets it read beside the one writer),
// prepares each SQL text once, and answers every query with its rows and SQLite's count of
// virtual-machine steps, which tests use to show a query's cost does not grow with the table.
// A query that asks for records gets them rendered here (_render-records.ts) as one UTF-8
// buffer, moved to the main thread without a copy, with its SHA-256.

import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { RecordShape, RenderedRecords } from './_render-records.ts';

/** What the main thread sends: one query. */
export interface ReadRequest {
  id: number;
  sql: string;
  params: unknown[];
  /** Render the rows as records instead of answering them. */
  records?: RecordShape;
}

/** What the worker answers. */
export type ReadAnswer =
  | { id: number; ok: true; rows: Record<string, unknown>[]; steps: number }
  | { id: number; ok: true; records: RenderedRecords; steps: number }
  | { id: number; ok: false; message: string };

export function readWorkerMain(
  render: (rows: readonly Record<string, unknown>[], shape: RecordShape) => RenderedRecords,
  functions: Record<string, (...args: never[]) => unknown>,
  cachedStatement: (cache: Map<string, StatementSync>, sqlite: DatabaseSync, sql: string, closeDropped: boolean) => StatementSync,
): void {
  const { parentPort, workerData } = process.getBuiltinModule('node:worker_threads');
  const { DatabaseSync } = process.getBuiltinModule('node:sqlite');
  const { path, busyTimeoutMs } = workerData as { path: string; busyTimeoutMs: number };
  const sqlite = new DatabaseSync(path, { readOnly: true, timeout: busyTimeoutMs });
  sqlite.exec('PRAGMA cache_size = -16384; PRAGMA temp_store = MEMORY;');
  for (const [name, fn] of Object.entries(functions)) sqlite.function(name, { deterministic: true }, fn as never);
  const prepared = new Map<string, StatementSync>();
  parentPort!.on('message', (request: ReadRequest) => {
    let answer: ReadAnswer;
    try {
      // One query at a time on this thread: no statement is in use when the cache drops them.
      const statement = cachedStatement(prepared, sqlite, request.sql, true);
      // StatementSync's step counter (sqlite3_stmt_status) is in Node 26 but not yet in @types/node.
      const counted = statement as unknown as { resetStats(): void; stat(counter: 'vmStep'): number };
      counted.resetStats();
      const rows = statement.all(...(request.params as never[])) as Record<string, unknown>[];
      const steps = counted.stat('vmStep');
      if (request.records !== undefined) {
        const records = render(rows, request.records);
        parentPort!.postMessage({ id: request.id, ok: true, records, steps } satisfies ReadAnswer, [records.bytes.buffer as ArrayBuffer]);
        return;
      }
      answer = { id: request.id, ok: true, rows, steps };
    } catch (error) {
      answer = { id: request.id, ok: false, message: (error as Error).message };
    }
    parentPort!.postMessage(answer);
  });
}
