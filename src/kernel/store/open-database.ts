// Opening a service's database: WAL, synchronous=FULL, a busy timeout, a 32 MiB page cache,
// temporary storage in memory, foreign keys and recursive triggers on; migrations to the version
// the code knows; the declared evidence tables; and one group committer through which every
// durable write of the process goes.

import { existsSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { AirlockError } from '../errors.ts';
import type { ColumnTypes, EvidenceInput, EvidenceRow, EvidenceTable, AnyEvidenceTable } from './evidence-table.ts';
import { ensureEvidenceTables } from './evidence-table.ts';
import { migrate } from './migrate.ts';
import type { Migration } from './migrate.ts';
import { projectRows, readRows } from './read-rows.ts';
import type { ProjectOptions, ReadRowsOptions } from './read-rows.ts';
import { insertChainRow, insertEvidence, prepareAppend } from './_append-evidence.ts';
import type { ChainFields } from './_append-evidence.ts';
import { createGroupCommitter } from './_group-committer.ts';
import type { CommitStats } from './_group-committer.ts';
import { startReplication } from './_replication-hook.ts';
import type { ReplicationOptions } from './_replication-hook.ts';
import type { ReplicationStatus } from '../replication/evidence-replicator.ts';

export const DEFAULT_BUSY_TIMEOUT_MS = 5000;
export const DEFAULT_MAX_BATCH = 1000;

export interface OpenDatabaseOptions {
  /** Migration i takes user_version from i to i + 1. */
  migrations?: readonly Migration[];
  /** Created after the migrations if missing; append() accepts only these. */
  evidenceTables?: readonly AnyEvidenceTable[];
  busyTimeoutMs?: number;
  /** The clock for recorded_at. */
  now?: () => Date;
  /** Most writes one transaction carries. */
  maxBatch?: number;
  /** Evidence replication to a NATS JetStream stream (docs/replication.md); default from AIRLOCK_EVIDENCE_*. */
  replication?: ReplicationOptions;
}

/** What a write() closure may do besides plain SQL: append evidence in the same transaction. */
export interface Transaction {
  append<C extends ColumnTypes, P>(table: EvidenceTable<C, P>, input: EvidenceInput<C, P>): EvidenceRow<C, P>;
  /**
   * append() for a writer that does not read the row back: the same row, chain and checks, and only
   * its chain fields (seq, recorded_at, sha256, prev_sha256) in return. Cheaper: the row object
   * append() returns, with its lazily parsed payload, cost about 2 us per append.
   */
  appendChain<C extends ColumnTypes, P>(table: EvidenceTable<C, P>, input: EvidenceInput<C, P>): ChainFields;
}

export interface Store {
  /** The connection, for the service's own tables and reads. Do not open transactions on it across an await. */
  readonly sqlite: DatabaseSync;
  readonly path: string;
  /** The clock the store was opened with. */
  readonly now: () => Date;
  /**
   * Runs `work` inside the next group-commit transaction and resolves with its result after COMMIT.
   * If `work` throws, only its own changes are undone (a savepoint) and only its caller rejects;
   * if the transaction itself fails (BEGIN, COMMIT), everything rolls back and every caller rejects.
   * `tx.append` adds evidence rows in that same transaction, so state and evidence commit together.
   */
  write<R>(work: (sqlite: DatabaseSync, tx: Transaction) => R): Promise<R>;
  /** Appends one evidence row; resolves with the stored row once it is durable. */
  append<C extends ColumnTypes, P>(table: EvidenceTable<C, P>, input: EvidenceInput<C, P>): Promise<EvidenceRow<C, P>>;
  readRows<C extends ColumnTypes, P>(table: EvidenceTable<C, P>, options?: ReadRowsOptions<C>): EvidenceRow<C, P>[];
  project<C extends ColumnTypes, P, S>(table: EvidenceTable<C, P>, options: ProjectOptions<C, P, S>): S;
  stats(): CommitStats;
  /** Where evidence replication stands (lag, errors); undefined when it is off. */
  replication(): ReplicationStatus | undefined;
  /** Commits everything pending, then closes the connection. Later writes reject with `store_closed`. */
  close(): Promise<void>;
}

/**
 * Opens (creating if needed) and prepares a database. `:memory:` is allowed for tests.
 * Throws `store_open`, `store_version` or `store_migration` AirlockErrors.
 *
 * @example
 * const store = openDatabase('var/erp.sqlite', { migrations, evidenceTables: [receipts] });
 * const row = await store.append(receipts, { subject: 'case-7', kind: 'created', payload: { by: 'ops' } });
 */
export function openDatabase(path: string, options: OpenDatabaseOptions = {}): Store {
  const now = options.now ?? (() => new Date());
  const sqlite = openConnection(path, { readOnly: false, busyTimeoutMs: options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS });
  const tables = new Set<AnyEvidenceTable>(options.evidenceTables ?? []);
  try {
    configure(sqlite, path, options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS);
    migrate(sqlite, options.migrations ?? [], { label: path });
    ensureEvidenceTables(sqlite, [...tables], { label: path, now });
  } catch (error) {
    sqlite.close();
    throw error;
  }
  let replicator;
  try {
    replicator = startReplication(sqlite, path, options.replication);
  } catch (error) {
    sqlite.close();
    throw error;
  }
  const afterCommit = replicator && (() => replicator.afterCommit());
  const committer = createGroupCommitter(sqlite, { maxBatch: options.maxBatch ?? DEFAULT_MAX_BATCH, label: path, ...(afterCommit && { afterCommit }) });
  let closed = false;

  /** Checks an append's input before it joins a batch, so a bad row fails only its own caller. */
  function prepareDeclared(table: { name: string }, input: object) {
    if (!tables.has(table as AnyEvidenceTable)) {
      throw new TypeError(`Cannot append to evidence table "${table.name}": it was not declared when "${path}" was opened`);
    }
    return prepareAppend(table as AnyEvidenceTable, input as Record<string, unknown>);
  }

  function closedError(action: string): AirlockError {
    return new AirlockError('store_closed', `Cannot ${action}: database "${path}" is closed`);
  }

  return {
    sqlite,
    path,
    now,
    write(work) {
      if (closed) return Promise.reject(closedError('write'));
      return committer.write((connection) =>
        work(connection, {
          append: (table, input) => insertEvidence(connection, table, { prepared: prepareDeclared(table, input), now }),
          appendChain: (table, input) => insertChainRow(connection, table as AnyEvidenceTable, { prepared: prepareDeclared(table, input), now }),
        }),
      );
    },
    append(table, input) {
      if (closed) return Promise.reject(closedError(`append to "${table.name}"`));
      let prepared;
      try {
        prepared = prepareDeclared(table, input);
      } catch (error) {
        return Promise.reject(error);
      }
      return committer.write((connection) => insertEvidence(connection, table, { prepared, now }));
    },
    readRows: (table, readOptions) => readRows(sqlite, table, readOptions),
    project: (table, projectOptions) => projectRows(sqlite, table, projectOptions),
    stats: () => committer.stats(),
    replication: () => replicator?.status(),
    async close() {
      if (closed) return;
      closed = true;
      committer.flushAll();
      await replicator?.close();
      sqlite.close();
    },
  };
}

/**
 * Opens an existing database read-only, for verifiers: never creates the file, runs no migration.
 * Throws `store_open` when the file is missing or is not a SQLite database.
 */
export function openDatabaseReadOnly(path: string, options: { busyTimeoutMs?: number } = {}): DatabaseSync {
  if (!existsSync(path)) throw new AirlockError('store_open', `Cannot open database "${path}": file does not exist`);
  return openConnection(path, { readOnly: true, busyTimeoutMs: options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS });
}

function openConnection(path: string, options: { readOnly: boolean; busyTimeoutMs: number }): DatabaseSync {
  let sqlite: DatabaseSync | undefined;
  try {
    sqlite = new DatabaseSync(path, { readOnly: options.readOnly, timeout: options.busyTimeoutMs, enableForeignKeyConstraints: true });
    // SQLite reads the header lazily: touch the schema so a file that is not a database fails here.
    sqlite.prepare('SELECT count(*) FROM sqlite_schema').get();
    return sqlite;
  } catch (error) {
    sqlite?.close();
    throw new AirlockError('store_open', `Cannot open database "${path}": ${(error as Error).message}`, { cause: error });
  }
}

function configure(sqlite: DatabaseSync, path: string, busyTimeoutMs: number): void {
  const mode = retryWhileLocked(() => sqlite.prepare('PRAGMA journal_mode = WAL').get()?.['journal_mode'], busyTimeoutMs);
  // An in-memory database has no journal file to put in WAL mode.
  if (mode !== 'wal' && path !== ':memory:') {
    throw new AirlockError('store_open', `Cannot open database "${path}": journal_mode is "${String(mode)}", WAL is required`);
  }
  // temp_store=MEMORY: each group-commit unit runs in a savepoint whose statement journal
  // otherwise spills to a temporary file beyond 64 KiB (an ERP delivery did: twice the syscalls).
  sqlite.exec('PRAGMA synchronous = FULL; PRAGMA cache_size = -32768; PRAGMA temp_store = MEMORY; PRAGMA foreign_keys = ON; PRAGMA recursive_triggers = ON;');
}

/**
 * Runs `step`, retrying for up to `timeoutMs` while SQLite says the database is locked. Switching
 * a new file to WAL needs an exclusive lock, and when two processes open the same new database at
 * once (units started together) SQLite answers SQLITE_BUSY at once instead of calling its busy
 * handler, because waiting could deadlock. Opening is synchronous and happens once, so a blocking
 * sleep between tries is acceptable here.
 */
function retryWhileLocked<T>(step: () => T, timeoutMs: number): T {
  const deadline = Date.now() + timeoutMs;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let attempt = 0; ; attempt++) {
    try {
      return step();
    } catch (error) {
      const busy = (((error as { errcode?: number }).errcode ?? 0) & 0xff) === SQLITE_BUSY || /database is locked/.test((error as Error).message);
      if (!busy || Date.now() >= deadline) throw error;
      Atomics.wait(pause, 0, 0, Math.min(5 * 2 ** attempt, 100));
    }
  }
}

/** SQLite's primary result code for "database is locked" (extended codes keep it in the low byte). */
const SQLITE_BUSY = 5;
