// The multipart fields Alfresco's createNode takes besides the file that its own clients send on
// every upload (ADF's upload service asks for renditions=doclib): `renditions` makes those
// renditions of the new version, `versioningEnabled=true` is accepted (every file is versioned).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { API, login, multipart, startContent } from './_service.ts';
import type { Browser, Harness } from './_service.ts';

let h: Harness;
let browser: Browser;
type Json = Record<string, any>;

before(async () => {
  h = await startContent();
  ({ browser } = await login(h));
});
after(() => h.close());

async function upload(fields: [string, string][], name: string) {
  const m = multipart([['name', name], ...fields], { name, content: `content of ${name}` });
  const r = await browser.request(`${h.base}${API}/nodes/-root-/children`, { method: 'POST', headers: { 'content-type': m.contentType }, body: m.body });
  return { status: r.status, body: r.json() as Json };
}

test('renditions=doclib on upload makes the doclib rendition of version 1.0', async () => {
  const r = await upload([['renditions', 'doclib'], ['versioningEnabled', 'true']], 'adf.txt');
  assert.equal(r.status, 201);
  const list = await browser.request(`${h.base}${API}/nodes/${r.body['entry'].id}/renditions`);
  const status = Object.fromEntries((list.json() as Json)['list'].entries.map((e: Json) => [e.entry.id, e.entry.status]));
  assert.deepEqual(status, { text: 'NOT_CREATED', doclib: 'CREATED' });
  const content = await browser.request(`${h.base}${API}/nodes/${r.body['entry'].id}/renditions/doclib/content`);
  assert.equal(content.status, 200);
});

test('an unknown rendition or versioningEnabled=false is a 400 and stores nothing', async () => {
  for (const [fields, name] of [[[['renditions', 'pdf']], 'a.txt'], [[['renditions', 'doclib,,']], 'b.txt'], [[['versioningEnabled', 'false']], 'c.txt'], [[['versioningEnabled', 'yes']], 'd.txt']] as const) {
    const r = await upload(fields.map(([k, v]) => [k, v]), name);
    assert.equal(r.status, 400, JSON.stringify(fields));
    const found = await browser.request(`${h.base}${API}/nodes/-root-/children?relativePath=${name}`);
    assert.equal(found.status, 404, `${name} was stored`);
  }
});
