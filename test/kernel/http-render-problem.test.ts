// ServiceOptions.renderProblem: a service whose wire envelope is not RFC 9457 re-renders the
// kernel's own problem replies (404, 405, 401 signature, 413, 422...); a renderer that throws
// leaves the problem as it was; services without one are unchanged.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createService, json, problem } from '../../src/kernel/index.ts';
import type { Reply, Route } from '../../src/kernel/index.ts';
import { send } from '../helpers/http.ts';

const routes: Route[] = [
  { method: 'POST', path: '/things', auth: 'none', summary: 'Create', request: { schema: { type: 'object', required: ['a'] }, maxBytes: 16 }, handler: () => json({ ok: true }) },
  { method: 'GET', path: '/own', auth: 'none', summary: 'Own problem', handler: () => problem(409, 'Conflict', { detail: 'taken' }) },
  { method: 'GET', path: '/boom', auth: 'none', summary: 'Throws', handler: () => { throw new Error('bug'); } },
];

const wrap = (reply: Reply): Reply => ({ status: reply.status, body: { wrapped: (reply.body as { title: string }).title }, ...(reply.headers && { headers: reply.headers }) });

test('every problem the kernel or a handler answers passes through the renderer; headers stay', async (t) => {
  const service = createService({ name: 'render', version: '0', routes, renderProblem: wrap, log: silent() });
  await service.listen();
  t.after(() => service.close());
  const url = service.url();
  const cases: [Promise<import('../helpers/http.ts').TestResponse>, number, string][] = [
    [send(`${url}/missing`), 404, 'Not found'],
    [send(`${url}/things`), 405, 'Method not allowed'],
    [send(`${url}/things`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"b":1}' }), 422, 'Request body is invalid'],
    [send(`${url}/things`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":"0123456789abcdef"}' }), 413, 'Request body too large'],
    [send(`${url}/own`), 409, 'Conflict'],
    [send(`${url}/boom`), 500, 'Internal server error'],
  ];
  for (const [pending, status, title] of cases) {
    const response = await pending;
    assert.equal(response.status, status);
    assert.deepEqual(response.json(), { wrapped: title });
  }
  assert.equal((await send(`${url}/things`)).headers['allow'], 'POST');
});

test('a renderer that throws leaves the problem as it was; no renderer, no change', async (t) => {
  const throwing = createService({ name: 'render', version: '0', routes, renderProblem: () => { throw new Error('renderer bug'); }, log: silent() });
  const plain = createService({ name: 'render', version: '0', routes, log: silent() });
  await throwing.listen();
  await plain.listen();
  t.after(() => Promise.all([throwing.close(), plain.close()]));
  for (const service of [throwing, plain]) {
    const response = await send(`${service.url()}/missing`);
    assert.equal(response.status, 404);
    assert.equal(response.headers['content-type'], 'application/problem+json');
  }
});

function silent() {
  const log = { debug() {}, info() {}, warn() {}, error() {}, child: () => log, addSecrets() {} };
  return log as unknown as import('../../src/kernel/index.ts').Logger;
}
