// IdempotencySpec.claimWithEffect: a fresh key is claimed in the effect's own transaction (one
// commit per keyed write), a duplicate in this process is 409 while the first runs, and of two
// requests with one key on two connections to one database (two processes) the one that commits
// second rolls back and answers with the first one's stored answer.

import { test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Socket } from 'node:net';
import { createIdempotencyStore, createService, json, openDatabase, problem, writeReply } from '../../src/kernel/index.ts';
import type { Reply, RequestContext, Store } from '../../src/kernel/index.ts';
import { createLogger } from '../../src/kernel/log.ts';
import { send } from '../helpers/http.ts';
import { tempDir } from './fixtures/store-fixtures.ts';

interface Order {
  item: string;
  /** What the handler answers, instead of committing an effect. */
  answer?: 'refuse' | 'fail';
}

/** A service whose POST /orders inserts one row per effect; `gate` may hold a handler before its write. */
async function orderService(t: TestContext, path: string, gate: (context: RequestContext) => Promise<void> = async () => {}) {
  const store: Store = openDatabase(path);
  store.sqlite.exec('CREATE TABLE IF NOT EXISTS orders (id INTEGER PRIMARY KEY, item TEXT NOT NULL)');
  const keys = createIdempotencyStore(store);
  const handler = async (context: RequestContext): Promise<Reply> => {
    const order = context.body as Order;
    await gate(context);
    if (order.answer === 'refuse') return problem(409, 'Out of stock', { detail: `No "${order.item}" left` });
    if (order.answer === 'fail') return problem(503, 'Upstream down');
    return writeReply(context, {
      store,
      work: (sqlite) => Number(sqlite.prepare('INSERT INTO orders (item) VALUES (?) RETURNING id').get(order.item)!['id']),
      reply: (id) => json({ id, item: order.item }, { status: 201, headers: { location: `/orders/${id}` } }),
    });
  };
  const service = createService({
    name: 'joined', version: '0', log: createLogger({ write: () => {} }), authenticators: {},
    routes: [{ method: 'POST', path: '/orders', auth: 'none', summary: 'create', request: {}, idempotency: { store: keys, required: true, claimWithEffect: true }, handler }],
  });
  await service.listen();
  t.after(async () => {
    await service.close();
    await store.close();
  });
  const post = (order: Order, key: string) =>
    send(`${service.url()}/orders`, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': `"${key}"` }, body: JSON.stringify(order) });
  const effects = () => store.sqlite.prepare('SELECT item FROM orders ORDER BY id').all().map((row) => String(row['item']));
  return { store, post, effects };
}

/**
 * A gate both handlers wait at until both requests arrived: each ran past the free key, and the
 * database decides. After 2 s it opens anyway, so a request that never reaches it fails a check
 * instead of hanging the test.
 */
function meetingOfTwo(): () => Promise<void> {
  let arrived = 0;
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return () => {
    if (++arrived === 2) open();
    else setTimeout(open, 2000).unref();
    return opened;
  };
}

test('claimWithEffect: a fresh key, its answer and the effect commit in one transaction, and a retry replays the answer', async (t) => {
  const { store, post, effects } = await orderService(t, ':memory:');
  const before = store.stats().commits;
  const first = await post({ item: 'a' }, 'k-1');
  assert.equal(first.status, 201);
  assert.equal(store.stats().commits - before, 1, 'one commit: no transaction of its own for the key');
  const again = await post({ item: 'a' }, 'k-1');
  assert.deepEqual([again.status, again.text, again.headers['location'], again.headers['idempotent-replayed']], [201, first.text, first.headers['location'], 'true']);
  assert.equal((await post({ item: 'b' }, 'k-1')).status, 422);
  assert.deepEqual(effects(), ['a']);
});

test('claimWithEffect: a duplicate in the same process is 409 while the first runs, 422 with another body', async (t) => {
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const { post, effects } = await orderService(t, ':memory:', () => held);
  const first = post({ item: 'slow' }, 'k-2');
  await new Promise((resolve) => setTimeout(resolve, 100));
  const duplicate = await post({ item: 'slow' }, 'k-2');
  assert.deepEqual([duplicate.status, duplicate.headers['retry-after']], [409, '1']);
  assert.equal((await post({ item: 'other' }, 'k-2')).status, 422);
  release();
  assert.equal((await first).status, 201);
  assert.equal((await post({ item: 'slow' }, 'k-2')).headers['idempotent-replayed'], 'true');
  assert.deepEqual(effects(), ['slow']);
});

test('claimWithEffect: an answer without an effect is stored and replayed; a 5xx stores nothing and a retry runs afresh', async (t) => {
  const { post, effects } = await orderService(t, ':memory:');
  const refused = await post({ item: 'x', answer: 'refuse' }, 'k-3');
  assert.equal(refused.status, 409);
  const replay = await post({ item: 'x', answer: 'refuse' }, 'k-3');
  assert.deepEqual([replay.status, replay.text, replay.headers['idempotent-replayed']], [409, refused.text, 'true']);
  assert.equal((await post({ item: 'y', answer: 'fail' }, 'k-4')).status, 503);
  const retried = await post({ item: 'y', answer: 'fail' }, 'k-4');
  assert.deepEqual([retried.status, retried.headers['idempotent-replayed']], [503, undefined]);
  assert.deepEqual(effects(), []);
});

test('claimWithEffect: two connections on one database (two processes), one key at the same instant: one effect, the other answers with its stored answer', async (t) => {
  const path = join(tempDir(t), 'shared.sqlite');
  const gate = meetingOfTwo();
  const a = await orderService(t, path, gate);
  const b = await orderService(t, path, gate);
  const [fromA, fromB] = await Promise.all([a.post({ item: 'one' }, 'k-5'), b.post({ item: 'one' }, 'k-5')]);
  assert.deepEqual([fromA.status, fromB.status], [201, 201]);
  assert.equal(fromA.text, fromB.text);
  assert.deepEqual([fromA.headers['idempotent-replayed'], fromB.headers['idempotent-replayed']].sort(), ['true', undefined]);
  assert.deepEqual(a.effects(), ['one']);
});

test('claimWithEffect: two connections, one key, two bodies at the same instant: one effect, the other is 422', async (t) => {
  const path = join(tempDir(t), 'shared.sqlite');
  const gate = meetingOfTwo();
  const a = await orderService(t, path, gate);
  const b = await orderService(t, path, gate);
  const answers = await Promise.all([a.post({ item: 'left' }, 'k-6'), b.post({ item: 'right' }, 'k-6')]);
  assert.deepEqual(answers.map((answer) => answer.status).sort(), [201, 422]);
  assert.equal(a.effects().length, 1);
});

test('claimWithEffect: the stored JSON answer goes out in one socket write with its head, as any JSON reply does (no second, corked chunk)', async (t) => {
  const { post } = await orderService(t, ':memory:');
  // Counted on the server's sockets: a Buffer body after the head is written as a writev of two chunks.
  const original = Socket.prototype._writev;
  let writevs = 0;
  Socket.prototype._writev = function (this: Socket, ...args: Parameters<NonNullable<Socket['_writev']>>) {
    writevs++;
    return original!.apply(this, args);
  };
  t.after(() => {
    Socket.prototype._writev = original;
  });
  const first = await post({ item: 'a' }, 'k-one-write');
  assert.equal(first.status, 201);
  assert.equal(writevs, 0);
  assert.deepEqual(JSON.parse(first.text), { id: 1, item: 'a' });
});
