// The store's public face: durable, append-only, hash-chained evidence on node:sqlite, group
// commit, schema migrations, and the idempotency-key store. Kernel code imports from here.

export { canonicalJson } from './canonical-json.ts';
export type { JsonValue } from './canonical-json.ts';
export { openDatabase, openDatabaseReadOnly, DEFAULT_BUSY_TIMEOUT_MS, DEFAULT_MAX_BATCH } from './open-database.ts';
export type { OpenDatabaseOptions, Store, Transaction } from './open-database.ts';
export type { CommitStats, Work } from './_group-committer.ts';
export { migrate, userVersion } from './migrate.ts';
export type { Migration } from './migrate.ts';
export { defineEvidenceTable, listEvidenceTables } from './evidence-table.ts';
export type {
  AnyEvidenceTable,
  ColumnType,
  ColumnTypes,
  ColumnValues,
  EvidenceInput,
  EvidenceRow,
  EvidenceTable,
  RegisteredTable,
} from './evidence-table.ts';
export { readRows, readRowsSql, projectRows } from './read-rows.ts';
export { ensureTrigger } from './ensure-trigger.ts';
export { statement } from './_statements.ts';
export type { ProjectOptions, ReadRowsOptions } from './read-rows.ts';
export { rowHash, GENESIS_SHA256 } from './row-hash.ts';
export type { HashedFields } from './row-hash.ts';
export { verifyChain, verifyChainParallel, verifyAllChains, createChainWatch } from './verify-chain.ts';
export { createReadPool, DEFAULT_READ_THREADS, DEFAULT_READ_BUDGET_MS, DEFAULT_READ_QUEUE } from './read-pool.ts';
export type { ReadPool, ReadPoolOptions, ReadResult, ReadPoolStats, RecordsResult, SqlFunction } from './read-pool.ts';
export type { RecordShape } from './_render-records.ts';
export type { ChainVerification } from './verify-chain.ts';
export {
  createIdempotencyStore,
  requestFingerprint,
  MIN_IDEMPOTENCY_RETENTION_MS,
  DEFAULT_IN_FLIGHT_LEASE_MS,
  DEFAULT_PURGE_INTERVAL_MS,
  IDEMPOTENCY_ANSWERS,
  restoreIdempotencyKeys,
} from './idempotency-store.ts';
export type { IdempotencyStore, IdempotencyStoreOptions, IdempotencyBegin, IdempotencyKeyRef, StoredResponse } from './idempotency-store.ts';
export { lazyIdempotencyStore } from './lazy-idempotency-store.ts';
export { parseIdempotencyKey, MAX_IDEMPOTENCY_KEY_LENGTH } from './parse-idempotency-key.ts';
export type { IdempotencyKeyResult } from './parse-idempotency-key.ts';
