// POST nodes/{id}/renditions answers 202 Accepted with an empty body, as Alfresco's
// createRendition does (alfresco-core.yaml: "202: Request accepted"; no schema).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { API, login, multipart, startContent } from './_service.ts';
import type { Browser, Harness } from './_service.ts';

let h: Harness;
let browser: Browser;

before(async () => {
  h = await startContent();
  ({ browser } = await login(h));
});
after(() => h.close());

test('a rendition request is 202 with an empty body', async () => {
  const m = multipart([['name', 'memo.txt']], { name: 'memo.txt', content: 'a memo' });
  const created = await browser.request(`${h.base}${API}/nodes/-root-/children`, { method: 'POST', headers: { 'content-type': m.contentType }, body: m.body });
  const id = (created.json() as { entry: { id: string } }).entry.id;
  const r = await browser.request(`${h.base}${API}/nodes/${id}/renditions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":"text"}' });
  assert.equal(r.status, 202);
  assert.equal(r.text, '');
  assert.equal(r.headers['content-length'], '0');
});
