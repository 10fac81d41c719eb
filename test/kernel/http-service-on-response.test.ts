// createService({ onResponse }): called once per answer, whoever gave it: a handler, the kernel's
// own 401, 404, 405 and 415, a thrown error's 500, and node:http's 400 for a request that does
// not parse. Metrics that must see every answer (agent-context) hang on it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { createLogger } from '../../src/kernel/log.ts';
import { createService, json } from '../../src/kernel/index.ts';
import type { AnswerInfo, Route } from '../../src/kernel/index.ts';
import { send } from '../helpers/http.ts';
import { until } from '../helpers/until.ts';

const routes: Route[] = [
  { method: 'GET', path: '/items/:id', auth: 'none', summary: 'item', handler: (c) => json({ id: c.params['id'] }) },
  { method: 'POST', path: '/items', auth: 'none', summary: 'create', request: { maxBytes: 64 }, handler: () => json({}, { status: 201 }) },
  { method: 'GET', path: '/private', auth: 'operator', summary: 'operator only', handler: () => json({}) },
  { method: 'GET', path: '/boom', auth: 'none', summary: 'throws', handler: () => { throw new Error('boom'); } },
];

test('createService() onResponse sees every answer with its method, path (no query) and status', async () => {
  const answers: AnswerInfo[] = [];
  const service = createService({
    name: 'test',
    version: '1',
    routes,
    authenticators: { operator: () => ({ ok: false, reply: { status: 401, body: { title: 'no' } } }) },
    log: createLogger({ name: 'test', service: 'test', write: () => undefined }),
    accessLog: false,
    onResponse: (answer) => void answers.push(answer),
  });
  await service.listen();
  try {
    const base = service.url();
    const asked: [string, string, Record<string, string>, string | undefined, number][] = [
      ['GET', '/items/7?x=1', {}, undefined, 200],
      ['GET', '/private', {}, undefined, 401],
      ['GET', '/nowhere', {}, undefined, 404],
      ['DELETE', '/items/7', {}, undefined, 405],
      ['POST', '/items', { 'content-type': 'text/plain' }, 'x', 415],
      ['GET', '/boom', {}, undefined, 500],
    ];
    for (const [method, path, headers, body, status] of asked) {
      assert.equal((await send(`${base}${path}`, { method, headers, ...(body !== undefined && { body }) })).status, status, path);
    }
    const port = Number(new URL(base).port);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.end('BROKEN\r\n\r\n'));
      socket.on('data', () => undefined).on('end', resolve).on('error', reject);
    });
    await until(() => answers.length === asked.length + 1);
    assert.deepEqual(answers.slice(0, asked.length).map((a) => [a.method, a.path, a.status]), asked.map(([method, path, , , status]) => [method, path.split('?')[0], status]));
    assert.deepEqual(answers.at(-1), { listener: 'main', method: '', path: '', status: 400 });
  } finally {
    await service.close();
  }
});
