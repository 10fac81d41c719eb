import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { signRequest } from '../../src/kernel/auth/index.ts';
import { createLogger } from '../../src/kernel/log.ts';
import { createService, json } from '../../src/kernel/index.ts';
import type { Service } from '../../src/kernel/index.ts';
import { send } from '../helpers/http.ts';

const NOW_S = 1_800_000_000;
const SECRET = 'intake-secret-1';
const logLines: string[] = [];
const accepted: unknown[] = [];
let service: Service;
let base: string;

before(async () => {
  service = createService({
    name: 'signed',
    version: '0',
    now: () => NOW_S * 1000,
    log: createLogger({ write: (l) => void logLines.push(l), secrets: [SECRET] }),
    routes: [{
      method: 'POST', path: '/intake', auth: 'none', summary: 'signed intake',
      request: {}, signature: { scheme: 'house', secrets: () => [`old-secret,${SECRET}`] },
      handler: (c) => { accepted.push(c.body); return json({ ok: true, signature: c.signature }); },
    }],
  });
  await service.listen();
  base = service.url();
});

after(() => service.close());

function signed(body: string, options: { now?: number; secret?: string } = {}) {
  const headers = signRequest('house', { rawBody: Buffer.from(body), secret: options.secret ?? SECRET, now: options.now ?? NOW_S });
  return { ...headers, 'content-type': 'application/json' };
}

test('a signed route admits a request signed with any rotated secret', async () => {
  const body = '{"a":1}';
  const res = await send(`${base}/intake`, { method: 'POST', headers: signed(body), body });
  assert.equal(res.status, 200);
  assert.deepEqual(res.json(), { ok: true, signature: { timestamp: NOW_S } });
  const old = await send(`${base}/intake`, { method: 'POST', headers: signed(body, { secret: 'old-secret' }), body });
  assert.equal(old.status, 200);
});

test('a signed route refuses tampered, stale, unsigned and wrongly keyed requests with one fixed 401', async () => {
  accepted.length = 0;
  logLines.length = 0;
  const body = '{"a":1}';
  const cases: [string, Record<string, string>, string, string][] = [
    ['tampered body', signed(body), '{"a":2}', 'no_matching_signature'],
    ['301 s old', signed(body, { now: NOW_S - 301 }), body, 'timestamp_out_of_tolerance'],
    ['wrong secret', signed(body, { secret: 'another-secret' }), body, 'no_matching_signature'],
    ['unsigned', { 'content-type': 'application/json' }, body, 'missing_signature'],
  ];
  for (const [name, headers, sent, reason] of cases) {
    const res = await send(`${base}/intake`, { method: 'POST', headers, body: sent });
    assert.equal(res.status, 401, name);
    assert.equal((res.json() as { detail: string }).detail, 'The request signature could not be verified', name);
    const last = JSON.parse(logLines.filter((l) => !l.includes('"logger":"signed.access"')).at(-1)!) as { msg: string; reason: string };
    assert.equal(last.msg, 'signature refused', name);
    assert.equal(last.reason, reason, name);
  }
  assert.deepEqual(accepted, [], 'no refused request reached the handler');
  assert.ok(!logLines.join('').includes(SECRET));
});

test('a signed route checks the signature before parsing: a malformed signed body is 400, unsigned garbage is 401', async () => {
  const garbage = '{"a":';
  assert.equal((await send(`${base}/intake`, { method: 'POST', headers: signed(garbage), body: garbage })).status, 400);
  assert.equal((await send(`${base}/intake`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: garbage })).status, 401);
});

test('a signed route must be POST, PUT or PATCH with a required body, or the service refuses to start', () => {
  const signature = { scheme: 'house' as const, secrets: () => [SECRET] };
  const handler = () => json({});
  assert.throws(() => createService({ name: 'x', version: '0', routes: [{ method: 'DELETE', path: '/a', auth: 'none', summary: '', request: {}, signature, handler }] }), /must be POST, PUT or PATCH with a required request body/);
  assert.throws(() => createService({ name: 'x', version: '0', routes: [{ method: 'POST', path: '/a', auth: 'none', summary: '', request: { optional: true }, signature, handler }] }), /with a required request body/);
  assert.throws(() => createService({ name: 'x', version: '0', routes: [{ method: 'POST', path: '/a', auth: 'none', summary: '', signature, handler }] }), /with a required request body/);
});
