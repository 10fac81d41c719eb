// Counts the SQLite virtual-machine steps a piece of code takes on one connection, whatever
// statements it prepares (the kernel's statement cache included): every statement the
// connection prepares from now on is kept, and a run sums their step counters. Issue 24's
// regression tests compare these counts at two sizes of a table instead of timing anything.

import type { DatabaseSync, StatementSync } from 'node:sqlite';

// StatementSync's step counter (sqlite3_stmt_status) is in Node 26 but not yet in @types/node.
type Counted = StatementSync & { resetStats(): void; stat(counter: 'vmStep'): number };

export interface StepCounter {
  /** Runs `run` and sums the steps every statement took meanwhile. */
  <T>(run: () => T): { result: T; steps: number };
  /** The same around an asynchronous run (a request to a service in this process). */
  during<T>(run: () => Promise<T>): Promise<{ result: T; steps: number }>;
}

/** Wraps `sqlite.prepare`; call before the code under test prepares its statements. */
export function stepCounter(sqlite: DatabaseSync): StepCounter {
  const prepared: Counted[] = [];
  const prepare = sqlite.prepare.bind(sqlite);
  sqlite.prepare = (sql: string) => {
    const made = prepare(sql) as Counted;
    prepared.push(made);
    return made;
  };
  const reset = () => {
    for (const s of prepared) s.resetStats();
  };
  const total = () => prepared.reduce((sum, s) => sum + s.stat('vmStep'), 0);
  const counter = <T>(run: () => T) => {
    reset();
    const result = run();
    return { result, steps: total() };
  };
  counter.during = async <T>(run: () => Promise<T>) => {
    reset();
    const result = await run();
    return { result, steps: total() };
  };
  return counter;
}
