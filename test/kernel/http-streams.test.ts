// Streamed request bodies (RequestSpec.stream) and streamed replies (Reply.stream): the body is
// left unread for the handler, declared types still apply, an unread body closes the
// connection, and a streamed reply honours HEAD and its own ETag with If-None-Match.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { createLogger, createService } from '../../src/kernel/index.ts';
import type { Service } from '../../src/kernel/index.ts';
import { send } from '../helpers/http.ts';

let service: Service;
let base: string;

before(async () => {
  service = createService({
    name: 'streams',
    version: '0.0.0',
    log: createLogger({ write: () => undefined }),
    routes: [
      {
        method: 'PUT', path: '/any', auth: 'none', summary: 'Counts any body', request: { stream: true },
        handler: async (c) => {
          let size = 0;
          for await (const chunk of c.bodyStream! as AsyncIterable<Buffer>) size += chunk.length;
          return { status: 200, body: { size, type: c.headers['content-type'] ?? null } };
        },
      },
      { method: 'POST', path: '/typed', auth: 'none', summary: 'Refuses unread', request: { stream: true, contentTypes: ['text/plain'] }, handler: () => ({ status: 400, body: { read: false } }) },
      {
        method: 'GET', path: '/file', auth: 'none', summary: 'A streamed reply',
        handler: () => ({ status: 200, contentType: 'text/plain', headers: { etag: '"abc"' }, stream: { open: () => Readable.from([Buffer.from('hello '), Buffer.from('world')]), length: 11 } }),
      },
    ],
  });
  const [line] = await service.listen();
  base = line!.url;
});
after(() => service.close());

test('a stream route hands the unread body to the handler, whatever its type when none is declared', async () => {
  const r = await send(`${base}/any`, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: Buffer.alloc(300_000) });
  assert.deepEqual(r.json(), { size: 300_000, type: 'image/png' });
  const none = await send(`${base}/any`, { method: 'PUT', body: 'x' });
  assert.equal((none.json() as { size: number }).size, 1);
});

test('a stream route with declared types refuses another with 415, and closes a connection whose body it left unread', async () => {
  assert.equal((await send(`${base}/typed`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status, 415);
  const r = await send(`${base}/typed`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: Buffer.alloc(2_000_000) });
  assert.equal(r.status, 400);
  assert.equal(r.headers['connection'], 'close');
});

test('a streamed reply sends its bytes with Content-Length, nothing for HEAD, and 304 for its ETag', async () => {
  const r = await send(`${base}/file`);
  assert.equal(r.text, 'hello world');
  assert.equal(r.headers['content-length'], '11');
  assert.equal(r.headers['etag'], '"abc"');
  const head = await send(`${base}/file`, { method: 'HEAD' });
  assert.equal(head.text, '');
  assert.equal(head.headers['content-length'], '11');
  assert.equal((await send(`${base}/file`, { headers: { 'if-none-match': '"abc"' } })).status, 304);
});
