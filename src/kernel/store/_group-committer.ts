// Group commit on a synchronous SQLite connection. write() queues a unit of work and returns a
// promise; one flush, scheduled with setImmediate, runs everything queued by then (up to maxBatch)
// between one BEGIN IMMEDIATE and one COMMIT, and settles the promises only after COMMIT returned.
// With synchronous=FULL that single COMMIT is the one fsync every caller of the batch waits for.
// Each unit runs inside its own SAVEPOINT: a unit that throws is rolled back alone and only its
// caller is rejected, so one bad request cannot fail (or half-fail) the others in its batch.
// A failure of the transaction itself (BEGIN, COMMIT) rolls everything back and rejects every caller.

import type { DatabaseSync } from 'node:sqlite';
import { AirlockError } from '../errors.ts';
import { statement } from './_statements.ts';

/** A unit of work run inside the batch transaction. It must be synchronous and must not commit. */
export type Work<R> = (sqlite: DatabaseSync) => R;

export interface CommitStats {
  /** Transactions committed. */
  commits: number;
  /** Units of work committed. */
  writes: number;
  /** Transactions rolled back. */
  failures: number;
}

export interface GroupCommitter {
  write<R>(work: Work<R>): Promise<R>;
  /** Commits everything queued, in batches, now. */
  flushAll(): void;
  stats(): CommitStats;
}

interface Entry {
  work: Work<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

export function createGroupCommitter(
  sqlite: DatabaseSync,
  options: { maxBatch: number; label: string; afterCommit?: () => Promise<void> | undefined },
): GroupCommitter {
  if (!Number.isSafeInteger(options.maxBatch) || options.maxBatch < 1) {
    throw new RangeError(`Invalid maxBatch ${options.maxBatch}: use a positive integer`);
  }
  const queue: Entry[] = [];
  const stats: CommitStats = { commits: 0, writes: 0, failures: 0 };
  let scheduled = false;

  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush, true);
  }

  /**
   * Commits what is queued. Under concurrency (more than one write queued at the first look) it
   * waits one more event-loop turn, which gathers the writes whose I/O completes in that turn into
   * the same commit: fewer commits, each fsync shared by more callers. A lone write commits at once.
   */
  function flush(firstLook: boolean): void {
    if (firstLook && queue.length > 1 && queue.length < options.maxBatch) {
      setImmediate(flush, false);
      return;
    }
    scheduled = false;
    if (queue.length === 0) return;
    commitBatch(queue.splice(0, options.maxBatch));
    // What is left, or arrived meanwhile, waits one turn so I/O and timers can run in between.
    if (queue.length > 0) schedule();
  }

  /** Runs a transaction-control statement, prepared once: exec() would parse it on every unit. */
  function run(sql: string): void {
    statement(sqlite, sql).run();
  }

  function commitBatch(batch: Entry[]): void {
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    let began = false;
    try {
      if (sqlite.isTransaction) throw new Error('a transaction is already open on this connection');
      run('BEGIN IMMEDIATE');
      began = true;
      for (const entry of batch) outcomes.push(runUnit(entry));
      run('COMMIT');
    } catch (error) {
      stats.failures++;
      const failure = batchError(error, batch.length, began ? rollback() : undefined);
      for (const entry of batch) entry.reject(failure);
      return;
    }
    stats.commits++;
    const settle = (notReplicated?: unknown) =>
      batch.forEach((entry, index) => {
        const outcome = outcomes[index]!;
        if (outcome.ok && notReplicated === undefined) {
          stats.writes++;
          entry.resolve(outcome.value);
        } else entry.reject(outcome.ok ? notReplicated : unitError(outcome.error));
      });
    // Evidence replication in sync mode: callers hear of the commit once the stream acknowledged it too.
    const replicated = options.afterCommit?.();
    if (replicated === undefined) settle();
    else replicated.then(() => settle(), settle);
  }

  /** Runs one unit in a savepoint; its failure is undone and kept for its caller alone. */
  function runUnit(entry: Entry): { ok: true; value: unknown } | { ok: false; error: unknown } {
    run('SAVEPOINT airlock_unit');
    try {
      const value = entry.work(sqlite);
      run('RELEASE airlock_unit');
      return { ok: true, value };
    } catch (error) {
      run('ROLLBACK TO airlock_unit');
      run('RELEASE airlock_unit');
      return { ok: false, error };
    }
  }

  function unitError(cause: unknown): AirlockError {
    const message = cause instanceof Error ? cause.message : String(cause);
    const code = /is append-only/.test(message) ? 'append_only' : 'store_write';
    return new AirlockError(code, `Cannot write to "${options.label}": ${message}`, { cause });
  }

  /** Rolls back if the transaction is still open; returns the rollback's own error, if any. */
  function rollback(): unknown {
    if (!sqlite.isTransaction) return undefined;
    try {
      sqlite.exec('ROLLBACK');
      return undefined;
    } catch (error) {
      return error;
    }
  }

  function batchError(cause: unknown, size: number, rollbackError: unknown): AirlockError {
    const message = cause instanceof Error ? cause.message : String(cause);
    const code = /is append-only/.test(message) ? 'append_only' : 'store_write';
    const rollbackNote = rollbackError === undefined ? '' : `; rollback failed too: ${(rollbackError as Error).message}`;
    return new AirlockError(code, `Cannot commit a batch of ${size} writes to "${options.label}": ${message}${rollbackNote}`, {
      cause: rollbackError === undefined ? cause : new AggregateError([cause, rollbackError], message),
    });
  }

  return {
    write<R>(work: Work<R>): Promise<R> {
      return new Promise<R>((resolve, reject) => {
        queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
        schedule();
      });
    },
    flushAll(): void {
      while (queue.length > 0) commitBatch(queue.splice(0, options.maxBatch));
    },
    stats: () => ({ ...stats }),
  };
}
