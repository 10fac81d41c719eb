// RFC 9110 11.6.1 (issue 29): every 401 carries WWW-Authenticate. The kernel adds the route's
// authenticator's challenge where a reply names none, keeps one a service gave, and names the
// signature scheme on a refused signature.

import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger, createService, json, problem } from '../../src/kernel/index.ts';
import type { Route, Service } from '../../src/kernel/index.ts';
import { send } from '../helpers/http.ts';

const refuse = () => ({ ok: false as const, reply: problem(401, 'Unauthorized') });
const routes: Route[] = [
  { method: 'GET', path: '/bearer', auth: 'plain', summary: 'default challenge', handler: () => json({}) },
  { method: 'GET', path: '/header', auth: 'header', summary: 'configured challenge', handler: () => json({}) },
  { method: 'GET', path: '/own', auth: 'own', summary: 'own challenge', handler: () => json({}) },
  { method: 'GET', path: '/handler', auth: 'none', summary: 'a handler\'s 401', handler: () => problem(401, 'Unauthorized') },
  { method: 'GET', path: '/forbidden', auth: 'none', summary: 'a 403', handler: () => problem(403, 'Forbidden') },
  { method: 'POST', path: '/signed', auth: 'none', summary: 'signed', request: { raw: true }, signature: { scheme: 'house', secrets: () => ['s3cret-value-long-enough'] }, handler: () => json({}) },
  { method: 'GET', path: '/worker', listener: 'worker', auth: 'none', summary: 'behind the listener\'s authenticator', handler: () => json({}) },
];
let service: Service;

before(async () => {
  service = createService({
    name: 'svc',
    version: '1',
    routes,
    log: createLogger({ write: () => {} }),
    listeners: { main: { port: 0 }, worker: { port: 0, authenticate: 'plain' } },
    authenticators: { plain: refuse, header: refuse, own: () => ({ ok: false, reply: problem(401, 'Unauthorized', { headers: { 'WWW-Authenticate': 'Token realm="own"' } }) }) },
    challenges: { header: 'X-Operator-Token realm="svc"' },
  });
  await service.listen();
});
after(() => service.close());

test('a 401 without a challenge gets its authenticator\'s (Bearer by default, or the configured one); a given one is kept', async () => {
  const table: [string, string, string | undefined][] = [
    ['main', '/bearer', 'Bearer realm="svc"'],
    ['main', '/header', 'X-Operator-Token realm="svc"'],
    ['main', '/own', 'Token realm="own"'],
    ['main', '/handler', 'Bearer realm="svc"'],
    ['main', '/forbidden', undefined],
    ['worker', '/worker', 'Bearer realm="svc"'],
    ['worker', '/unknown', 'Bearer realm="svc"'],
  ];
  for (const [listener, path, expected] of table) {
    const answer = await send(`${service.url(listener)}${path}`);
    assert.equal(answer.headers['www-authenticate'], expected, path);
  }
});

test('a refused signature\'s 401 names the signature scheme', async () => {
  const answer = await send(`${service.url()}/signed`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  assert.equal(answer.status, 401);
  assert.equal(answer.headers['www-authenticate'], 'Signature realm="svc", scheme="house"');
});
