import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { request as httpRequest } from 'node:http';
import { createLogger } from '../../src/kernel/log.ts';
import { createService, json, problem, health, PROBLEM_TYPE } from '../../src/kernel/index.ts';
import type { Route, Service } from '../../src/kernel/index.ts';
import { send, sendJson } from '../helpers/http.ts';
import { findDuplicateKey } from '../../src/kernel/http/body.ts';

const logLines: string[] = [];
const log = createLogger({ name: 'test', service: 'test', write: (l) => void logLines.push(l), secrets: ['op-token-secret'] });
const records = () => logLines.map((l) => JSON.parse(l) as Record<string, unknown>);

// A stand-in compiler for the 422 path: it requires an object with a string "name".
const compileSchema = () => (value: unknown) => {
  const ok = typeof value === 'object' && value !== null && typeof (value as { name?: unknown }).name === 'string';
  return { valid: ok, errors: ok ? [] : [{ instancePath: '/name', message: 'Value at "/name" must be a string' }] };
};

let releaseSlow: () => void = () => {};
const slowGate = new Promise<void>((resolve) => { releaseSlow = resolve; });

const routes: Route[] = [
  { method: 'GET', path: '/health', auth: 'none', summary: 'health', handler: () => health({ version: '1.0.0', checks: { db: [{ status: 'pass' }] } }) },
  { method: 'GET', path: '/items/:id', auth: 'none', summary: 'item', handler: (c) => json({ id: c.params['id'], q: c.query.get('q') }) },
  { method: 'GET', path: '/whoami', auth: 'none', summary: 'peer', handler: (c) => json({ remote: c.remoteAddress }) },
  { method: 'POST', path: '/items', auth: 'none', summary: 'create', request: { schema: { type: 'object' }, maxBytes: 1024 }, handler: (c) => json({ got: c.body }, { status: 201 }) },
  { method: 'POST', path: '/optional', auth: 'none', summary: 'optional body', request: { optional: true }, handler: (c) => json({ body: c.body ?? null }) },
  { method: 'GET', path: '/boom', auth: 'none', summary: 'throws', handler: () => { throw new Error('secret detail op-token-secret'); } },
  { method: 'GET', path: '/unavailable', auth: 'none', summary: '503', handler: () => problem(503, 'Not ready') },
  { method: 'GET', path: '/throws-bigint', auth: 'none', summary: 'throws a non-Error', handler: () => { throw { weird: 10n }; } },
  { method: 'GET', path: '/unsendable', auth: 'none', summary: 'a 503 that cannot be serialized', handler: () => ({ status: 503, body: { n: 1n } }) },
  { method: 'GET', path: '/slow', auth: 'none', summary: 'slow', handler: async () => { await slowGate; return json({ done: true }); } },
  { method: 'GET', path: '/private', auth: 'operator', summary: 'operator only', handler: (c) => json({ principal: c.principal }) },
  { method: 'GET', path: '/guarded/known', listener: 'worker', auth: 'none', summary: 'worker route', handler: () => json({ ok: true }) },
];

let service: Service;
let base: string;
let worker: string;

before(async () => {
  service = createService({
    name: 'test',
    version: '1.0.0',
    routes,
    compileSchema,
    log,
    listeners: { main: { port: 0 }, worker: { port: 0, authenticate: 'operator' } },
    authenticators: {
      operator: (c) => c.headers['authorization'] === 'Bearer op-token-secret'
        ? { ok: true, principal: 'operator' }
        : { ok: false, reply: problem(401, 'Unauthorized', { detail: 'Send Authorization: Bearer <operator token>' }) },
    },
    timeouts: { headersMs: 300, requestMs: 2000, checkIntervalMs: 50, drainMs: 3000 },
  });
  const lines = await service.listen();
  assert.deepEqual(lines.map((l) => [l.msg, l.service, l.listener]), [['listening', 'test', 'main'], ['listening', 'test', 'worker']]);
  assert.match(lines[0]!.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  base = service.url();
  worker = service.url('worker');
});

after(async () => {
  releaseSlow();
  await service.close();
});

test('service answers an unknown path with a 404 problem+json', async () => {
  const res = await send(`${base}/nope?x=1`);
  assert.equal(res.status, 404);
  assert.equal(res.headers['content-type'], PROBLEM_TYPE);
  assert.deepEqual(res.json(), { type: 'urn:airlock:problem:not-found', title: 'Not found', status: 404, detail: 'No route for "/nope"' });
});

test('service answers a known path with another method with 405 and Allow', async () => {
  const res = await send(`${base}/health`, { method: 'DELETE' });
  assert.equal(res.status, 405);
  assert.equal(res.headers['allow'], 'GET, HEAD');
  assert.equal((res.json() as { status: number }).status, 405);
});

test('service passes params and query, and HEAD sends headers without a body', async () => {
  const res = await send(`${base}/items/a%2Fb?q=z`);
  assert.deepEqual(res.json(), { id: 'a/b', q: 'z' });
  const head = await send(`${base}/items/a%2Fb?q=z`, { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.text, '');
  assert.equal(head.headers['etag'], res.headers['etag']);
  assert.equal(head.headers['content-length'], res.headers['content-length']);
});

test('service tells handlers the peer address from the socket, not from headers', async () => {
  const res = await send(`${base}/whoami`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
  assert.deepEqual(res.json(), { remote: '127.0.0.1' });
});

test('service sends a strong ETag and answers If-None-Match with 304', async () => {
  const first = await send(`${base}/health`);
  assert.equal(first.headers['content-type'], 'application/health+json');
  const etag = first.headers['etag'];
  assert.match(String(etag), /^"[A-Za-z0-9_-]{43}"$/);
  const again = await send(`${base}/health`, { headers: { 'if-none-match': `"other", ${etag}` } });
  assert.equal(again.status, 304);
  assert.equal(again.text, '');
  assert.equal(again.headers['etag'], etag);
  const changed = await send(`${base}/health`, { headers: { 'if-none-match': '"stale"' } });
  assert.equal(changed.status, 200);
});

test('service echoes a well-formed X-Request-Id and replaces a hostile one', async () => {
  assert.equal((await send(`${base}/health`, { headers: { 'x-request-id': 'abc-123' } })).headers['x-request-id'], 'abc-123');
  const generated = (await send(`${base}/health`, { headers: { 'x-request-id': 'bad id\t<script>' } })).headers['x-request-id'];
  assert.match(String(generated), /^[0-9a-f-]{36}$/);
});

test('service parses and checks a JSON body: 201, 400 malformed, 400 deep, 415, 422', async () => {
  const ok = await sendJson(`${base}/items`, { name: 'x' });
  assert.equal(ok.status, 201);
  assert.deepEqual(ok.json(), { got: { name: 'x' } });

  const malformed = await send(`${base}/items`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name": "x",}' });
  assert.equal(malformed.status, 400);
  assert.match((malformed.json() as { detail: string }).detail, /^Request body is not valid JSON: .*position 13/);

  const deep = await send(`${base}/items`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `${'['.repeat(65)}${']'.repeat(65)}` });
  assert.equal(deep.status, 400);
  assert.match((deep.json() as { detail: string }).detail, /deeper than 64 levels at byte 64/);
  const deepInString = await sendJson(`${base}/items`, { name: '['.repeat(200) });
  assert.equal(deepInString.status, 201);

  const wrongType = await send(`${base}/items`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
  assert.equal(wrongType.status, 415);
  assert.match((wrongType.json() as { detail: string }).detail, /Content-Type "text\/plain": send application\/json/);
  const noType = await send(`${base}/items`, { method: 'POST', body: '{}' });
  assert.equal(noType.status, 415);

  const invalid = await sendJson(`${base}/items`, { name: 5 });
  assert.equal(invalid.status, 422);
  assert.deepEqual((invalid.json() as { errors: unknown }).errors, [{ pointer: '/name', detail: 'Value at "/name" must be a string' }]);

  const empty = await send(`${base}/items`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '' });
  assert.equal(empty.status, 400);
  const notUtf8 = await send(`${base}/items`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.from([0x22, 0xff, 0x22]) });
  assert.equal(notUtf8.status, 400);
});

test('service allows an empty body on an optional-body route', async () => {
  assert.deepEqual((await send(`${base}/optional`, { method: 'POST' })).json(), { body: null });
  assert.deepEqual((await sendJson(`${base}/optional`, { a: 1 })).json(), { body: { a: 1 } });
});

test('service refuses a body over its limit with 413 while streaming, and hangs up', async () => {
  const byLength = await send(`${base}/items`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': 5000 }, body: 'x'.repeat(5000) });
  assert.equal(byLength.status, 413);

  // Chunked: no Content-Length, so only counting while streaming can catch it.
  const result = await new Promise<{ status: number; closed: boolean; sentBytes: number }>((resolve, reject) => {
    let sentBytes = 0;
    let status = 0;
    const req = httpRequest(`${base}/items`, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, agent: false });
    const timer = setInterval(() => {
      if (req.destroyed || status !== 0) return;
      req.write('x'.repeat(256));
      sentBytes += 256;
      if (sentBytes > 64 * 1024) { clearInterval(timer); reject(new Error('server kept reading past the limit')); }
    }, 5);
    req.on('response', (res) => {
      status = res.statusCode ?? 0;
      clearInterval(timer);
      res.resume();
      res.on('end', () => {
        req.socket?.once('close', () => resolve({ status, closed: true, sentBytes }));
        if (req.socket?.destroyed) resolve({ status, closed: true, sentBytes });
      });
    });
    req.on('error', (error) => { clearInterval(timer); if (status) resolve({ status, closed: true, sentBytes }); else reject(error); });
  });
  assert.equal(result.status, 413);
  assert.ok(result.closed);
  assert.ok(result.sentBytes < 64 * 1024);
});

test('service turns a thrown error into a bare 500 and exactly one uvicorn.error record', async () => {
  logLines.length = 0;
  const res = await send(`${base}/boom?token=op-token-secret&x=1`, { headers: { authorization: 'Bearer op-token-secret', cookie: 'c=1' } });
  assert.equal(res.status, 500);
  assert.ok(!res.text.includes('secret detail'));
  assert.ok(!res.text.includes('at '), 'no stack trace');
  const rule = records().filter((r) => r['logger'] === 'uvicorn.error');
  assert.equal(rule.length, 1);
  const { time, ...rest } = rule[0]!;
  assert.ok(typeof time === 'string');
  assert.deepEqual(rest, { level: 'error', logger: 'uvicorn.error', service: 'test', msg: 'request returned server error', method: 'GET', path: '/boom', status: 500 });
  assert.ok(!logLines.join('').includes('op-token-secret'), 'the secret never reaches a log');
});

test('service logs a returned 503 once on uvicorn.error as well', async () => {
  logLines.length = 0;
  const res = await send(`${base}/unavailable?q=1`);
  assert.equal(res.status, 503);
  const rule = records().filter((r) => r['logger'] === 'uvicorn.error');
  assert.equal(rule.length, 1);
  assert.equal(rule[0]!['path'], '/unavailable');
  assert.equal(rule[0]!['status'], 503);
});

test('service runs route authenticators after routing and listener authenticators before it', async () => {
  assert.equal((await send(`${base}/private`)).status, 401);
  assert.deepEqual((await send(`${base}/private`, { headers: { authorization: 'Bearer op-token-secret' } })).json(), { principal: 'operator' });
  // On the worker listener, a fake path and a real one look the same without credentials.
  assert.equal((await send(`${worker}/guarded/known`)).status, 401);
  assert.equal((await send(`${worker}/guarded/fake`)).status, 401);
  const authorized = { authorization: 'Bearer op-token-secret' };
  assert.equal((await send(`${worker}/guarded/known`, { headers: authorized })).status, 200);
  assert.equal((await send(`${worker}/guarded/fake`, { headers: authorized })).status, 404);
  assert.equal((await send(`${base}/guarded/known`)).status, 404, 'worker routes are not on the main listener');
});

test('service cuts a client that is too slow to send its headers', async () => {
  const url = new URL(base);
  const outcome = await new Promise<{ elapsed: number; text: string }>((resolve) => {
    const started = Date.now();
    let text = '';
    const socket = connect(Number(url.port), url.hostname, () => socket.write('GET /health HTTP/1.1\r\nHost: x\r\n'));
    socket.on('data', (d) => (text += d.toString()));
    socket.on('close', () => resolve({ elapsed: Date.now() - started, text }));
    socket.on('error', () => {});
    setTimeout(() => socket.destroy(), 5000).unref();
  });
  assert.ok(outcome.elapsed < 2000, `closed after ${outcome.elapsed} ms`);
  assert.match(outcome.text, /^HTTP\/1\.1 408/);
});

test('service refuses to construct with an unknown authenticator or listener', () => {
  const handler = () => json({});
  assert.throws(() => createService({ name: 'x', version: '0', routes: [{ method: 'GET', path: '/a', auth: 'nobody', summary: '', handler }] }), /names authenticator "nobody"/);
  assert.throws(() => createService({ name: 'x', version: '0', routes: [{ method: 'GET', path: '/a', listener: 'elsewhere', auth: 'none', summary: '', handler }] }), /names listener "elsewhere"/);
  assert.throws(() => createService({ name: 'x', version: '0', routes: [{ method: 'POST', path: '/a', auth: 'none', summary: '', request: { schema: { $ref: '#/$defs/missing' } }, handler }] }), /Invalid schema at "\/\$ref"/);
});

test('service close() finishes an in-flight request before it resolves', async () => {
  let closedDb = false;
  const local = createService({
    name: 'drain', version: '0', compileSchema, log, timeouts: { drainMs: 5000 },
    routes: routes.filter((r) => r.auth === 'none' && r.listener === undefined),
    onClose: () => { closedDb = true; },
  });
  const [line] = await local.listen();
  const pending = send(`${line!.url}/slow`);
  await new Promise((r) => setTimeout(r, 100));
  const closing = local.close();
  let closed = false;
  void closing.then(() => (closed = true));
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(closed, false, 'close waits for the in-flight request');
  assert.equal(closedDb, false, 'onClose waits for the drain');
  await assert.rejects(send(`${line!.url}/health`), /ECONNREFUSED/);
  releaseSlow();
  const res = await pending;
  assert.equal(res.status, 200);
  assert.deepEqual(res.json(), { done: true });
  assert.equal(res.headers['connection'], 'close');
  await closing;
  assert.ok(closedDb, 'onClose ran after the drain');
});

test('service checks a request body with the kernel validator by default: 422 with pointers and messages', async () => {
  const local = createService({
    name: 'schema', version: '0', log,
    routes: [{
      method: 'POST', path: '/orders', auth: 'none', summary: 'create',
      request: { schema: { type: 'object', required: ['qty'], additionalProperties: false, properties: { qty: { type: 'integer', minimum: 1 } } } },
      handler: (c) => json(c.body, { status: 201 }),
    }],
  });
  const [line] = await local.listen();
  try {
    assert.equal((await sendJson(`${line!.url}/orders`, { qty: 2 })).status, 201);
    const bad = await sendJson(`${line!.url}/orders`, { qty: 0, extra: true });
    assert.equal(bad.status, 422);
    const errors = (bad.json() as { errors: { pointer: string; detail: string }[] }).errors;
    assert.deepEqual(errors.map((e) => e.pointer).sort(), ['/extra', '/qty']);
    assert.ok(errors.some((e) => /"\/qty" must be at least 1/.test(e.detail)), JSON.stringify(errors));
  } finally {
    await local.close();
  }
});

test('service refuses a lone surrogate escape in a JSON body with 400 naming where', async () => {
  const res = await send(`${base}/items`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"ok","tags":["\\ud800"]}' });
  assert.equal(res.status, 400);
  assert.match((res.json() as { detail: string }).detail, /lone surrogate escape at "\/tags\/0"/);
  const paired = await sendJson(`${base}/items`, { name: '\ud83d\ude00' });
  assert.equal(paired.status, 201, 'a proper surrogate pair is fine');
});

test('service survives a handler that throws a value the logger cannot serialize', async () => {
  logLines.length = 0;
  const res = await send(`${base}/throws-bigint`);
  assert.equal(res.status, 500);
  assert.equal(records().filter((r) => r['logger'] === 'uvicorn.error').length, 1);
  assert.equal((await send(`${base}/health`)).status, 200, 'still serving');
});

test('service logs one uvicorn.error record with the status actually sent when a 5xx reply cannot be sent', async () => {
  logLines.length = 0;
  const res = await send(`${base}/unsendable`);
  assert.equal(res.status, 500);
  const rule = records().filter((r) => r['logger'] === 'uvicorn.error');
  assert.equal(rule.length, 1);
  assert.equal(rule[0]!['status'], 500);
});

test('service logs no server error when a client leaves in the middle of its body', async () => {
  logLines.length = 0;
  const url = new URL(base);
  await new Promise<void>((resolve) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write('POST /items HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":');
      setTimeout(() => socket.destroy(), 50);
    });
    socket.on('close', () => resolve());
    socket.on('error', () => {});
  });
  await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(records().filter((r) => r['level'] === 'error'), []);
});

test('service refuses a JSON body that repeats a member name (I-JSON) with 400 naming where', async () => {
  const res = await send(`${base}/items`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"a","list":[{"k":1,"k":2}]}' });
  assert.equal(res.status, 400);
  assert.match((res.json() as { detail: string }).detail, /repeats the member name at "\/list\/0\/k"/);
  const inString = await sendJson(`${base}/items`, { name: '{"k":1,"k":2}' });
  assert.equal(inString.status, 201, 'names inside a string value are just text');
});

test('service answers a 20 KB header with 431 and a problem body, and keeps serving', async () => {
  const url = new URL(base);
  const text = await new Promise<string>((resolve) => {
    let received = '';
    const socket = connect(Number(url.port), url.hostname, () => socket.write(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`));
    socket.on('data', (d) => (received += d.toString()));
    socket.on('close', () => resolve(received));
    socket.on('error', () => {});
  });
  assert.match(text, /^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
  assert.match(text, /\r\ncontent-type: application\/problem\+json\r\n/);
  const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
  assert.deepEqual([body['status'], body['title'], body['type']], [431, 'Request header fields too large', 'urn:airlock:problem:request-header-fields-too-large']);
  assert.equal((await send(`${base}/health`)).status, 200);
});

/** Sends raw request bytes, in the pieces given (a pause between them), and returns the whole answer. */
function rawExchange(pieces: string[]): Promise<string> {
  const url = new URL(base);
  return new Promise<string>((resolve) => {
    let received = '';
    const socket = connect(Number(url.port), url.hostname, async () => {
      for (const piece of pieces) {
        socket.write(piece);
        await new Promise((r) => setTimeout(r, 20));
      }
    });
    socket.on('data', (d) => (received += d.toString()));
    socket.on('close', () => resolve(received));
    socket.on('error', () => {});
  });
}

// [case, request pieces, status]: the request line and the headers have their own limits and their own status (RFC 9110).
const HEAD_LIMITS: [string, string[], number][] = [
  ['a 20 KB URL', [`GET /health?q=${'a'.repeat(20 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`], 414],
  ['a 20 KB URL sent in pieces', (() => { const line = `GET /health?q=${'a'.repeat(20 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`; return [line.slice(0, 50), line.slice(50, 9000), line.slice(9000)]; })(), 414],
  ['a 100 KB URL (over the whole head limit)', [`GET /health?q=${'a'.repeat(100 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`], 414],
  ['a 100 KB header', [`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(100 * 1024)}\r\n\r\n`], 431],
  ['twenty 1 KB headers', [`GET /health HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 20 }, (_, i) => `X-H${i}: ${'a'.repeat(1024)}\r\n`).join('')}\r\n`], 431],
];

for (const [name, pieces, status] of HEAD_LIMITS) {
  test(`service answers ${name} with ${status} and a problem body, and keeps serving`, async () => {
    const text = await rawExchange(pieces);
    assert.match(text, new RegExp(`^HTTP/1\\.1 ${status} `), text.slice(0, 200));
    const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
    assert.equal(body['status'], status);
    assert.equal((await send(`${base}/health`)).status, 200);
  });
}

test('service takes an 8 KB URL and 15 KB of headers: the limits are not lower than they say', async () => {
  const text = await rawExchange([`GET /health?q=${'a'.repeat(8 * 1024 - 20)} HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(15 * 1024)}\r\nConnection: close\r\n\r\n`]);
  assert.match(text, /^HTTP\/1\.1 200 /);
});

test('service writes one access-log line per request: method, path without query, status, duration, request id', async () => {
  logLines.length = 0;
  const res = await send(`${base}/items/7?q=private-query-value`, { headers: { 'x-request-id': 'req-access-1' } });
  assert.equal(res.status, 200);
  await new Promise((resolve) => setTimeout(resolve, 50));
  const access = records().filter((r) => r['logger'] === 'test.access');
  assert.equal(access.length, 1);
  const { time, duration_ms: duration, ...rest } = access[0]!;
  assert.equal(typeof time, 'string');
  assert.ok(typeof duration === 'number' && duration >= 0);
  assert.deepEqual(rest, { level: 'info', logger: 'test.access', service: 'test', msg: 'request', method: 'GET', path: '/items/7', status: 200, request_id: 'req-access-1' });
  assert.ok(!logLines.join('').includes('private-query-value'), 'the query is never logged');
  await send(`${base}/nowhere`);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual(records().filter((r) => r['logger'] === 'test.access').map((r) => [r['path'], r['status']]), [['/items/7', 200], ['/nowhere', 404]]);
});

test('service writes no access log with AIRLOCK_ACCESS_LOG=0', async (t) => {
  const lines: string[] = [];
  const quiet = createService({
    name: 'quiet', version: '0', env: { AIRLOCK_ACCESS_LOG: '0' },
    log: createLogger({ name: 'quiet', write: (l) => void lines.push(l) }),
    routes: [{ method: 'GET', path: '/a', auth: 'none', summary: 'a', handler: () => json({}) }],
  });
  await quiet.listen();
  t.after(() => quiet.close());
  assert.equal((await send(`${quiet.url()}/a`)).status, 200);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual(lines, []);
});

test('findDuplicateKey() names the repeated member by its JSON Pointer, escapes included, and finds none where names differ', () => {
  const cases: [string, string | undefined][] = [
    ['{"a/b":{"x~":[0,{"k":1,"\\u006b":2}]}}', '/a~1b/x~0/1/k'],
    ['{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}', undefined],
    ['[{"q\\"":1},{"q\\"":1,"q\\"":2}]', '/1/q"'],
    ['{"k":1,"k":2}', '/k'],
  ];
  for (const [text, pointer] of cases) assert.equal(findDuplicateKey(text), pointer, text);
});
