import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { createLogger } from '../../src/kernel/log.ts';
import { createService, json } from '../../src/kernel/index.ts';
import type { Service } from '../../src/kernel/index.ts';

// Reply header values are ISO-8859-1 on the wire (node:http writes the head as latin1), whatever
// the body is: a JSON or text body must not change how the head is encoded.
let service: Service;
let port: number;

before(async () => {
  service = createService({
    name: 'bytes', version: '0.0.0', listeners: { main: { port: 0 } },
    log: createLogger({ name: 'bytes', write: () => {} }),
    routes: [
      { method: 'GET', path: '/json', auth: 'none', summary: 'json', handler: () => ({ ...json({ name: 'café' }), headers: { 'x-note': 'caf\u00e9' } }) },
      { method: 'GET', path: '/text', auth: 'none', summary: 'text', handler: () => ({ status: 200, raw: 'café', headers: { 'x-note': 'caf\u00e9' } }) },
    ],
  });
  const [line] = await service.listen();
  port = Number(new URL(String(line!['url'])).port);
});
after(() => service.close());

function rawGet(method: string, path: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks))).on('error', reject);
    socket.write(`${method} ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
  });
}

for (const path of ['/json', '/text']) {
  test(`sendReply() writes a non-ASCII header value of a ${path.slice(1)} reply as latin1, as HEAD does`, async () => {
    for (const method of ['GET', 'HEAD']) {
      const wire = await rawGet(method, path);
      const head = wire.subarray(0, wire.indexOf('\r\n\r\n'));
      assert.ok(head.includes(Buffer.from('x-note: caf\xe9\r\n', 'latin1')), `${method}: ${head.toString('hex')}`);
      if (method === 'GET') assert.ok(wire.subarray(head.length + 4).toString('utf8').includes('café'));
    }
  });
}
