// Every answer under /repository/ is the repository's: Alfresco's error body with logId (the
// request id) for the kernel's own refusals too (unknown route, 405, 415, 413, malformed JSON,
// 500); unknown routes answer 401 to an anonymous caller like known ones; every 401 carries
// WWW-Authenticate (RFC 6750); the API answers at @alfresco/js-api's path as well.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { send } from '../helpers/http.ts';
import type { TestResponse } from '../helpers/http.ts';
import { API, SEARCH, multipart, startContent } from './_service.ts';
import type { Harness } from './_service.ts';

let h: Harness;
before(async () => {
  h = await startContent();
});
after(() => h.close());

const JS_API = '/repository/api/-default-/public/alfresco/versions/1';

function assertAlfrescoError(r: TestResponse, status: number): Record<string, unknown> {
  assert.equal(r.status, status);
  assert.match(String(r.headers['content-type']), /^application\/json/);
  const error = (r.json() as { error: Record<string, unknown> }).error;
  assert.deepEqual(Object.keys(error).sort(), ['briefSummary', 'descriptionURL', 'errorKey', 'logId', 'stackTrace', 'statusCode']);
  assert.equal(error['statusCode'], status);
  assert.equal(error['logId'], r.headers['x-request-id'], 'logId is the request id');
  return error;
}
const bearer = () => ({ authorization: `Bearer ${h.op.accessToken()}` });

test('anonymous: unknown and known routes under /repository/ both answer 401 with WWW-Authenticate and Alfresco\'s body; the probes stay open on loopback', async () => {
  for (const path of [`${API}/nodes/-root-`, '/repository/no-such-thing', `${API}/no-such-collection`, `${JS_API}/nodes/-root-`, '/repository/api/-default-/public/authentication/versions/1/tickets/-me-']) {
    for (const method of ['GET', 'POST', 'PATCH', 'DELETE']) {
      const r = await send(`${h.base}${path}`, { method });
      const error = assertAlfrescoError(r, 401);
      assert.equal(r.headers['www-authenticate'], 'Bearer realm="content"', `${method} ${path}`);
      assert.equal(error['errorKey'], 'framework.exception.NotAuthenticated');
    }
  }
  const bad = await send(`${h.base}/repository/no-such-thing`, { headers: { authorization: 'Bearer not.a.token' } });
  assertAlfrescoError(bad, 401);
  assert.match(String(bad.headers['www-authenticate']), /^Bearer realm="content", error="invalid_token"/);
  for (const base of [API, JS_API]) assert.equal((await send(`${h.base}${base}/probes/-live-`)).status, 200);
});

test('admitted: an unknown route is 404, a wrong method 405 with Allow, a wrong body type 415, a malformed body 400, an oversized one 413, all in Alfresco\'s body', async () => {
  const unknown = await send(`${h.base}/repository/no-such-thing`, { headers: bearer() });
  assert.equal(assertAlfrescoError(unknown, 404)['errorKey'], 'framework.exception.EntityNotFound');
  const method = await send(`${h.base}${API}/nodes/-root-`, { method: 'PATCH', headers: bearer() });
  assertAlfrescoError(method, 405);
  assert.equal(method.headers['allow'], 'DELETE, GET, HEAD, PUT');
  const type = await send(`${h.base}${SEARCH}`, { method: 'POST', headers: { ...bearer(), 'content-type': 'text/plain' }, body: 'x' });
  assertAlfrescoError(type, 415);
  const malformed = await send(`${h.base}${SEARCH}`, { method: 'POST', headers: { ...bearer(), 'content-type': 'application/json' }, body: '{"query":' });
  assertAlfrescoError(malformed, 400);
  const big = await send(`${h.base}${SEARCH}`, { method: 'POST', headers: { ...bearer(), 'content-type': 'application/json' }, body: JSON.stringify({ query: { query: 'x'.repeat(70_000) } }) });
  assertAlfrescoError(big, 413);
  // Outside /repository/ the kernel's RFC 9457 body stays.
  const share = await send(`${h.base}/no-such-page`);
  assert.equal(share.status, 404);
  assert.match(String(share.headers['content-type']), /^application\/problem\+json/);
});

test('handler errors carry logId too, and the js-api path serves the same API', async () => {
  const missing = await send(`${h.base}${JS_API}/nodes/no-such-node`, { headers: bearer() });
  assertAlfrescoError(missing, 404);
  const a = await send(`${h.base}${API}/nodes/-root-`, { headers: bearer() });
  const b = await send(`${h.base}${JS_API}/nodes/-root-`, { headers: bearer() });
  assert.equal(b.status, 200);
  assert.deepEqual(b.json(), a.json());
});

test('a 500 under /repository/ is Alfresco\'s body with logId, and one uvicorn.error record without the body', async () => {
  const m = multipart([], { name: 'five-hundred.txt', content: 'x' });
  const file = await send(`${h.base}${API}/nodes/-my-/children`, { method: 'POST', headers: { ...bearer(), 'content-type': m.contentType }, body: m.body });
  assert.equal(file.status, 201);
  const id = (file.json() as { entry: { id: string } }).entry.id;
  // Break the database under the running service: the handler's query then throws.
  const sqlite = new DatabaseSync(join(h.dataDir, 'content.sqlite'));
  sqlite.exec('ALTER TABLE versions RENAME TO versions_gone');
  sqlite.close();
  try {
    const r = await send(`${h.base}${API}/nodes/${id}/versions`, { headers: bearer() });
    const error = assertAlfrescoError(r, 500);
    assert.equal(error['errorKey'], 'framework.exception.ApiDefault');
    assert.doesNotMatch(String(error['briefSummary']), /versions|sqlite|SQL/i, 'no internals in the answer');
    const records = h.logs.filter((l) => l['logger'] === 'uvicorn.error' && l['path'] === `${API}/nodes/${id}/versions`);
    assert.equal(records.length, 1);
    assert.equal(records[0]!['status'], 500);
  } finally {
    const fix = new DatabaseSync(join(h.dataDir, 'content.sqlite'));
    fix.exec('ALTER TABLE versions_gone RENAME TO versions');
    fix.close();
  }
});
