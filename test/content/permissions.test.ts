// Alfresco's permission model over the repository API: the write scope of bearer tokens, homes
// that are their user's alone, Company Home writable only by the configured group, roles set
// with PUT nodes (Coordinator or owner only), include=permissions and allowableOperations, and
// listings and search that show only what the caller may read.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { send } from '../helpers/http.ts';
import { API, SEARCH, login, multipart, startContent } from './_service.ts';
import type { Harness } from './_service.ts';

let h: Harness;
before(async () => {
  h = await startContent();
});
after(() => h.close());

type Json = Record<string, any>;

/** Ada is in group "writers" (Company Home's writers); bob and carol are in no group unless given one. */
function token(sub: string, options: { scope?: string; groups?: string[] } = {}): string {
  return h.op.accessToken({ sub, groups: options.groups ?? (sub === 'ada' ? ['writers'] : []), ...(options.scope && { scope: options.scope }) });
}
async function call(who: string, method: string, path: string, body?: unknown, options: { scope?: string; groups?: string[] } = {}) {
  const r = await send(`${h.base}${path}`, { method, headers: { authorization: `Bearer ${token(who, options)}`, ...(body !== undefined && { 'content-type': 'application/json' }) }, ...(body !== undefined && { body: JSON.stringify(body) }) });
  return { status: r.status, headers: r.headers, body: (r.headers['content-type'] ?? '').includes('json') ? (r.json() as Json) : undefined };
}
async function upload(who: string, parent: string, name: string, content: string, options: { scope?: string } = {}) {
  const m = multipart([['name', name]], { name, content });
  const r = await send(`${h.base}${API}/nodes/${parent}/children`, { method: 'POST', headers: { authorization: `Bearer ${token(who, options)}`, 'content-type': m.contentType }, body: m.body });
  return { status: r.status, headers: r.headers, body: r.json() as Json };
}
function eventCount(): number {
  const sqlite = new DatabaseSync(join(h.dataDir, 'content.sqlite'), { readOnly: true });
  try {
    return Number(sqlite.prepare('SELECT count(*) AS n FROM content_events').get()?.['n']);
  } finally {
    sqlite.close();
  }
}

test('a bearer token without api:write changes nothing: 403 insufficient_scope on create, update and content', async () => {
  const home = await call('ada', 'GET', `${API}/nodes/-my-`);
  assert.equal(home.status, 200);
  const file = await upload('ada', '-my-', 'scoped.txt', 'one');
  assert.equal(file.status, 201);
  const before = eventCount();
  const readOnly = { scope: 'openid api:read' };
  const created = await call('ada', 'POST', `${API}/nodes/-my-/children`, { name: 'nope', nodeType: 'cm:folder' }, readOnly);
  assert.equal(created.status, 403);
  assert.match(String(created.headers['www-authenticate']), /^Bearer realm="content", error="insufficient_scope", scope="api:write"$/);
  assert.equal(created.body!['error'].statusCode, 403);
  assert.equal((await upload('ada', '-my-', 'nope.txt', 'x', readOnly)).status, 403);
  assert.equal((await call('ada', 'PUT', `${API}/nodes/${file.body['entry'].id}`, { properties: { 'cm:title': 'changed' } }, readOnly)).status, 403);
  const content = await send(`${h.base}${API}/nodes/${file.body['entry'].id}/content`, { method: 'PUT', headers: { authorization: `Bearer ${token('ada', readOnly)}`, 'content-type': 'text/plain' }, body: 'two' });
  assert.equal(content.status, 403);
  assert.equal((await call('ada', 'POST', `${API}/nodes/${file.body['entry'].id}/versions/1.0/revert`, {}, readOnly)).status, 403);
  assert.equal(eventCount(), before, 'no evidence: nothing changed');
  // Reading still works with the read scope.
  assert.equal((await call('ada', 'GET', `${API}/nodes/${file.body['entry'].id}`, undefined, readOnly)).status, 200);
});

test('-my- is the user\'s alone: another user can neither read nor write it, nor see it in User Homes', async () => {
  const file = await upload('ada', '-my-', 'private.txt', 'the okapi plan');
  assert.equal(file.status, 201);
  const adaHome = (await call('ada', 'GET', `${API}/nodes/-my-`)).body!['entry'];
  assert.equal((await call('bob', 'GET', `${API}/nodes/${adaHome.id}`)).status, 403);
  assert.equal((await call('bob', 'GET', `${API}/nodes/${adaHome.id}/children`)).status, 403);
  assert.equal((await call('bob', 'GET', `${API}/nodes/${file.body['entry'].id}/content`)).status, 403);
  assert.equal((await upload('bob', adaHome.id, 'planted.txt', 'x')).status, 403);
  assert.equal((await call('bob', 'PUT', `${API}/nodes/${file.body['entry'].id}`, { name: 'stolen.txt' })).status, 403);
  const bobHome = (await call('bob', 'GET', `${API}/nodes/-my-`)).body!['entry'];
  assert.notEqual(bobHome.id, adaHome.id);
  const homes = await call('bob', 'GET', `${API}/nodes/${bobHome.parentId}/children`);
  assert.equal(homes.status, 200);
  assert.deepEqual(homes.body!['list'].entries.map((e: Json) => e.entry.name), ['bob']);
  assert.equal(homes.body!['list'].pagination.totalItems, 1);
  const found = await call('bob', 'POST', SEARCH, { query: { query: 'okapi' } });
  assert.equal(found.body!['list'].pagination.totalItems, 0, 'search shows bob nothing of ada\'s home');
  const mine = await call('ada', 'POST', SEARCH, { query: { query: 'okapi' } });
  assert.deepEqual(mine.body!['list'].entries.map((e: Json) => e.entry.name), ['private.txt']);
});

test('Company Home: every user reads it, only the configured group writes it', async () => {
  assert.equal((await call('bob', 'GET', `${API}/nodes/-root-/children`)).status, 200);
  const refused = await call('bob', 'POST', `${API}/nodes/-root-/children`, { name: 'bobs', nodeType: 'cm:folder' });
  assert.equal(refused.status, 403);
  assert.match(refused.body!['error'].briefSummary, /Permission denied/);
  assert.equal((await call('bob', 'POST', `${API}/nodes/-root-/children`, { name: 'bobs', nodeType: 'cm:folder' }, { groups: ['writers'] })).status, 201, 'in group writers he may');
  const root = await call('bob', 'GET', `${API}/nodes/-root-?include=permissions,allowableOperations`);
  assert.deepEqual(root.body!['entry'].allowableOperations, []);
  assert.deepEqual(root.body!['entry'].permissions.inherited, [{ authorityId: 'GROUP_EVERYONE', name: 'Consumer', accessStatus: 'ALLOWED' }, { authorityId: 'GROUP_writers', name: 'Collaborator', accessStatus: 'ALLOWED' }]);
  const ada = await call('ada', 'GET', `${API}/nodes/-root-?include=allowableOperations`);
  assert.deepEqual(ada.body!['entry'].allowableOperations, ['update', 'create']);
  assert.equal((await call('ada', 'GET', `${API}/nodes/-root-?include=path,bogus`)).status, 400, 'an include that is not honoured is refused');
});

test('roles: permissions in PUT nodes (owner or Coordinator only), Contributor adds but edits only its own, inheritance off hides a folder', async () => {
  const folder = (await call('ada', 'POST', `${API}/nodes/-root-/children`, { name: 'Project Kea', nodeType: 'cm:folder' })).body!['entry'];
  const adaFile = await upload('ada', folder.id, 'kea-plan.txt', 'kea');
  assert.equal(adaFile.status, 201);
  // carol is in writers: Collaborator by inheritance, so she edits but does not set permissions.
  assert.equal((await call('carol', 'PUT', `${API}/nodes/${adaFile.body['entry'].id}`, { properties: { 'cm:title': 'by carol' } }, { groups: ['writers'] })).status, 200);
  const notCoordinator = await call('carol', 'PUT', `${API}/nodes/${folder.id}`, { permissions: { locallySet: [{ authorityId: 'carol', name: 'Coordinator' }] } }, { groups: ['writers'] });
  assert.equal(notCoordinator.status, 403);
  const set = await call('ada', 'PUT', `${API}/nodes/${folder.id}?include=permissions`, { permissions: { isInheritanceEnabled: false, locallySet: [{ authorityId: 'bob', name: 'Contributor', accessStatus: 'ALLOWED' }] } });
  assert.equal(set.status, 200);
  assert.deepEqual(set.body!['entry'].permissions.locallySet, [{ authorityId: 'bob', name: 'Contributor', accessStatus: 'ALLOWED' }]);
  assert.equal(set.body!['entry'].permissions.isInheritanceEnabled, false);
  assert.deepEqual(set.body!['entry'].permissions.settable, ['Consumer', 'Contributor', 'Collaborator', 'Coordinator']);
  // Inheritance off: carol's group grant no longer reaches the folder.
  assert.equal((await call('carol', 'GET', `${API}/nodes/${folder.id}`, undefined, { groups: ['writers'] })).status, 403);
  const listing = await call('carol', 'GET', `${API}/nodes/-root-/children`, undefined, { groups: ['writers'] });
  assert.ok(!listing.body!['list'].entries.some((e: Json) => e.entry.id === folder.id), 'the folder is not listed for carol');
  // bob, Contributor: adds, edits his own, not ada's; cannot delete or set permissions.
  const bobFile = await upload('bob', folder.id, 'bob-notes.txt', 'notes');
  assert.equal(bobFile.status, 201);
  assert.equal((await call('bob', 'PUT', `${API}/nodes/${bobFile.body['entry'].id}`, { properties: { 'cm:title': 'mine' } })).status, 200);
  assert.equal((await call('bob', 'PUT', `${API}/nodes/${adaFile.body['entry'].id}`, { properties: { 'cm:title': 'not mine' } })).status, 403);
  assert.equal((await call('bob', 'PUT', `${API}/nodes/${folder.id}`, { permissions: { isInheritanceEnabled: true } })).status, 403);
  const ops = await call('bob', 'GET', `${API}/nodes/${folder.id}?include=allowableOperations`);
  assert.deepEqual(ops.body!['entry'].allowableOperations, ['create']);
  // Bad permission bodies change nothing.
  for (const bad of [{ locallySet: [{ authorityId: 'bob', name: 'Owner' }] }, { locallySet: [{ authorityId: 'bob', name: 'Consumer', accessStatus: 'DENIED' }] }, { locallySet: [{ authorityId: 'bad id', name: 'Consumer' }] }, { isInheritanceEnabled: 'yes' }, { extra: true }]) {
    const r = await call('ada', 'PUT', `${API}/nodes/${folder.id}`, { permissions: bad });
    assert.equal(r.status, 400, JSON.stringify(bad));
  }
  const after = await call('ada', 'GET', `${API}/nodes/${folder.id}?include=permissions`);
  assert.deepEqual(after.body!['entry'].permissions.locallySet, [{ authorityId: 'bob', name: 'Contributor', accessStatus: 'ALLOWED' }]);
});

test('share UI: a folder the user may only read shows no upload or folder form; another user\'s home is a 403 page', async () => {
  const { browser } = await login(h);
  const folder = (await call('bob', 'POST', `${API}/nodes/-root-/children`, { name: 'Bob read-only', nodeType: 'cm:folder' }, { groups: ['writers'] })).body!['entry'];
  assert.equal((await call('bob', 'PUT', `${API}/nodes/${folder.id}`, { permissions: { isInheritanceEnabled: false, locallySet: [{ authorityId: h.op.user.sub, name: 'Consumer' }] } })).status, 200);
  const page = await browser.get(`${h.base}/share/folder/${folder.id}`);
  assert.equal(page.status, 200);
  assert.match(page.text, /id="read-only"/);
  assert.doesNotMatch(page.text, /id="upload-form"/);
  assert.doesNotMatch(page.text, /id="permissions"/, 'no permissions panel for a Consumer');
  const forged = await browser.request(`${h.base}/share/folder/${folder.id}/permissions`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ _csrf: /name="_csrf" value="([^"]+)"/.exec(page.text)![1]!, op: 'add', authorityId: h.op.user.sub, role: 'Coordinator' }).toString() });
  assert.equal(forged.status, 403, 'a Consumer cannot grant itself Coordinator');
  const bobHome = (await call('bob', 'GET', `${API}/nodes/-my-`)).body!['entry'];
  const refused = await browser.get(`${h.base}/share/folder/${bobHome.id}`);
  assert.equal(refused.status, 403);
  assert.match(refused.text, /Permission denied/);
});

test('share UI: the owner of a folder sees the permissions panel, grants a role, turns inheritance off; a wrong CSRF token changes nothing', async () => {
  const { browser, csrf } = await login(h);
  const made = await browser.request(`${h.base}/share/folder/company-home/folder`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ _csrf: csrf, name: 'Panel test' }).toString() });
  assert.equal(made.status, 303);
  const folderPath = String(made.headers.location);
  const folderId = folderPath.split('/').pop()!;
  const page = await browser.get(`${h.base}${folderPath}`);
  assert.match(page.text, /id="permissions"/);
  assert.equal((await call('bob', 'GET', `${API}/nodes/${folderId}/children`)).status, 200, 'everyone reads by inheritance');
  const post = (fields: Record<string, string>) => browser.request(`${h.base}${folderPath}/permissions`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
  assert.equal((await post({ _csrf: 'wrong', op: 'inherit-off' })).status, 403);
  assert.equal((await call('bob', 'GET', `${API}/nodes/${folderId}`)).status, 200, 'unchanged after the forged form');
  assert.equal((await post({ _csrf: csrf, op: 'add', authorityId: 'bob', role: 'Contributor' })).status, 303);
  assert.equal((await post({ _csrf: csrf, op: 'inherit-off' })).status, 303);
  assert.equal((await post({ _csrf: csrf, op: 'add', authorityId: 'bob', role: 'Owner' })).status, 400);
  assert.equal((await call('carol', 'GET', `${API}/nodes/${folderId}`)).status, 403, 'carol lost the inherited read');
  assert.equal((await upload('bob', folderId, 'from-bob.txt', 'hi')).status, 201, 'bob, Contributor, adds');
  const shown = await browser.get(`${h.base}${folderPath}`);
  assert.match(shown.text, /<td>bob<\/td><td>Contributor<\/td>/);
  assert.match(shown.text, /Inherited: off/);
  assert.equal((await post({ _csrf: csrf, op: 'remove', authorityId: 'bob', role: 'Contributor' })).status, 303);
  assert.equal((await call('bob', 'GET', `${API}/nodes/${folderId}`)).status, 403);
});
