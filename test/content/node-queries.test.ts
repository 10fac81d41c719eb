// The query parameters Alfresco's clients send with node reads and listings, each honoured or
// refused with 400 (never ignored): include (path and the rest), fields, orderBy, where; -shared-;
// ?name= on a content update; placeholder=true on rendition content; and cm:name uniqueness
// (case-insensitive, on the NFC form).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { send } from '../helpers/http.ts';
import { API, multipart, startContent } from './_service.ts';
import type { Harness } from './_service.ts';

let h: Harness;
before(async () => {
  h = await startContent();
});
after(() => h.close());

type Json = Record<string, any>;
function token(sub = 'ada', groups = sub === 'ada' ? ['writers'] : []): string {
  return h.op.accessToken({ sub, groups });
}
async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}, sub = 'ada') {
  const raw = typeof body === 'string' || body instanceof Uint8Array;
  const r = await send(`${h.base}${path}`, { method, headers: { authorization: `Bearer ${token(sub)}`, ...(body !== undefined && !raw && { 'content-type': 'application/json' }), ...headers }, ...(body !== undefined && { body: raw ? body : JSON.stringify(body) }) });
  return { status: r.status, text: r.text, headers: r.headers, body: (r.headers['content-type'] ?? '').includes('json') ? (r.json() as Json) : undefined };
}
async function upload(parent: string, name: string, content: string) {
  const m = multipart([['name', name]], { name, content });
  return call('POST', `${API}/nodes/${parent}/children`, m.body, { 'content-type': m.contentType });
}
async function folder(parent: string, name: string) {
  const r = await call('POST', `${API}/nodes/${parent}/children`, { name, nodeType: 'cm:folder' });
  assert.equal(r.status, 201, r.text);
  return r.body!['entry'];
}

test('include=path gives the folders above, isComplete false when one is hidden; the other include values are honoured', async () => {
  const a = await folder('-root-', 'Path A');
  const b = await folder(a.id, 'Path B');
  const r = await call('GET', `${API}/nodes/${b.id}?include=path,isLink,isLocked,isFavorite,association`);
  assert.deepEqual(r.body!['entry'].path, { name: '/Company Home/Path A', isComplete: true, elements: [{ id: 'company-home', name: 'Company Home', nodeType: 'cm:folder', aspectNames: ['cm:auditable'] }, { id: a.id, name: 'Path A', nodeType: 'cm:folder', aspectNames: ['cm:auditable'] }] });
  assert.equal(r.body!['entry'].isLink, false);
  assert.deepEqual(r.body!['entry'].association, { assocType: 'cm:contains', isPrimary: true });
  // bob reads B (a grant of its own) but not A (inheritance off, no grant).
  assert.equal((await call('PUT', `${API}/nodes/${a.id}`, { permissions: { isInheritanceEnabled: false } })).status, 200);
  assert.equal((await call('PUT', `${API}/nodes/${b.id}`, { permissions: { isInheritanceEnabled: false, locallySet: [{ authorityId: 'bob', name: 'Consumer' }] } })).status, 200);
  const bob = await call('GET', `${API}/nodes/${b.id}?include=path`, undefined, {}, 'bob');
  assert.equal(bob.status, 200);
  assert.deepEqual(bob.body!['entry'].path, { name: '/', isComplete: false, elements: [] });
  assert.equal((await call('GET', `${API}/nodes/${b.id}?include=definition`)).status, 400);
});

test('fields keeps the named members (and included ones); an unknown field is 400', async () => {
  const r = await call('GET', `${API}/nodes/-root-?fields=id,name&include=allowableOperations`);
  assert.deepEqual(Object.keys(r.body!['entry']).sort(), ['allowableOperations', 'id', 'name']);
  const list = await call('GET', `${API}/nodes/-root-/children?fields=name`);
  assert.ok(list.body!['list'].entries.every((e: Json) => Object.keys(e.entry).join() === 'name'));
  assert.equal((await call('GET', `${API}/nodes/-root-?fields=id,secret`)).status, 400);
});

test('orderBy and where on listings, as js-api sends them; anything else 400', async () => {
  const box = await folder('-my-', 'order-box');
  await upload(box.id, 'b.txt', 'b');
  await upload(box.id, 'a.txt', 'a');
  await folder(box.id, 'z-folder');
  const list = async (query: string) => {
    const r = await call('GET', `${API}/nodes/${box.id}/children?${query}`);
    return { status: r.status, names: r.body!['list']?.entries.map((e: Json) => e.entry.name), total: r.body!['list']?.pagination.totalItems, summary: r.body!['error']?.briefSummary };
  };
  assert.deepEqual((await list('orderBy=isFolder+DESC%2Cname+ASC')).names, ['z-folder', 'a.txt', 'b.txt']);
  assert.deepEqual((await list('orderBy=name DESC')).names, ['z-folder', 'b.txt', 'a.txt']);
  assert.deepEqual((await list('orderBy=isFolder,name')).names, ['a.txt', 'b.txt', 'z-folder']);
  const files = await list('where=%28isFile%3Dtrue%29');
  assert.deepEqual(files.names, ['a.txt', 'b.txt']);
  assert.equal(files.total, 2);
  assert.deepEqual((await list("where=(nodeType='cm:folder')")).names, ['z-folder']);
  assert.deepEqual((await list("where=(nodeType='cm:cmobject INCLUDESUBTYPES')")).names, ['z-folder', 'a.txt', 'b.txt']);
  assert.deepEqual((await list('where=(isFolder=true OR isFile=true)')).names, ['z-folder', 'a.txt', 'b.txt']);
  assert.deepEqual((await list('where=(isPrimary=false)')).names, []);
  for (const bad of ['orderBy=sizeInBytes', 'orderBy=name SIDEWAYS', 'where=isFile=true', 'where=(isFile=maybe)', 'where=(cm:owner=bob)', 'where=(isFile=true AND isFolder=false OR isPrimary=true)']) {
    const r = await list(bad);
    assert.equal(r.status, 400, bad);
  }
});

test('-shared- is Shared Files: made once, readable and writable by every user', async () => {
  const shared = await call('GET', `${API}/nodes/-shared-`, undefined, {}, 'bob');
  assert.equal(shared.status, 200);
  assert.equal(shared.body!['entry'].name, 'Shared');
  assert.equal(shared.body!['entry'].parentId, 'company-home');
  assert.equal((await upload('-shared-', 'from-ada.txt', 'x')).status, 201);
  const bob = await call('POST', `${API}/nodes/-shared-/children`, { name: 'bob-was-here', nodeType: 'cm:folder' }, {}, 'bob');
  assert.equal(bob.status, 201, 'GROUP_EVERYONE is Contributor on Shared');
  assert.equal((await call('GET', `${API}/nodes/-shared-`)).body!['entry'].id, shared.body!['entry'].id);
});

test('PUT content with name renames the node with its new version; a bad or taken name changes nothing', async () => {
  const box = await folder('-my-', 'rename-box');
  const file = (await upload(box.id, 'draft.txt', 'one')).body!['entry'];
  await upload(box.id, 'taken.md', 'other');
  const put = (query: string, body: string) => call('PUT', `${API}/nodes/${file.id}/content?${query}`, body, { 'content-type': 'application/octet-stream' });
  const renamed = await put('majorVersion=true&comment=c&name=final.md', '# final');
  assert.equal(renamed.status, 200);
  assert.equal(renamed.body!['entry'].name, 'final.md');
  assert.equal(renamed.body!['entry'].content.mimeType, 'text/markdown', 'the type follows the new name');
  assert.equal(renamed.body!['entry'].properties['cm:versionLabel'], '2.0');
  const versions = await call('GET', `${API}/nodes/${file.id}/versions`);
  assert.equal(versions.body!['list'].entries[0].entry.name, 'final.md');
  assert.equal((await put('name=TAKEN.md', 'x')).status, 409);
  assert.equal((await put('name=a%2Fb', 'x')).status, 400);
  const after = await call('GET', `${API}/nodes/${file.id}`);
  assert.equal(after.body!['entry'].name, 'final.md');
  assert.equal(after.body!['entry'].properties['cm:versionLabel'], '2.0', 'no version from the refused updates');
});

test('placeholder=true answers a rendition not made yet with a placeholder; without it 404; a bad flag 400', async () => {
  const file = (await upload('-my-', 'render-me.txt', 'plain text to render')).body!['entry'];
  assert.equal((await call('GET', `${API}/nodes/${file.id}/renditions/doclib/content`)).status, 404);
  const placeholder = await call('GET', `${API}/nodes/${file.id}/renditions/doclib/content?placeholder=true`);
  assert.equal(placeholder.status, 200);
  assert.match(String(placeholder.headers['content-type']), /^image\/svg\+xml/);
  assert.match(placeholder.text, /render-me\.txt/);
  const text = await call('GET', `${API}/nodes/${file.id}/renditions/text/content?placeholder=true`);
  assert.equal(text.text, 'plain text to render');
  assert.equal((await call('GET', `${API}/nodes/${file.id}/renditions`)).body!['list'].entries.every((e: Json) => e.entry.status === 'NOT_CREATED'), true, 'a placeholder stores nothing');
  assert.equal((await call('GET', `${API}/nodes/${file.id}/renditions/doclib/content?placeholder=yes`)).status, 400);
});

test('names are unique per folder case-insensitively and on the NFC form, as cm:name', async () => {
  const box = await folder('-my-', 'names-box');
  assert.equal((await upload(box.id, 'Report.txt', 'a')).status, 201);
  assert.equal((await upload(box.id, 'report.txt', 'b')).status, 409);
  assert.equal((await upload(box.id, 'Caf\u00e9.txt', 'c')).status, 201);
  assert.equal((await upload(box.id, 'Cafe\u0301.txt', 'd')).status, 409, 'the NFD spelling is the same name');
  assert.equal((await call('POST', `${API}/nodes/${box.id}/children`, { name: 'REPORT.TXT', nodeType: 'cm:folder' })).status, 409);
  const other = (await upload(box.id, 'other.txt', 'e')).body!['entry'];
  assert.equal((await call('PUT', `${API}/nodes/${other.id}`, { name: 'CAFÉ.txt' })).status, 409);
  assert.equal((await call('PUT', `${API}/nodes/${other.id}`, { name: 'Other.txt' })).status, 200, 'a node may change the case of its own name');
  const overwrite = multipart([['name', 'REPORT.txt'], ['overwrite', 'true']], { name: 'REPORT.txt', content: 'v2' });
  const r = await call('POST', `${API}/nodes/${box.id}/children`, overwrite.body, { 'content-type': overwrite.contentType });
  assert.equal(r.status, 201);
  assert.equal(r.body!['entry'].name, 'Report.txt', 'overwrite finds the file whatever the case');
  assert.equal(r.body!['entry'].properties['cm:versionLabel'], '2.0');
  const auto = multipart([['name', 'report.TXT'], ['autoRename', 'true']], { name: 'report.TXT', content: 'v3' });
  assert.equal((await call('POST', `${API}/nodes/${box.id}/children`, auto.body, { 'content-type': auto.contentType })).body!['entry'].name, 'report-1.TXT');
  const listing = await call('GET', `${API}/nodes/${box.id}/children`);
  assert.equal(listing.body!['list'].pagination.totalItems, 4);
});
