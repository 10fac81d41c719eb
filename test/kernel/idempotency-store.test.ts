import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import {
  createIdempotencyStore,
  DEFAULT_IN_FLIGHT_LEASE_MS,
  MIN_IDEMPOTENCY_RETENTION_MS,
  requestFingerprint,
} from '../../src/kernel/store/idempotency-store.ts';
import type { IdempotencyStoreOptions, StoredResponse } from '../../src/kernel/store/idempotency-store.ts';
import { openDatabase } from '../../src/kernel/store/open-database.ts';
import { tempDir } from './fixtures/store-fixtures.ts';

const T0 = new Date('2026-03-01T12:00:00.000Z');
const HOUR = 3600_000;
const at = (ms: number) => new Date(T0.getTime() + ms);
const FP_A = requestFingerprint({ method: 'POST', path: '/orders', body: Buffer.from('{"n":1}') });
const FP_B = requestFingerprint({ method: 'POST', path: '/orders', body: Buffer.from('{"n":2}') });
const RESPONSE: StoredResponse = { status: 201, headers: { 'content-type': 'application/json' }, body: Buffer.from('{"id":"o-1"}') };
const KEY = { scope: 'erp POST /orders', key: 'k-1' };

function open(t: TestContext, options: IdempotencyStoreOptions = {}, path = join(tempDir(t), 'a.sqlite')) {
  const store = openDatabase(path, { now: () => T0 });
  t.after(() => store.close());
  return { store, keys: createIdempotencyStore(store, options), path };
}

async function started(keys: ReturnType<typeof createIdempotencyStore>, now = T0, fingerprint = FP_A): Promise<string> {
  const outcome = await keys.begin({ ...KEY, fingerprint, now });
  assert.equal(outcome.kind, 'started');
  return outcome.kind === 'started' ? outcome.token : '';
}

test('requestFingerprint() is SHA-256 of method, path and raw body', () => {
  const expected = createHash('sha256').update('POST\n/orders\n{"n":1}').digest('hex');
  assert.equal(FP_A, expected);
  assert.equal(requestFingerprint({ method: 'post', path: '/orders', body: Buffer.from('{"n":1}') }), expected);
  assert.notEqual(requestFingerprint({ method: 'PUT', path: '/orders', body: Buffer.from('{"n":1}') }), expected);
  assert.notEqual(requestFingerprint({ method: 'POST', path: '/orders?x=1', body: Buffer.from('{"n":1}') }), expected);
  assert.notEqual(FP_B, expected);
});

test('IdempotencyStore.begin() starts a new key, then answers in_flight for the same request', async (t) => {
  const { keys } = open(t);
  const token = await started(keys);
  assert.match(token, /^[0-9a-f-]{36}$/);
  assert.deepEqual(await keys.begin({ ...KEY, fingerprint: FP_A, now: at(1000) }), { kind: 'in_flight' });
});

test('IdempotencyStore.begin() answers mismatch for another body, in flight or completed', async (t) => {
  const { keys } = open(t);
  const token = await started(keys);
  assert.deepEqual(await keys.begin({ ...KEY, fingerprint: FP_B, now: T0 }), { kind: 'mismatch' });
  await keys.complete({ ...KEY, token, response: RESPONSE, now: T0 });
  assert.deepEqual(await keys.begin({ ...KEY, fingerprint: FP_B, now: T0 }), { kind: 'mismatch' });
});

test('IdempotencyStore.complete() stores the response that begin() then replays byte for byte', async (t) => {
  const { keys } = open(t);
  const token = await started(keys);
  assert.equal(await keys.complete({ ...KEY, token, response: RESPONSE, now: T0 }), true);
  const outcome = await keys.begin({ ...KEY, fingerprint: FP_A, now: at(HOUR) });
  assert.equal(outcome.kind, 'replay');
  if (outcome.kind !== 'replay') return;
  assert.equal(outcome.response.status, 201);
  assert.deepEqual(outcome.response.headers, { 'content-type': 'application/json' });
  assert.equal(Buffer.from(outcome.response.body).toString(), '{"id":"o-1"}');
});

test('IdempotencyStore keeps keys of different scopes apart', async (t) => {
  const { keys } = open(t);
  await started(keys);
  const other = await keys.begin({ scope: 'erp POST /refunds', key: KEY.key, fingerprint: FP_B, now: T0 });
  assert.equal(other.kind, 'started');
});

test('IdempotencyStore.abandon() releases the key so a retry runs afresh', async (t) => {
  const { keys } = open(t);
  const token = await started(keys);
  assert.equal(await keys.abandon({ ...KEY, token }), true);
  assert.equal(await keys.abandon({ ...KEY, token }), false);
  await started(keys, T0, FP_B);
});

test('IdempotencyStore lets a retry take over a key whose lease ran out, and refuses the old owner', async (t) => {
  const { keys } = open(t);
  const crashed = await started(keys);
  assert.deepEqual(await keys.begin({ ...KEY, fingerprint: FP_A, now: at(DEFAULT_IN_FLIGHT_LEASE_MS - 1) }), { kind: 'in_flight' });
  const retry = await started(keys, at(DEFAULT_IN_FLIGHT_LEASE_MS));
  assert.notEqual(retry, crashed);
  assert.equal(await keys.complete({ ...KEY, token: crashed, response: RESPONSE }), false);
  assert.equal(await keys.abandon({ ...KEY, token: crashed }), false);
  assert.equal(await keys.complete({ ...KEY, token: retry, response: RESPONSE }), true);
});

test('IdempotencyStore replays for the retention period and forgets the key after it', async (t) => {
  const { keys } = open(t);
  const token = await started(keys);
  await keys.complete({ ...KEY, token, response: RESPONSE, now: T0 });
  const lastMs = MIN_IDEMPOTENCY_RETENTION_MS - 1;
  assert.equal((await keys.begin({ ...KEY, fingerprint: FP_A, now: at(lastMs) })).kind, 'replay');
  assert.equal((await keys.begin({ ...KEY, fingerprint: FP_B, now: at(MIN_IDEMPOTENCY_RETENTION_MS) })).kind, 'started');
});

test('createIdempotencyStore() refuses a retention under 24 hours and honours a longer one', async (t) => {
  const store = openDatabase(':memory:');
  t.after(() => store.close());
  assert.throws(() => createIdempotencyStore(store, { retentionMs: 23 * HOUR }), /^RangeError: Invalid idempotency retention 82800000 ms/);
  assert.throws(() => createIdempotencyStore(store, { retentionMs: NaN }), RangeError);
  const keys = createIdempotencyStore(store, { retentionMs: 48 * HOUR });
  assert.equal(keys.retentionMs, 48 * HOUR);
  const token = await started(keys);
  await keys.complete({ ...KEY, token, response: RESPONSE, now: T0 });
  assert.equal((await keys.begin({ ...KEY, fingerprint: FP_A, now: at(47 * HOUR) })).kind, 'replay');
});

test('IdempotencyStore.purgeExpired() deletes expired keys only', async (t) => {
  const { keys, store } = open(t, { purgeIntervalMs: Number.POSITIVE_INFINITY });
  await started(keys);
  await keys.begin({ scope: 's', key: 'later', fingerprint: FP_A, now: at(HOUR) });
  assert.equal(await keys.purgeExpired(at(MIN_IDEMPOTENCY_RETENTION_MS)), 1);
  assert.deepEqual(store.sqlite.prepare('SELECT key FROM _idempotency_keys').all().map((row) => row['key']), ['later']);
  assert.equal(await keys.purgeExpired(at(MIN_IDEMPOTENCY_RETENTION_MS)), 0);
});

test('IdempotencyStore.begin() purges expired keys once per purge interval', async (t) => {
  const { keys, store } = open(t, { purgeIntervalMs: HOUR });
  const left = () => store.sqlite.prepare('SELECT key FROM _idempotency_keys ORDER BY key').all().map((row) => row['key']);
  const begin = (key: string, ms: number) => keys.begin({ scope: 's', key, fingerprint: FP_A, now: at(ms) });
  const day = MIN_IDEMPOTENCY_RETENTION_MS;
  await begin('old1', 0);
  await begin('old2', HOUR / 2);
  await begin('a', day);
  assert.deepEqual(left(), ['a', 'old2'], 'a purge a day later removed old1, which had expired');
  await begin('b', day + HOUR / 2 + 1);
  assert.deepEqual(left(), ['a', 'b', 'old2'], 'old2 has expired, but the interval since the last purge has not passed');
  await begin('c', day + HOUR);
  assert.deepEqual(left(), ['a', 'b', 'c'], 'the next purge, an interval later, removed old2');
});

test('IdempotencyStore keeps completed responses across a restart', async (t) => {
  const first = open(t);
  const token = await started(first.keys);
  await first.keys.complete({ ...KEY, token, response: RESPONSE, now: T0 });
  await first.store.close();
  const again = open(t, {}, first.path);
  const outcome = await again.keys.begin({ ...KEY, fingerprint: FP_A, now: at(HOUR) });
  assert.equal(outcome.kind === 'replay' && Buffer.from(outcome.response.body).toString(), '{"id":"o-1"}');
});

test('IdempotencyStore.begin() from concurrent requests lets exactly one start', async (t) => {
  const { keys } = open(t);
  const outcomes = await Promise.all(Array.from({ length: 10 }, () => keys.begin({ ...KEY, fingerprint: FP_A, now: T0 })));
  assert.deepEqual(outcomes.map((outcome) => outcome.kind).sort(), ['started', ...Array(9).fill('in_flight')].sort());
});

test('IdempotencyStore.completeWithin() commits the key with the effect, and a key taken over rolls the effect back', async (t) => {
  const { store, keys } = open(t);
  store.sqlite.exec('CREATE TABLE effects (key TEXT)');
  const token = await started(keys);
  await store.write((sqlite) => {
    sqlite.prepare('INSERT INTO effects VALUES (?)').run('first');
    keys.completeWithin!(sqlite, { ...KEY, token, response: RESPONSE, now: T0 });
  });
  const replay = await keys.begin({ ...KEY, fingerprint: FP_A, now: T0 });
  assert.equal(replay.kind, 'replay');
  // A stale token (its key was taken over) cannot complete: its unit, effect included, rolls back.
  await assert.rejects(
    store.write((sqlite) => {
      sqlite.prepare('INSERT INTO effects VALUES (?)').run('second');
      keys.completeWithin!(sqlite, { ...KEY, token: 'stale', response: RESPONSE, now: T0 });
    }),
    (error: Error & { cause?: { code?: string } }) => error.cause?.code === 'idempotency',
  );
  assert.deepEqual(store.sqlite.prepare('SELECT key FROM effects').all().map((r) => r['key']), ['first']);
  assert.throws(() => keys.completeWithin!(store.sqlite, { ...KEY, token, response: RESPONSE }), /no transaction is open/);
});

test('IdempotencyStore.begin() frees at once a key whose owning process is gone (SIGKILL), before its lease ends', async (t) => {
  const { store, keys } = open(t);
  await started(keys);
  assert.equal((await keys.begin({ ...KEY, fingerprint: FP_A, now: T0 })).kind, 'in_flight', 'the owner is this live process');
  // A pid no process has: the owner died and its effect can never commit.
  store.sqlite.prepare('UPDATE _idempotency_keys SET owner_pid = ?, token = ?').run(2 ** 22 + 7, 'dead-owner');
  assert.equal((await keys.begin({ ...KEY, fingerprint: FP_A, now: T0 })).kind, 'started');
  // Our own pid with a token this process never began: an earlier process of the same pid.
  store.sqlite.prepare('UPDATE _idempotency_keys SET owner_pid = ?, token = ?').run(process.pid, 'earlier-incarnation');
  assert.equal((await keys.begin({ ...KEY, fingerprint: FP_A, now: T0 })).kind, 'started');
});

test('IdempotencyStore.claimWithin() claims a free key with its answer and the effect in one transaction; a held key is refused and the effect rolls back', async (t) => {
  const { store, keys } = open(t);
  store.sqlite.exec('CREATE TABLE effects (key TEXT)');
  assert.equal(keys.isFree!({ ...KEY, now: T0 }), true);
  const claimed = await store.write((sqlite) => {
    sqlite.prepare('INSERT INTO effects VALUES (?)').run('first');
    return keys.claimWithin!(sqlite, { ...KEY, fingerprint: FP_A, response: RESPONSE, now: T0 });
  });
  assert.equal(claimed, true);
  assert.equal(keys.isFree!({ ...KEY, now: T0 }), false);
  const replay = await keys.begin({ ...KEY, fingerprint: FP_A, now: at(HOUR) });
  assert.equal(replay.kind === 'replay' && Buffer.from(replay.response.body).toString(), '{"id":"o-1"}');
  assert.deepEqual(await keys.begin({ ...KEY, fingerprint: FP_B, now: T0 }), { kind: 'mismatch' });
  // The second claim of the key is refused; its caller throws, and its unit (effect included) rolls back.
  await assert.rejects(store.write((sqlite) => {
    sqlite.prepare('INSERT INTO effects VALUES (?)').run('second');
    if (!keys.claimWithin!(sqlite, { ...KEY, fingerprint: FP_A, response: RESPONSE, now: T0 })) throw new Error('key held');
  }), /key held/);
  assert.deepEqual(store.sqlite.prepare('SELECT key FROM effects').all().map((r) => r['key']), ['first']);
  // Its answer is a row of the idempotency_answers chain, as for complete().
  const answers = store.sqlite.prepare('SELECT scope, key, payload FROM idempotency_answers').all();
  assert.deepEqual(answers.map((r) => [r['scope'], r['key'], JSON.parse(String(r['payload'])).fingerprint]), [[KEY.scope, KEY.key, FP_A]]);
  assert.throws(() => keys.claimWithin!(store.sqlite, { ...KEY, key: 'k-9', fingerprint: FP_A, response: RESPONSE }), /no transaction is open/);
});

test('IdempotencyStore.claimWithin() writes the answer row alone (no key row, one index on the chain); begin() and isFree() read the key from it', async (t) => {
  const { store, keys } = open(t);
  assert.equal(await store.write((sqlite) => keys.claimWithin!(sqlite, { ...KEY, fingerprint: FP_A, response: RESPONSE, now: T0 })), true);
  assert.deepEqual(store.sqlite.prepare('SELECT count(*) AS n FROM _idempotency_keys').get()?.['n'], 0);
  const indexes = store.sqlite.prepare(`SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'idempotency_answers'`).all();
  assert.deepEqual(indexes.map((row) => row['name']), ['idempotency_answers_key']);
  const replay = await keys.begin({ ...KEY, fingerprint: FP_A, now: at(HOUR) });
  assert.deepEqual(replay.kind === 'replay' && [replay.response.status, replay.response.headers, Buffer.from(replay.response.body).toString()], [201, RESPONSE.headers, '{"id":"o-1"}']);
  assert.deepEqual(await keys.begin({ ...KEY, fingerprint: FP_B, now: at(HOUR) }), { kind: 'mismatch' });
  assert.equal(keys.isFree!({ ...KEY, now: at(HOUR) }), false);
  assert.equal(keys.isFree!({ ...KEY, scope: 'erp POST /other', now: at(HOUR) }), true, 'a key is held in its own scope only');
  // Past its retention the answer no longer holds the key: a new request starts, and its answer is the one replayed.
  const afterRetention = at(MIN_IDEMPOTENCY_RETENTION_MS + 1000);
  assert.equal(keys.isFree!({ ...KEY, now: afterRetention }), true);
  const token = await started(keys, afterRetention, FP_B);
  await keys.complete({ ...KEY, token, response: { ...RESPONSE, body: Buffer.from('{"id":"o-2"}') }, now: afterRetention });
  const second = await keys.begin({ ...KEY, fingerprint: FP_B, now: afterRetention });
  assert.equal(second.kind === 'replay' && Buffer.from(second.response.body).toString(), '{"id":"o-2"}');
});

test('IdempotencyStore.claimWithin() in one batch: of two units with one key the first claims it, the second is refused', async (t) => {
  const { store, keys } = open(t);
  const outcomes = await Promise.all([FP_A, FP_B].map((fingerprint) => store.write((sqlite) => keys.claimWithin!(sqlite, { ...KEY, fingerprint, response: RESPONSE, now: T0 }))));
  assert.deepEqual(outcomes, [true, false]);
  assert.deepEqual(await keys.begin({ ...KEY, fingerprint: FP_B, now: T0 }), { kind: 'mismatch' }, 'the first claim, with body A, holds the key');
});

test('IdempotencyStore.claim() is refused while a request holds the key in flight, and claims it once that owner is gone or the answer expired', async (t) => {
  const { store, keys } = open(t);
  await started(keys);
  assert.equal(keys.isFree!({ ...KEY, now: T0 }), false);
  assert.equal(await keys.claim!({ ...KEY, fingerprint: FP_A, response: RESPONSE, now: T0 }), false);
  store.sqlite.prepare('UPDATE _idempotency_keys SET owner_pid = ?, token = ?').run(2 ** 22 + 7, 'dead-owner');
  assert.equal(keys.isFree!({ ...KEY, now: T0 }), true);
  assert.equal(await keys.claim!({ ...KEY, fingerprint: FP_A, response: RESPONSE, now: T0 }), true);
  assert.equal(await keys.claim!({ ...KEY, fingerprint: FP_A, response: RESPONSE, now: at(HOUR) }), false, 'answered within its retention');
  const afterRetention = at(MIN_IDEMPOTENCY_RETENTION_MS + 1000);
  assert.equal(keys.isFree!({ ...KEY, now: afterRetention }), true);
  assert.equal(await keys.claim!({ ...KEY, fingerprint: FP_B, response: RESPONSE, now: afterRetention }), true);
});

test('IdempotencyStore.claimWithin(): two connections on one file (two processes) never both claim a key', async (t) => {
  const path = join(tempDir(t), 'shared.sqlite');
  const a = open(t, {}, path);
  const b = open(t, {}, path);
  for (const store of [a.store, b.store]) store.sqlite.exec('CREATE TABLE IF NOT EXISTS effects (key TEXT, writer TEXT)');
  const keys = Array.from({ length: 40 }, (_, i) => `shared-${i}`);
  const claimOn = (side: typeof a, writer: string) => (key: string) =>
    side.store.write((sqlite) => {
      sqlite.prepare('INSERT INTO effects VALUES (?, ?)').run(key, writer);
      if (!side.keys.claimWithin!(sqlite, { ...KEY, key, fingerprint: FP_A, response: RESPONSE, now: T0 })) throw new Error('key held');
      return writer;
    }).catch(() => undefined);
  const winners = await Promise.all(keys.flatMap((key) => [claimOn(a, 'a')(key), claimOn(b, 'b')(key)]));
  assert.equal(winners.filter((w) => w !== undefined).length, keys.length, 'exactly one claim per key');
  const effects = a.store.sqlite.prepare('SELECT key, count(*) AS n FROM effects GROUP BY key').all();
  assert.deepEqual(effects.map((r) => [r['key'], r['n']]).sort(), keys.map((key) => [key, 1]).sort());
});
