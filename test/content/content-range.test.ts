// Range requests on content, as Alfresco's getNodeContent and getVersionContent define them
// (alfresco-core.yaml: RangeHeader "Single part request supported, for example: bytes=1-10";
// 206 Partial Content; 416 Range Not Satisfiable), and the download's Content-Disposition.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { API, login, multipart, startContent } from './_service.ts';
import type { Browser, Harness } from './_service.ts';

let h: Harness;
let browser: Browser;
let nodeId: string;
const CONTENT = '0123456789abcdefghij';

before(async () => {
  h = await startContent();
  ({ browser } = await login(h));
  const m = multipart([['name', 'digits.txt']], { name: 'digits.txt', content: CONTENT });
  const r = await browser.request(`${h.base}${API}/nodes/-root-/children`, { method: 'POST', headers: { 'content-type': m.contentType }, body: m.body });
  assert.equal(r.status, 201);
  nodeId = (r.json() as { entry: { id: string } }).entry.id;
});
after(() => h.close());

const get = (path: string, headers: Record<string, string>) => browser.request(`${h.base}${API}/nodes/${nodeId}/${path}`, { headers });

test('content: a single byte range is 206 with Content-Range and exactly those bytes', async () => {
  for (const [range, bytes, contentRange] of [
    ['bytes=1-10', CONTENT.slice(1, 11), 'bytes 1-10/20'],
    ['bytes=15-', CONTENT.slice(15), 'bytes 15-19/20'],
    ['bytes=-4', CONTENT.slice(16), 'bytes 16-19/20'],
    ['bytes=18-99', CONTENT.slice(18), 'bytes 18-19/20'],
  ] as const) {
    for (const path of ['content', 'versions/1.0/content']) {
      const r = await get(path, { range });
      assert.equal(r.status, 206, `${path} ${range}`);
      assert.equal(r.text, bytes, `${path} ${range}`);
      assert.equal(r.headers['content-range'], contentRange);
      assert.equal(r.headers['content-length'], String(bytes.length));
    }
  }
});

test('content: a range past the end is 416 with "bytes */size"; whole answers advertise Accept-Ranges', async () => {
  const r = await get('content', { range: 'bytes=20-30' });
  assert.equal(r.status, 416);
  assert.equal(r.headers['content-range'], 'bytes */20');
  const whole = await get('content', {});
  assert.equal(whole.status, 200);
  assert.equal(whole.headers['accept-ranges'], 'bytes');
  assert.equal(whole.text, CONTENT);
});

test('content: malformed, multi-part or stale (If-Range) ranges get the whole content with 200', async () => {
  const cases: Record<string, string>[] = [{ range: 'bytes=5-2' }, { range: 'items=1-2' }, { range: 'bytes=0-1,4-5' }, { range: 'bytes=abc' }, { range: 'bytes=1-2', 'if-range': '"not-the-etag"' }];
  for (const headers of cases) {
    const r = await get('content', headers);
    assert.equal(r.status, 200, JSON.stringify(headers));
    assert.equal(r.text, CONTENT);
  }
});

test('Content-Disposition: filename* is an RFC 8187 ext-value (quote, parentheses and star percent-encoded)', async () => {
  const m = multipart([['name', "it's (draft)*.txt"]], { name: 'x.txt', content: 'draft' });
  const created = await browser.request(`${h.base}${API}/nodes/-root-/children`, { method: 'POST', headers: { 'content-type': m.contentType }, body: m.body });
  const id = (created.json() as { entry: { id: string } }).entry.id;
  const r = await browser.request(`${h.base}${API}/nodes/${id}/content`);
  assert.equal(r.headers['content-disposition'], "attachment; filename*=UTF-8''it%27s%20%28draft%29%2A.txt");
});
