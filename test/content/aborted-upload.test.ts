// A client that drops an upload mid-body: the request is logged as aborted by the client (no
// 500, no stack, no uvicorn.error record), its partial blob is removed and no node is made.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { API, startContent } from './_service.ts';
import type { Harness } from './_service.ts';

let h: Harness;
before(async () => {
  h = await startContent();
});
after(() => h.close());

/** Sends the head and part of a body, then drops the connection. */
function dropMidBody(head: string, partialBody: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(h.base).port), '127.0.0.1', () => {
      socket.write(head + partialBody);
      setTimeout(() => {
        socket.destroy();
        resolve();
      }, 150);
    });
    socket.on('error', reject);
  });
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 20));
}

test('an upload dropped mid-body is logged as aborted, never as a server error, and leaves nothing behind', async () => {
  const token = h.op.accessToken();
  const multipartBody = `--b\r\nContent-Disposition: form-data; name="filedata"; filename="half.txt"\r\nContent-Type: text/plain\r\n\r\n${'x'.repeat(200_000)}`;
  await dropMidBody(`POST ${API}/nodes/-my-/children HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 10000000\r\n\r\n`, multipartBody);
  const home = await fetch(`${h.base}${API}/nodes/-my-/children`, { headers: { authorization: `Bearer ${token}` } });
  const entries = ((await home.json()) as { list: { entries: unknown[] } }).list.entries;
  assert.equal(entries.length, 0, 'no node was made');
  const form = new FormData();
  form.set('filedata', new File(['whole'], 'whole.txt', { type: 'text/plain' }));
  const file = await fetch(`${h.base}${API}/nodes/-my-/children`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const id = ((await file.json()) as { entry: { id: string } }).entry.id;
  await dropMidBody(`PUT ${API}/nodes/${id}/content HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: text/plain\r\nContent-Length: 10000000\r\n\r\n`, 'y'.repeat(200_000));
  await until(() => h.logs.filter((l) => l['msg'] === 'request aborted by the client').length >= 2);
  const aborted = h.logs.filter((l) => l['msg'] === 'request aborted by the client');
  assert.deepEqual(aborted.map((l) => l['path']), [`${API}/nodes/-my-/children`, `${API}/nodes/${id}/content`]);
  assert.match(String(aborted[0]!['requestId']), /^[0-9a-f-]{36}$/);
  assert.deepEqual(h.logs.filter((l) => l['logger'] === 'uvicorn.error' || l['level'] === 'error'), []);
  assert.deepEqual(readdirSync(join(h.dataDir, 'content-blobs', 'tmp')), [], 'the partial blob is removed');
});

test('a folder-creating JSON body dropped mid-body is logged as aborted too, not as a handler failure', async () => {
  const token = h.op.accessToken();
  const before = h.logs.filter((l) => l['msg'] === 'request aborted by the client').length;
  await dropMidBody(`POST ${API}/nodes/-my-/children HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n`, '{"name":"half","nodeType":"cm:fol');
  await until(() => h.logs.filter((l) => l['msg'] === 'request aborted by the client').length > before);
  const aborted = h.logs.filter((l) => l['msg'] === 'request aborted by the client');
  assert.equal(aborted.length, before + 1);
  assert.equal(aborted.at(-1)!['path'], `${API}/nodes/-my-/children`);
  assert.deepEqual(h.logs.filter((l) => l['logger'] === 'uvicorn.error' || l['level'] === 'error'), []);
});
