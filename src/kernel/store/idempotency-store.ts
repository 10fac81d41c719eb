// Idempotency keys on sqlite, with DESIGN.md's rules: the same key and body replay the stored
// response, another body is a mismatch (422), a key still in flight is a conflict (409), keys
// live at least 24 hours and expired ones are purged. Plain data in and out: the HTTP kernel
// maps these outcomes to statuses and the Idempotent-Replayed header.
//
// `_idempotency_keys` is NOT an evidence table: rows change state and are deleted when they
// expire, so it has no hash chain and no append-only triggers. Every change still goes through
// the group committer, so an outcome is durable before the caller acts on it.
//
// DESIGN.md: a key's completion commits in the same transaction as the effect it guards.
// completeWithin() stores the response inside the caller's own open write unit, so the effect
// and the key commit together or not at all; complete() (its own transaction) is for handlers
// that have no store effect. Because a completion also checks that its token still owns the
// key, taking a key over can never yield two effects: the loser's unit rolls back.
//
// Each completion is also a row of the evidence chain `idempotency_answers` (scope, key, expiry,
// fingerprint and the response), in the same transaction: the key table is derived state, and a
// restore from replicated evidence rebuilds the answers still within their retention
// (restoreIdempotencyKeys), so a retry after a host loss is answered, not run a second time.
//
// A key in flight whose owning process is gone (SIGKILL, power loss) never commits its effect,
// so it is free again at once rather than after the lease: begin() checks the owner's pid.
//
// A route whose handler's only effect is the one it commits through writeReply() needs no key
// row before that effect: isFree() reads the committed state (no write), and claimWithin() claims
// the key and stores its answer inside the effect's own unit, in one transaction. Such a key has
// no row in `_idempotency_keys` at all: its idempotency_answers row is the claim, and lookups
// read both (the key table first, then the newest answer of the key, through the chain's one
// index, on `key`). Each row and each index costs on every keyed write, and this one write
// replaces a key row (three B-trees) and three indexes of the chain. That unit holds
// SQLite's write lock (BEGIN IMMEDIATE, across processes), so of two requests with one key
// exactly one finds it free; the other's unit rolls back, effect included, and it reads the
// winner's answer with begin() once the winner's commit is done. A crash before that commit
// leaves nothing behind: no effect, no key.

import { createHash, randomUUID } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import type { Store } from './open-database.ts';
import { statement } from './_statements.ts';
import { AirlockError } from '../errors.ts';
import { defineEvidenceTable, ensureEvidenceTables } from './evidence-table.ts';
import { insertChainRow, prepareAppend } from './_append-evidence.ts';

/** The least retention DESIGN.md allows, and the default. */
export const MIN_IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
/** How long a started request owns its key before a retry may take it over (a crash leaves keys in flight). */
export const DEFAULT_IN_FLIGHT_LEASE_MS = 120_000;
/** How often begin() also deletes expired keys. */
export const DEFAULT_PURGE_INTERVAL_MS = 60 * 60 * 1000;

export const IDEMPOTENCY_TABLE = '_idempotency_keys';

/** Every completed key's answer, as evidence (see the header). */
export const IDEMPOTENCY_ANSWERS = defineEvidenceTable({
  name: 'idempotency_answers',
  columns: { scope: 'text', key: 'text', expires_at: 'text' },
  // The only read at run time is a key's newest answer (heldKey); a restore scans them all.
  indexed: ['key'],
});

/** The answer a key's idempotency_answers row holds (its payload). */
interface AnswerPayload {
  fingerprint: string;
  status: number;
  headers: Record<string, string>;
  body_base64: string;
}

/** What holds a key: an answer within its retention, or a live request in flight. */
type HeldKey = { fingerprint: string; state: 'in_flight' } | { fingerprint: string; state: 'completed'; response: () => StoredResponse };

const KEY_TABLE_SQL = `CREATE TABLE IF NOT EXISTS ${IDEMPOTENCY_TABLE} (
      scope TEXT NOT NULL,
      key TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      token TEXT NOT NULL,
      state TEXT NOT NULL CHECK (state IN ('in_flight', 'completed')),
      lease_until TEXT NOT NULL,
      expires_at TEXT NOT NULL,
      status INTEGER,
      headers TEXT,
      body BLOB,
      owner_pid INTEGER,
      PRIMARY KEY (scope, key)
    ) STRICT;
    CREATE INDEX IF NOT EXISTS ${IDEMPOTENCY_TABLE}_expires ON ${IDEMPOTENCY_TABLE} (expires_at);`;

/** The part of a response worth replaying: the caller chooses which headers to keep. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

export type IdempotencyBegin =
  /** The caller owns the key: run the handler, then complete() or abandon() with this token. */
  | { kind: 'started'; token: string }
  /** Same key, same request, already answered: send this again with Idempotent-Replayed: true. */
  | { kind: 'replay'; response: StoredResponse }
  /** Same key, another request: 422. */
  | { kind: 'mismatch' }
  /** Same key and request, still running: 409. */
  | { kind: 'in_flight' };

export interface IdempotencyKeyRef {
  /** Keeps keys of different routes or clients apart, e.g. "erp POST /api/method/x client-7". */
  scope: string;
  key: string;
  /** Defaults to the store's clock. */
  now?: Date;
}

export interface IdempotencyStore {
  readonly retentionMs: number;
  begin(request: IdempotencyKeyRef & { fingerprint: string }): Promise<IdempotencyBegin>;
  /** Stores the response for replay in its own transaction; false when the token no longer owns the key (lease taken over, or purged). */
  complete(request: IdempotencyKeyRef & { token: string; response: StoredResponse }): Promise<boolean>;
  /** Releases the key after a handler failed, so a retry runs afresh; false when the token no longer owns it. */
  abandon(request: IdempotencyKeyRef & { token: string }): Promise<boolean>;
  /** Deletes every key expired at `now`; returns how many. */
  purgeExpired(now?: Date): Promise<number>;
  /**
   * Stores the response inside an open `store.write` unit of the same database (`sqlite` is the
   * connection that unit was given), so it commits with the unit's effect. Throws an
   * `idempotency` AirlockError when the token no longer owns the key: the unit then rolls back,
   * effect included. Optional so that other implementations stay valid; without it the kernel
   * completes the key in a transaction of its own.
   */
  completeWithin?(sqlite: DatabaseSync, request: IdempotencyKeyRef & { token: string; response: StoredResponse }): void;
  /**
   * True when nothing committed holds the key (no answer within its retention, no live request
   * in flight), read without a write. Only a hint: claimWithin() decides, under the write lock.
   */
  isFree?(request: IdempotencyKeyRef): boolean;
  /**
   * Claims a free key and stores its answer inside an open `store.write` unit of the same
   * database, so key, answer and the unit's effect commit together. False when the key is held
   * (another request answered it or runs with it): the caller must then throw so its unit, effect
   * included, rolls back, and read the holder's answer with begin() after that commit.
   */
  claimWithin?(sqlite: DatabaseSync, request: IdempotencyKeyRef & { fingerprint: string; response: StoredResponse }): boolean;
  /** claimWithin() in a transaction of its own, for an answer with no store effect beside it. */
  claim?(request: IdempotencyKeyRef & { fingerprint: string; response: StoredResponse }): Promise<boolean>;
}

export interface IdempotencyStoreOptions {
  /** At least MIN_IDEMPOTENCY_RETENTION_MS (the default); counted from the latest begin or complete. */
  retentionMs?: number;
  inFlightLeaseMs?: number;
  purgeIntervalMs?: number;
}

/**
 * The fingerprint that tells "same request" from "another body": SHA-256 (hex) of
 * `METHOD "\n" path "\n"` followed by the raw body bytes. Pass the path as the route sees it.
 */
export function requestFingerprint(request: { method: string; path: string; body: Uint8Array }): string {
  // Two inputs fed in turn: crypto.hash() takes one, and joining them would copy the whole body.
  return createHash('sha256').update(`${request.method.toUpperCase()}\n${request.path}\n`).update(request.body).digest('hex');
}

/**
 * Creates the key table if needed and returns the store.
 *
 * @example
 * const keys = createIdempotencyStore(store);
 * const outcome = await keys.begin({ scope: 'erp POST /orders', key, fingerprint: requestFingerprint(request) });
 */
export function createIdempotencyStore(store: Store, options: IdempotencyStoreOptions = {}): IdempotencyStore {
  const retentionMs = options.retentionMs ?? MIN_IDEMPOTENCY_RETENTION_MS;
  if (!(retentionMs >= MIN_IDEMPOTENCY_RETENTION_MS)) {
    throw new RangeError(`Invalid idempotency retention ${retentionMs} ms: keys must live at least ${MIN_IDEMPOTENCY_RETENTION_MS} ms (24 h)`);
  }
  const leaseMs = options.inFlightLeaseMs ?? DEFAULT_IN_FLIGHT_LEASE_MS;
  const purgeIntervalMs = options.purgeIntervalMs ?? DEFAULT_PURGE_INTERVAL_MS;
  store.sqlite.exec(KEY_TABLE_SQL);
  ensureEvidenceTables(store.sqlite, [IDEMPOTENCY_ANSWERS], { label: store.path, now: store.now });
  // Tables made before owner_pid existed gain it; their in-flight rows fall back to the lease.
  const columns = store.sqlite.prepare(`PRAGMA table_info(${IDEMPOTENCY_TABLE})`).all().map((c) => c['name']);
  if (!columns.includes('owner_pid')) store.sqlite.exec(`ALTER TABLE ${IDEMPOTENCY_TABLE} ADD COLUMN owner_pid INTEGER`);
  let lastPurge = Number.NEGATIVE_INFINITY;
  const at = (now: Date | undefined) => now ?? store.now();
  const later = (now: Date, ms: number) => new Date(now.getTime() + ms).toISOString();

  function markCompleted(sqlite: DatabaseSync, { scope, key, token, response, now: given }: IdempotencyKeyRef & { token: string; response: StoredResponse }): boolean {
    const now = at(given);
    const expiresAt = later(now, retentionMs);
    const headers = JSON.stringify(response.headers);
    const updated = statement(
      sqlite,
      `UPDATE ${IDEMPOTENCY_TABLE} SET state = 'completed', status = ?, headers = ?, body = ?, expires_at = ?
       WHERE scope = ? AND key = ? AND token = ? AND state = 'in_flight' RETURNING fingerprint`,
    ).get(response.status, headers, response.body, expiresAt, scope, key, token);
    LIVE_TOKENS.delete(token);
    if (updated === undefined) return false;
    recordAnswer(sqlite, { scope, key, fingerprint: String(updated['fingerprint']), response, expiresAt, now });
    return true;
  }

  /** The answer as a row of the idempotency_answers chain, beside the key row (see the header). */
  function recordAnswer(sqlite: DatabaseSync, answer: { scope: string; key: string; fingerprint: string; response: StoredResponse; expiresAt: string; now: Date }): void {
    const { scope, key, fingerprint, response, expiresAt, now } = answer;
    const { buffer, byteOffset, byteLength } = response.body;
    const payload = { fingerprint, status: response.status, headers: response.headers, body_base64: Buffer.from(buffer, byteOffset, byteLength).toString('base64') };
    // Nobody reads the row back: only its chain fields are made.
    insertChainRow(sqlite, IDEMPOTENCY_ANSWERS, { prepared: prepareAppend(IDEMPOTENCY_ANSWERS, { scope, key, expires_at: expiresAt, payload }), now: () => now });
  }

  /**
   * What holds the key at `iso`, if anything: its key row, else its newest answer (see the
   * header). One statement reads both: outside a transaction (isFree) each statement is a read
   * transaction of its own.
   */
  function heldKey(sqlite: DatabaseSync, scope: string, key: string, iso: string): HeldKey | undefined {
    const rows = statement(sqlite, SELECT_HOLDERS).all(scope, key);
    // An expired key, or one whose owner stopped renewing its lease, is free again.
    const row = rows.find((r) => r['payload'] === null);
    if (row !== undefined && String(row['expires_at']) > iso) {
      const fingerprint = String(row['fingerprint']);
      if (row['state'] === 'completed') {
        const response = () => ({ status: Number(row['status']), headers: JSON.parse(String(row['headers'])) as Record<string, string>, body: row['body'] as Uint8Array });
        return { fingerprint, state: 'completed', response };
      }
      if (String(row['lease_until']) > iso && ownerAlive(row['owner_pid'], String(row['token']))) return { fingerprint, state: 'in_flight' };
    }
    const answer = rows.find((r) => r['payload'] !== null);
    if (answer === undefined || !(String(answer['expires_at']) > iso)) return undefined;
    const payload = JSON.parse(String(answer['payload'])) as AnswerPayload;
    const response = () => ({ status: payload.status, headers: payload.headers, body: Buffer.from(payload.body_base64, 'base64') });
    return { fingerprint: payload.fingerprint, state: 'completed', response };
  }

  /** Claims a free key with its answer in the open unit on `sqlite` (see claimWithin in the interface). */
  function claimIn(sqlite: DatabaseSync, { scope, key, fingerprint, response, now: given }: IdempotencyKeyRef & { fingerprint: string; response: StoredResponse }): boolean {
    const now = at(given);
    if (now.getTime() - lastPurge >= purgeIntervalMs) purge(sqlite, now);
    if (heldKey(sqlite, scope, key, now.toISOString()) !== undefined) return false;
    // The answer row is the claim (no key row): heldKey() finds it from now on, in this transaction too.
    recordAnswer(sqlite, { scope, key, fingerprint, response, expiresAt: later(now, retentionMs), now });
    return true;
  }

  function openUnitOf(sqlite: DatabaseSync, key: string, action: string): void {
    if (sqlite !== store.sqlite) {
      throw new TypeError(`Cannot ${action} Idempotency-Key "${key}" inside a write of another database: use the store the key lives in`);
    }
    if (!sqlite.isTransaction) throw new TypeError(`Cannot ${action} Idempotency-Key "${key}" within a write: no transaction is open`);
  }

  function purge(sqlite: DatabaseSync, now: Date): number {
    lastPurge = now.getTime();
    return Number(statement(sqlite, `DELETE FROM ${IDEMPOTENCY_TABLE} WHERE expires_at <= ?`).run(now.toISOString()).changes);
  }

  return {
    retentionMs,
    begin({ scope, key, fingerprint, now: given }) {
      const now = at(given);
      return store.write((sqlite): IdempotencyBegin => {
        if (now.getTime() - lastPurge >= purgeIntervalMs) purge(sqlite, now);
        const held = heldKey(sqlite, scope, key, now.toISOString());
        if (held !== undefined) {
          if (held.fingerprint !== fingerprint) return { kind: 'mismatch' };
          if (held.state === 'in_flight') return { kind: 'in_flight' };
          return { kind: 'replay', response: held.response() };
        }
        const token = randomUUID();
        statement(
          sqlite,
          `INSERT OR REPLACE INTO ${IDEMPOTENCY_TABLE} (scope, key, fingerprint, token, state, lease_until, expires_at, owner_pid)
           VALUES (?, ?, ?, ?, 'in_flight', ?, ?, ?)`,
        ).run(scope, key, fingerprint, token, later(now, leaseMs), later(now, retentionMs), process.pid);
        LIVE_TOKENS.add(token);
        return { kind: 'started', token };
      });
    },
    complete(request) {
      return store.write((sqlite) => markCompleted(sqlite, request));
    },
    completeWithin(sqlite, request) {
      openUnitOf(sqlite, request.key, 'complete');
      if (!markCompleted(sqlite, request)) {
        throw new AirlockError('idempotency', `Cannot complete Idempotency-Key "${request.key}": another request took it over; this one's effect is rolled back`);
      }
    },
    isFree({ scope, key, now }) {
      // The writer connection between commits: it reads what is committed (and, at FULL, on disk).
      return heldKey(store.sqlite, scope, key, at(now).toISOString()) === undefined;
    },
    claimWithin(sqlite, request) {
      openUnitOf(sqlite, request.key, 'claim');
      return claimIn(sqlite, request);
    },
    claim(request) {
      return store.write((sqlite) => claimIn(sqlite, request));
    },
    abandon({ scope, key, token }) {
      return store.write((sqlite) => {
        const result = statement(sqlite, `DELETE FROM ${IDEMPOTENCY_TABLE} WHERE scope = ? AND key = ? AND token = ? AND state = 'in_flight'`).run(
          scope,
          key,
          token,
        );
        LIVE_TOKENS.delete(token);
        return Number(result.changes) === 1;
      });
    },
    purgeExpired(now) {
      const when = at(now);
      return store.write((sqlite) => purge(sqlite, when));
    },
  };
}

// The key's row (payload NULL) and its newest answer (through the chain's index on key, whose
// entries of one key are in seq order), as at most two rows.
const SELECT_HOLDERS = `SELECT fingerprint, state, lease_until, expires_at, owner_pid, token, status, headers, body, NULL AS payload
  FROM ${IDEMPOTENCY_TABLE} WHERE scope = ?1 AND key = ?2
  UNION ALL
  SELECT * FROM (SELECT NULL, NULL, NULL, expires_at, NULL, NULL, NULL, NULL, NULL, payload
    FROM ${IDEMPOTENCY_ANSWERS.name} WHERE key = ?2 AND scope = ?1 ORDER BY seq DESC LIMIT 1)`;

/** Tokens this process began and has not completed or abandoned yet. */
const LIVE_TOKENS = new Set<string>();

/**
 * False when the process that began a key is gone: its effect can no longer commit, so the key
 * is free. Our own pid with a token we did not begin is an earlier process of the same pid (a
 * container restarted as pid 1). An unknown pid (older rows) or one we may not signal counts
 * as alive, and the lease decides.
 */
function ownerAlive(pid: unknown, token: string): boolean {
  if (typeof pid !== 'number' && typeof pid !== 'bigint') return true;
  const owner = Number(pid);
  if (owner === process.pid) return LIVE_TOKENS.has(token);
  if (!Number.isSafeInteger(owner) || owner <= 0) return true;
  try {
    process.kill(owner, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * Rebuilds the key table of a restored database from its idempotency_answers chain: the newest
 * answer of each key whose retention has not ended at `now`, completed, owned by no process.
 * Returns how many keys it wrote (0 when the database has no such chain).
 */
export function restoreIdempotencyKeys(sqlite: DatabaseSync, options: { now: Date }): number {
  if (sqlite.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(IDEMPOTENCY_ANSWERS.name) === undefined) return 0;
  sqlite.exec(KEY_TABLE_SQL);
  const iso = options.now.toISOString();
  const insert = sqlite.prepare(
    `INSERT OR REPLACE INTO ${IDEMPOTENCY_TABLE} (scope, key, fingerprint, token, state, lease_until, expires_at, status, headers, body, owner_pid)
     VALUES (?, ?, ?, ?, 'completed', ?, ?, ?, ?, ?, NULL)`,
  );
  let count = 0;
  // In seq order, so a key answered twice (after its first answer expired) keeps its newest answer.
  for (const row of sqlite.prepare(`SELECT scope, key, expires_at, payload FROM ${IDEMPOTENCY_ANSWERS.name} WHERE expires_at > ? ORDER BY seq`).iterate(iso)) {
    const answer = JSON.parse(String(row['payload'])) as AnswerPayload;
    insert.run(String(row['scope']), String(row['key']), answer.fingerprint, randomUUID(), iso, String(row['expires_at']), answer.status, JSON.stringify(answer.headers), Buffer.from(answer.body_base64, 'base64'));
    count++;
  }
  return count;
}
