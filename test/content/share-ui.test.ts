// The share UI over HTTP: escaped output (a file named like markup renders as text), the CSP
// and other page headers, CSRF on every form, upload, new version, revert, folders, search.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { login, multipart, startContent } from './_service.ts';
import type { Browser, Harness } from './_service.ts';

let h: Harness;
let browser: Browser;
let csrf: string;
before(async () => {
  h = await startContent();
  ({ browser, csrf } = await login(h));
});
after(() => h.close());

async function postMultipart(path: string, fields: [string, string][], file?: { name: string; content: string }) {
  const m = multipart(fields, file);
  return browser.request(`${h.base}${path}`, { method: 'POST', headers: { 'content-type': m.contentType }, body: m.body });
}
async function postForm(path: string, fields: Record<string, string>) {
  return browser.request(`${h.base}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
}

const EVIL = '<img src=x onerror=alert(1)>';

test('share pages carry a script-free CSP, no-store and DENY framing; every form has the CSRF token', async () => {
  const r = await browser.get(`${h.base}/share/`);
  assert.equal(r.status, 200);
  assert.match(String(r.headers['content-security-policy']), /default-src 'none'/);
  assert.doesNotMatch(String(r.headers['content-security-policy']), /script-src/);
  assert.equal(r.headers['cache-control'], 'no-store');
  assert.equal(r.headers['x-frame-options'], 'DENY');
  assert.doesNotMatch(r.text, /<script/i);
  const forms = r.text.match(/<form[^>]*method="post"[\s\S]*?<\/form>/g) ?? [];
  assert.ok(forms.length >= 3);
  for (const form of forms) assert.match(form, new RegExp(`name="_csrf" value="${csrf}"`));
});

test('a file named like markup renders as text everywhere', async () => {
  const up = await postMultipart('/share/folder/company-home/upload', [['_csrf', csrf], ['autoRename', 'true']], { name: EVIL, content: 'evil but harmless' });
  assert.equal(up.status, 303);
  const file = await browser.get(`${h.base}${up.headers.location}`);
  assert.doesNotMatch(file.text, /<img src=x/);
  assert.match(file.text, /&#60;img src=x onerror=alert\(1\)&#62;/);
  const folder = await browser.get(`${h.base}/share/`);
  assert.doesNotMatch(folder.text, /<img src=x/);
  const search = await browser.get(`${h.base}/share/search?q=${encodeURIComponent('"><script>alert(1)</script>')}`);
  assert.doesNotMatch(search.text, /<script>/);
});

test('upload, new version and revert through the UI; downloads of each version', async () => {
  const up = await postMultipart('/share/folder/company-home/upload', [['_csrf', csrf], ['comment', 'v1']], { name: 'ui.txt', content: 'first' });
  const page = String(up.headers.location);
  const id = page.split('/').pop()!;
  const v2 = await postMultipart(`/share/file/${id}/version`, [['_csrf', csrf], ['comment', 'v2']], { name: 'whatever.txt', content: 'second' });
  assert.equal(v2.status, 303);
  const shown = await browser.get(`${h.base}${page}`);
  assert.match(shown.text, /id="current-version">1\.1</);
  const downloads = [...shown.text.matchAll(/class="download" href="([^"]+)"/g)].map((m) => m[1]!);
  assert.deepEqual(await Promise.all(downloads.map(async (d) => (await browser.get(`${h.base}${d}`)).text)), ['second', 'first']);
  assert.equal((await postForm(`/share/file/${id}/revert`, { _csrf: csrf, version: '1.0' })).status, 303);
  assert.match((await browser.get(`${h.base}${page}`)).text, /id="current-version">1\.2</);
});

test('every form refuses a missing or wrong CSRF token with 403 and changes nothing', async () => {
  const before = (await browser.get(`${h.base}/share/`)).text.match(/class="node-link"/g)?.length ?? 0;
  const cases = [
    await postMultipart('/share/folder/company-home/upload', [], { name: 'no-token.txt', content: 'x' }),
    await postMultipart('/share/folder/company-home/upload', [['_csrf', 'wrong']], { name: 'bad-token.txt', content: 'x' }),
    await postForm('/share/folder/company-home/folder', { name: 'NoToken' }),
    await postForm('/share/folder/company-home/folder', { _csrf: `${csrf}x`, name: 'BadToken' }),
  ];
  for (const r of cases) {
    assert.equal(r.status, 403);
    assert.match(r.text, /CSRF token is missing or wrong/);
  }
  const after = (await browser.get(`${h.base}/share/`)).text.match(/class="node-link"/g)?.length ?? 0;
  assert.equal(after, before);
});

test('folders and search through the UI; a duplicate folder name is a 409 page', async () => {
  const made = await postForm('/share/folder/company-home/folder', { _csrf: csrf, name: 'Invoices' });
  assert.equal(made.status, 303);
  assert.equal((await postForm('/share/folder/company-home/folder', { _csrf: csrf, name: 'Invoices' })).status, 409);
  const found = await browser.get(`${h.base}/share/search?q=invoices`);
  assert.match(found.text, /id="search-count">1 result/);
});

test('the breadcrumbs of a file page link the file to its own page, the folders to theirs; every crumb answers 200', async () => {
  const up = await postMultipart('/share/folder/company-home/upload', [['_csrf', csrf]], { name: 'crumb.txt', content: 'crumb' });
  const id = String(up.headers.location).split('/').pop()!;
  const page = await browser.get(`${h.base}/share/file/${id}`);
  const crumbs = [...(/<nav class="crumbs">(.*?)<\/nav>/s.exec(page.text)![1]!).matchAll(/href="([^"]+)"/g)].map((m) => m[1]!);
  assert.deepEqual(crumbs, ['/share/folder/company-home', `/share/file/${id}`]);
  for (const crumb of crumbs) assert.equal((await browser.get(`${h.base}${crumb}`)).status, 200, crumb);
});
