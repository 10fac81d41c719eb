import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createIdempotencyStore, createService, json, openDatabase, problem } from '../../src/kernel/index.ts';
import type { Service, Store } from '../../src/kernel/index.ts';
import { send } from '../helpers/http.ts';
import { createLogger } from '../../src/kernel/log.ts';

let store: Store;
let service: Service;
let base: string;
let effects = 0;
let failNext = false;
let release: () => void = () => {};

before(async () => {
  store = openDatabase(':memory:');
  const keys = createIdempotencyStore(store);
  service = createService({
    name: 'idem', version: '0', log: createLogger({ write: () => {} }),
    authenticators: { client: (c) => ({ ok: true, principal: { consumer: String(c.headers['x-client']) } }) },
    routes: [
      {
        method: 'POST', path: '/orders', auth: 'none', summary: 'create', request: {}, idempotency: { store: keys, required: true },
        handler: async (c) => {
          if ((c.body as { slow?: boolean }).slow) await new Promise<void>((r) => { release = r; });
          if (failNext) { failNext = false; return problem(503, 'Upstream down'); }
          effects++;
          return json({ order: effects, echo: c.body }, { status: 201, headers: { location: `/orders/${effects}` } });
        },
      },
      {
        method: 'POST', path: '/mine', auth: 'client', summary: 'per client', request: {}, idempotency: { store: keys, required: true },
        handler: (c) => { effects++; return json({ for: c.principal }, { status: 201 }); },
      },
      { method: 'POST', path: '/notes', auth: 'none', summary: 'optional key', request: {}, idempotency: { store: keys, required: false }, handler: () => { effects++; return json({ ok: true }); } },
    ],
  });
  await service.listen();
  base = service.url();
});

after(async () => {
  release();
  await service.close();
  await store.close();
});

function post(path: string, body: unknown, key?: string) {
  return send(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(key !== undefined && { 'idempotency-key': key }) }, body: JSON.stringify(body) });
}

test('Idempotency-Key: the same key and body replay the stored response without a second effect', async () => {
  const before = effects;
  const first = await post('/orders', { item: 'a' }, '"key-1"');
  assert.equal(first.status, 201);
  assert.equal(first.headers['idempotent-replayed'], undefined);
  const again = await post('/orders', { item: 'a' }, 'key-1');
  assert.equal(again.status, 201);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.equal(again.headers['location'], first.headers['location']);
  assert.equal(again.headers['content-type'], first.headers['content-type']);
  assert.equal(again.text, first.text);
  assert.equal(effects, before + 1);
});

test('Idempotency-Key: another body with the same key is 422, and nothing runs', async () => {
  await post('/orders', { item: 'b' }, 'key-2');
  const before = effects;
  const other = await post('/orders', { item: 'c' }, 'key-2');
  assert.equal(other.status, 422);
  assert.match((other.json() as { detail: string }).detail, /Idempotency-Key "key-2" was used with another request body/);
  assert.equal(effects, before);
});

test('Idempotency-Key: a key still in flight is 409', async () => {
  const slow = post('/orders', { slow: true }, 'key-3');
  await new Promise((r) => setTimeout(r, 100));
  const concurrent = await post('/orders', { slow: true }, 'key-3');
  assert.equal(concurrent.status, 409);
  release();
  assert.equal((await slow).status, 201);
  assert.equal((await post('/orders', { slow: true }, 'key-3')).headers['idempotent-replayed'], 'true');
});

test('Idempotency-Key: missing on a route that requires it is 400, malformed is 400', async () => {
  const before = effects;
  assert.equal((await post('/orders', { item: 'd' })).status, 400);
  assert.equal((await post('/orders', { item: 'd' }, '"unterminated')).status, 400);
  assert.equal((await post('/orders', { item: 'd' }, '')).status, 400);
  assert.equal(effects, before);
  assert.equal((await post('/notes', { n: 1 })).status, 200, 'optional keys may be left out');
});

test('Idempotency-Key: a 5xx releases the key so a retry runs afresh', async () => {
  failNext = true;
  assert.equal((await post('/orders', { item: 'e' }, 'key-5')).status, 503);
  const retry = await post('/orders', { item: 'e' }, 'key-5');
  assert.equal(retry.status, 201);
  assert.equal(retry.headers['idempotent-replayed'], undefined);
});

test('Idempotency-Key: the same key from two principals never shares a stored response', async () => {
  const as = (client: string) => send(`${base}/mine`, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': 'shared-key', 'x-client': client }, body: '{}' });
  const alice = await as('alice');
  const bob = await as('bob');
  assert.deepEqual(alice.json(), { for: { consumer: 'alice' } });
  assert.deepEqual(bob.json(), { for: { consumer: 'bob' } });
  assert.equal(bob.headers['idempotent-replayed'], undefined);
  assert.equal((await as('alice')).headers['idempotent-replayed'], 'true');
});
