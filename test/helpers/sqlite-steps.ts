// Counts the SQLite virtual-machine steps a piece of code takes on one connection, whatever
// statements it prepares (the kernel's statement cache included): every statement the
// connection prepares from now on is kept, and a run sums their step counters. Issue 24's
// regression tests compare these counts at two sizes of a table instead of timing anything.

import type { DatabaseSync, StatementSync } from 'node:sqlite';

// StatementSync's step counter (sqlite3_stmt_status) is in Node 26 but not yet in @types/node.
type Counted = StatementSync & { resetStats(): void; stat(counter: 'vmStep'): number };

/** Wraps `sqlite.prepare`; call before the code under test prepares its statements. */
export function stepCounter(sqlite: DatabaseSync): <T>(run: () => T) => { result: T; steps: number } {
  const prepared: Counted[] = [];
  const prepare = sqlite.prepare.bind(sqlite);
  sqlite.prepare = (sql: string) => {
    const made = prepare(sql) as Counted;
    prepared.push(made);
    return made;
  };
  return (run) => {
    for (const s of prepared) s.resetStats();
    const result = run();
    return { result, steps: prepared.reduce((sum, s) => sum + s.stat('vmStep'), 0) };
  };
}
