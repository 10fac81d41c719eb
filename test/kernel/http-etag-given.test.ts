import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../src/kernel/log.ts';
import { createService, strongEtag } from '../../src/kernel/index.ts';
import type { Service } from '../../src/kernel/index.ts';
import { send } from '../helpers/http.ts';

// A handler that caches its bytes may send their tag with them; the kernel then sends that tag
// and answers If-None-Match against it instead of hashing the bytes on every request.
const BYTES = Buffer.from('{"cached":true}');
const GIVEN = strongEtag(BYTES);
let service: Service;
let base: string;

before(async () => {
  service = createService({
    name: 'etag', version: '0.0.0', listeners: { main: { port: 0 } },
    log: createLogger({ name: 'etag', write: () => {} }),
    routes: [
      { method: 'GET', path: '/given', auth: 'none', summary: 'bytes with their tag', handler: () => ({ status: 200, raw: BYTES, contentType: 'application/json', headers: { etag: '"tag-the-handler-knows"' } }) },
      { method: 'GET', path: '/hashed', auth: 'none', summary: 'bytes without a tag', handler: () => ({ status: 200, raw: BYTES, contentType: 'application/json' }) },
    ],
  });
  const [line] = await service.listen();
  base = String(line!['url']);
});
after(() => service.close());

test('a 200 whose handler gives an ETag is sent with that tag, not a hash of the bytes', async () => {
  const reply = await send(`${base}/given`);
  assert.equal(reply.status, 200);
  assert.equal(reply.headers['etag'], '"tag-the-handler-knows"');
  assert.equal(reply.text, BYTES.toString());
});

test('If-None-Match is answered against the handler\'s tag: 304 for it, 200 for the hash it did not send', async () => {
  assert.equal((await send(`${base}/given`, { headers: { 'if-none-match': '"tag-the-handler-knows"' } })).status, 304);
  assert.equal((await send(`${base}/given`, { headers: { 'if-none-match': GIVEN } })).status, 200);
});

test('without a given tag the kernel still hashes the bytes', async () => {
  const reply = await send(`${base}/hashed`);
  assert.equal(reply.headers['etag'], GIVEN);
  assert.equal((await send(`${base}/hashed`, { headers: { 'if-none-match': GIVEN } })).status, 304);
});
