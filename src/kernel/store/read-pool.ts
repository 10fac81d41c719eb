// Heavy reads off the event loop (DESIGN.md "Evidence over time"): a few worker threads, each
// with its own read-only connection to the service's database (WAL lets readers run beside the
// one writer and see every committed write), answer queries while the main thread goes on
// serving probes, webhooks and writes. Every query has a time budget counted from the moment it
// is asked: a query still waiting or running when its budget is spent is refused with
// `read_budget` (HTTP 503 with Retry-After), and the thread that ran it is replaced, so a slow
// read can never hold the pool. Too many queries waiting is refused the same way at once.
// An in-memory database (tests) cannot be shared across threads: its queries run inline.

import type { DatabaseSync, SQLInputValue, SQLOutputValue } from 'node:sqlite';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { AirlockError } from '../errors.ts';
import { readWorkerMain } from './_read-worker.ts';
import type { ReadAnswer, ReadRequest } from './_read-worker.ts';
import { renderRecords } from './_render-records.ts';
import type { RecordShape, RenderedRecords } from './_render-records.ts';
import { cachedStatement, statement } from './_statements.ts';

/** One core stays with the event loop that answers probes and writes: threads = cores - 1, from 1 to 4. */
export const DEFAULT_READ_THREADS = Math.max(1, Math.min(4, availableParallelism() - 1));
export const DEFAULT_READ_BUDGET_MS = 2000;
export const DEFAULT_READ_QUEUE = 64;

export interface ReadPoolOptions {
  /** Worker threads, each with one connection (default: the CPUs less one, from 1 to 4). */
  threads?: number;
  /** Milliseconds a query may wait and run, together (default 2000). */
  budgetMs?: number;
  /** Queries that may wait for a thread before new ones are refused (default 64). */
  maxQueue?: number;
  busyTimeoutMs?: number;
  /** The writer's connection: used inline when `path` is `:memory:`. */
  inline?: DatabaseSync;
  /**
   * Deterministic scalar SQL functions every read connection registers (a search's matcher).
   * Each must stand alone, as renderRecords() does: the threads get its source text.
   */
  functions?: Readonly<Record<string, SqlFunction>>;
}

/** A scalar SQL function: SQLite values in, one SQLite value out. */
export type SqlFunction = (...args: SQLOutputValue[]) => SQLInputValue;

export interface ReadResult {
  rows: Record<string, SQLOutputValue>[];
  /** SQLite virtual-machine steps the query took: its cost, independent of the clock. */
  steps: number;
}

/** A query's rows rendered as records on the read thread (renderRecords()). */
export interface RecordsResult {
  /** The records' JSON texts joined by commas, UTF-8: the inside of a JSON array. */
  bytes: Buffer;
  /** Base64url SHA-256 of `bytes`. */
  digest: string;
  count: number;
  /** The last row's seq, or undefined for no rows. */
  lastSeq: number | undefined;
  steps: number;
}

export interface ReadPoolStats {
  queries: number;
  /** Queries refused because their budget was spent (waiting or running). */
  overBudget: number;
  /** Queries refused because the queue was full. */
  refused: number;
  /** Steps of the most recent query, and their sum. */
  lastSteps: number;
  totalSteps: number;
}

export interface ReadPool {
  /**
   * Runs one read-only query and resolves with its rows.
   * Rejects with `read_budget` when the budget is spent or too many queries wait.
   */
  query(sql: string, params?: readonly SQLInputValue[], options?: { budgetMs?: number }): Promise<ReadResult>;
  /**
   * Runs one read-only query whose rows carry `seq`, `payload` and the shape's fields, and
   * resolves with them rendered as records on the read thread: the event loop gets one buffer.
   */
  queryRecords(sql: string, params: readonly SQLInputValue[], shape: RecordShape, options?: { budgetMs?: number }): Promise<RecordsResult>;
  stats(): ReadPoolStats;
  /** Ends the threads; queries still waiting reject with `store_closed`. */
  close(): Promise<void>;
}

interface Job {
  request: ReadRequest;
  resolve(result: ReadResult | RecordsResult): void;
  reject(error: unknown): void;
  timer: NodeJS.Timeout;
  thread?: Thread;
}

interface Thread {
  worker: Worker;
  job?: Job;
}

/** The threads' source: the worker's body, given the renderer and the pool's SQL functions. */
function workerSource(functions: Readonly<Record<string, SqlFunction>>): string {
  const entries = Object.entries(functions).map(([name, fn]) => `${JSON.stringify(name)}: (${fn.toString()})`);
  return `(${readWorkerMain.toString()})(${renderRecords.toString()}, {${entries.join(', ')}}, ${cachedStatement.toString()})`;
}

/**
 * A pool of read-only connections to the database at `path`. Threads start on first use.
 *
 * @example
 * const reads = createReadPool(store.path, { inline: store.sqlite });
 * const { rows } = await reads.query('SELECT name FROM leads ORDER BY modified DESC LIMIT ?', [20]);
 */
export function createReadPool(path: string, options: ReadPoolOptions = {}): ReadPool {
  const size = options.threads ?? DEFAULT_READ_THREADS;
  const budgetMs = options.budgetMs ?? DEFAULT_READ_BUDGET_MS;
  const maxQueue = options.maxQueue ?? DEFAULT_READ_QUEUE;
  if (!Number.isSafeInteger(size) || size < 1) throw new RangeError(`Invalid read threads ${size}: use a positive integer`);
  const functions = options.functions ?? {};
  for (const name of Object.keys(functions)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new TypeError(`Invalid SQL function name "${name}": use letters, digits and _`);
  }
  const source = workerSource(functions);
  if (options.inline !== undefined) for (const [name, fn] of Object.entries(functions)) options.inline.function(name, { deterministic: true }, fn);
  const stats: ReadPoolStats = { queries: 0, overBudget: 0, refused: 0, lastSteps: 0, totalSteps: 0 };
  const threads: Thread[] = [];
  const waiting: Job[] = [];
  let nextId = 1;
  let closed = false;

  function spawn(): Thread {
    const worker = new Worker(source, { eval: true, workerData: { path, busyTimeoutMs: options.busyTimeoutMs ?? 5000 } });
    const thread: Thread = { worker };
    worker.unref();
    worker.on('message', (answer: ReadAnswer) => {
      const job = thread.job;
      if (job === undefined || job.request.id !== answer.id) return;
      thread.job = undefined;
      clearTimeout(job.timer);
      if (answer.ok) {
        stats.lastSteps = answer.steps;
        stats.totalSteps += answer.steps;
        job.resolve('records' in answer ? recordsResult(answer.records, answer.steps) : { rows: answer.rows as Record<string, SQLOutputValue>[], steps: answer.steps });
      } else job.reject(new AirlockError('store_read', `Cannot read "${path}": ${answer.message}`));
      dispatch();
    });
    worker.on('error', (error: Error) => retire(thread, new AirlockError('store_read', `Cannot read "${path}": ${error.message}`, { cause: error })));
    worker.on('exit', () => retire(thread, new AirlockError('store_read', `Cannot read "${path}": the read thread stopped`)));
    threads.push(thread);
    return thread;
  }

  /** Drops a thread (ended, failed, or stopped for a spent budget), failing the job it held. */
  function retire(thread: Thread, error: unknown): void {
    const index = threads.indexOf(thread);
    if (index === -1) return;
    threads.splice(index, 1);
    const job = thread.job;
    thread.job = undefined;
    if (job !== undefined) {
      clearTimeout(job.timer);
      job.reject(error);
    }
    void thread.worker.terminate();
    dispatch();
  }

  function dispatch(): void {
    while (waiting.length > 0 && !closed) {
      const idle = threads.find((t) => t.job === undefined) ?? (threads.length < size ? spawn() : undefined);
      if (idle === undefined) return;
      const job = waiting.shift()!;
      idle.job = job;
      job.thread = idle;
      idle.worker.postMessage(job.request);
    }
  }

  function overBudget(job: Job, limit: number): void {
    stats.overBudget++;
    const error = new AirlockError('read_budget', `Read on "${path}" did not finish within its ${limit} ms budget: narrow the request, or retry later`);
    const queued = waiting.indexOf(job);
    if (queued !== -1) {
      waiting.splice(queued, 1);
      job.reject(error);
    } else if (job.thread !== undefined) retire(job.thread, error);
  }

  function inlineQuery(sqlite: DatabaseSync, sql: string, params: readonly SQLInputValue[]): ReadResult {
    const prepared = statement(sqlite, sql);
    const counted = prepared as unknown as { resetStats(): void; stat(counter: 'vmStep'): number };
    counted.resetStats();
    const rows = prepared.all(...params);
    const steps = counted.stat('vmStep');
    stats.lastSteps = steps;
    stats.totalSteps += steps;
    return { rows, steps };
  }

  /** Queues one query; on ':memory:' it runs inline, and `records` renders its rows here. */
  function ask<T extends ReadResult | RecordsResult>(sql: string, params: readonly SQLInputValue[], records: RecordShape | undefined, queryBudgetMs: number | undefined): Promise<T> {
    if (closed) return Promise.reject(new AirlockError('store_closed', `Cannot read: database "${path}" is closed`));
    stats.queries++;
    if (path === ':memory:') {
      if (options.inline === undefined) return Promise.reject(new TypeError('A read pool on ":memory:" needs the writer connection as `inline`'));
      try {
        const result = inlineQuery(options.inline, sql, params);
        if (records === undefined) return Promise.resolve(result as T);
        return Promise.resolve(recordsResult(renderRecords(result.rows, records), result.steps) as T);
      } catch (error) {
        return Promise.reject(new AirlockError('store_read', `Cannot read "${path}": ${(error as Error).message}`, { cause: error }));
      }
    }
    if (waiting.length >= maxQueue) {
      stats.refused++;
      return Promise.reject(new AirlockError('read_budget', `Read on "${path}" refused: ${maxQueue} reads are already waiting; retry later`));
    }
    const limit = queryBudgetMs ?? budgetMs;
    return new Promise<T>((resolve, reject) => {
      const request: ReadRequest = { id: nextId++, sql, params: [...params], ...(records !== undefined && { records }) };
      const job: Job = { request, resolve: resolve as Job['resolve'], reject, timer: setTimeout(() => overBudget(job, limit), limit) };
      job.timer.unref();
      waiting.push(job);
      dispatch();
    });
  }

  return {
    query: (sql, params = [], queryOptions = {}) => ask<ReadResult>(sql, params, undefined, queryOptions.budgetMs),
    queryRecords: (sql, params, shape, queryOptions = {}) => ask<RecordsResult>(sql, params, shape, queryOptions.budgetMs),
    stats: () => ({ ...stats }),
    async close() {
      closed = true;
      for (const job of waiting.splice(0)) {
        clearTimeout(job.timer);
        job.reject(new AirlockError('store_closed', `Cannot read: database "${path}" is closed`));
      }
      await Promise.all(threads.splice(0).map((thread) => {
        if (thread.job !== undefined) {
          clearTimeout(thread.job.timer);
          thread.job.reject(new AirlockError('store_closed', `Cannot read: database "${path}" closed during the read`));
        }
        return thread.worker.terminate();
      }));
    },
  };
}

function recordsResult(records: RenderedRecords, steps: number): RecordsResult {
  const bytes = Buffer.from(records.bytes.buffer, records.bytes.byteOffset, records.bytes.byteLength);
  return { bytes, digest: records.digest, count: records.count, lastSeq: records.lastSeq ?? undefined, steps };
}
