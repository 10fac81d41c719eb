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
import { users } from './_users.ts';
import type { Harness } from './_service.ts';

let h: Harness;
before(async () => {
  h = await startContent();
});
after(() => h.close());

type Json = Record<string, any>;

const { call, upload } = users(() => h);
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
  assert.equal((await call('ada', 'PUT', `${API}/nodes/${file.body!['entry'].id}`, { properties: { 'cm:title': 'changed' } }, readOnly)).status, 403);
  const content = await send(`${h.base}${API}/nodes/${file.body!['entry'].id}/content`, { method: 'PUT', headers: { authorization: `Bearer ${users(() => h).token('ada', readOnly)}`, 'content-type': 'text/plain' }, body: 'two' });
  assert.equal(content.status, 403);
  assert.equal((await call('ada', 'POST', `${API}/nodes/${file.body!['entry'].id}/versions/1.0/revert`, {}, readOnly)).status, 403);
  assert.equal(eventCount(), before, 'no evidence: nothing changed');
  // Reading still works with the read scope.
  assert.equal((await call('ada', 'GET', `${API}/nodes/${file.body!['entry'].id}`, undefined, readOnly)).status, 200);
});

test('-my- is the user\'s alone: another user can neither read nor write it, nor see it in User Homes', async () => {
  const file = await upload('ada', '-my-', 'private.txt', 'the okapi plan');
  assert.equal(file.status, 201);
  const adaHome = (await call('ada', 'GET', `${API}/nodes/-my-`)).body!['entry'];
  assert.equal((await call('bob', 'GET', `${API}/nodes/${adaHome.id}`)).status, 403);
  assert.equal((await call('bob', 'GET', `${API}/nodes/${adaHome.id}/children`)).status, 403);
  assert.equal((await call('bob', 'GET', `${API}/nodes/${file.body!['entry'].id}/content`)).status, 403);
  assert.equal((await upload('bob', adaHome.id, 'planted.txt', 'x')).status, 403);
  assert.equal((await call('bob', 'PUT', `${API}/nodes/${file.body!['entry'].id}`, { name: 'stolen.txt' })).status, 403);
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
  assert.equal((await call('carol', 'PUT', `${API}/nodes/${adaFile.body!['entry'].id}`, { properties: { 'cm:title': 'by carol' } }, { groups: ['writers'] })).status, 200);
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
  assert.equal((await call('bob', 'PUT', `${API}/nodes/${bobFile.body!['entry'].id}`, { properties: { 'cm:title': 'mine' } })).status, 200);
  assert.equal((await call('bob', 'PUT', `${API}/nodes/${adaFile.body!['entry'].id}`, { properties: { 'cm:title': 'not mine' } })).status, 403);
  assert.equal((await call('bob', 'PUT', `${API}/nodes/${folder.id}`, { permissions: { isInheritanceEnabled: true } })).status, 403);
  const ops = await call('bob', 'GET', `${API}/nodes/${folder.id}?include=allowableOperations`);
  assert.deepEqual(ops.body!['entry'].allowableOperations, ['create']);
  // Bad permission bodies change nothing.
  assert.equal((await call('ada', 'PUT', `${API}/nodes/${folder.id}`, { permissions: { locallySet: [{ authorityId: 'bob', name: 'Contributor' }, { authorityId: 'GROUP_/team/kea', name: 'Consumer' }] } })).status, 200, 'a group path as Keycloak names groups');
  assert.equal((await call('dave', 'GET', `${API}/nodes/${folder.id}`, undefined, { groups: ['/team/kea'] })).status, 200);
  assert.equal((await call('ada', 'PUT', `${API}/nodes/${folder.id}`, { permissions: { locallySet: [{ authorityId: 'bob', name: 'Contributor' }] } })).status, 200);
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

test('the transcript-summary references list only the transcripts the caller may read', async () => {
  const m = multipart([['name', 'private-call.vtt'], ['assistant:kind', 'transcript']], { name: 'private-call.vtt', content: 'WEBVTT\n\nprivate' });
  const r = await send(`${h.base}${API}/nodes/-my-/children`, { method: 'POST', headers: { authorization: `Bearer ${users(() => h).token('ada')}`, 'content-type': m.contentType }, body: m.body });
  assert.equal(r.status, 201);
  const id = (r.json() as Json)['entry'].id;
  const listed = async (who: string) => ((await call(who, 'GET', '/repository/service/assistant/transcript-summary-references.json')).body!['transcripts'] as Json[]).map((t) => t['node_id']);
  assert.ok((await listed('ada')).includes(id));
  assert.ok(!(await listed('bob')).includes(id), 'bob does not learn that ada\'s home holds a transcript');
});

test('User Homes and Shared exist from the start and keep their names: no writer takes or renames them', async () => {
  const root = await call('ada', 'GET', `${API}/nodes/-root-/children?orderBy=name`);
  assert.deepEqual(root.body!['list'].entries.map((e: Json) => e.entry.name).filter((n: string) => n === 'Shared' || n === 'User Homes'), ['Shared', 'User Homes']);
  assert.equal((await call('ada', 'POST', `${API}/nodes/-root-/children`, { name: 'shared', nodeType: 'cm:folder' })).status, 409);
  const shared = (await call('ada', 'GET', `${API}/nodes/-shared-`)).body!['entry'];
  const home = (await call('ada', 'GET', `${API}/nodes/-my-`)).body!['entry'];
  for (const id of [shared.id, home.id, home.parentId]) {
    const r = await call('ada', 'PUT', `${API}/nodes/${id}`, { name: 'mine now' }, { groups: ['writers'] });
    assert.equal(r.status, 403, id);
  }
  assert.equal((await call('ada', 'PUT', `${API}/nodes/${home.id}`, { properties: { 'cm:title': 'My home' } })).status, 200, 'its properties are the user\'s to set');
});

test('Company Home keeps its configured grants even with inheritance turned off on it', async () => {
  const r = await call('carol', 'PUT', `${API}/nodes/-root-`, { permissions: { isInheritanceEnabled: false } }, { groups: ['coordinators'] });
  assert.equal(r.status, 403, 'nobody is its Coordinator in this configuration');
  const sqlite = new DatabaseSync(join(h.dataDir, 'content.sqlite'));
  sqlite.prepare(`UPDATE nodes SET inherit_permissions = 0 WHERE id = 'company-home'`).run();
  sqlite.close();
  try {
    assert.equal((await call('bob', 'GET', `${API}/nodes/-root-/children`)).status, 200, 'everyone still reads it');
    assert.equal((await call('ada', 'POST', `${API}/nodes/-root-/children`, { name: 'still writable', nodeType: 'cm:folder' })).status, 201, 'the writers still write');
  } finally {
    const fix = new DatabaseSync(join(h.dataDir, 'content.sqlite'));
    fix.prepare(`UPDATE nodes SET inherit_permissions = 1 WHERE id = 'company-home'`).run();
    fix.close();
  }
});

test('CONTENT_COMPANY_HOME_COORDINATORS: that group deletes what others made in Company Home and sets its permissions; homes stay out of its reach', async () => {
  const other = await startContent({ CONTENT_COMPANY_HOME_COORDINATORS: 'admins' });
  try {
    const as = users(() => other);
    const made = await as.call('ada', 'POST', `${API}/nodes/-root-/children`, { name: 'ada-made', nodeType: 'cm:folder' });
    assert.equal(made.status, 201);
    const admin = { groups: ['admins'] };
    assert.equal((await as.call('root-admin', 'PUT', `${API}/nodes/-root-`, { permissions: { locallySet: [{ authorityId: 'GROUP_auditors', name: 'Consumer' }] } }, admin)).status, 200);
    assert.equal((await as.call('root-admin', 'DELETE', `${API}/nodes/${made.body!['entry'].id}`, undefined, admin)).status, 204);
    const home = (await as.call('ada', 'GET', `${API}/nodes/-my-`)).body!['entry'];
    assert.equal((await as.call('root-admin', 'GET', `${API}/nodes/${home.id}`, undefined, admin)).status, 403, 'a home inherits nothing, the coordinators\' grant included');
  } finally {
    await other.close();
  }
});

test('relativePath does not tell another user which names a home holds: 403 at the first folder they may not read', async () => {
  const secret = await upload('ada', '-my-', 'plans-2027.txt', 'x');
  assert.equal(secret.status, 201);
  const homes = (await call('bob', 'GET', `${API}/nodes/-my-`)).body!['entry'].parentId;
  const existing = await call('bob', 'GET', `${API}/nodes/${homes}?relativePath=ada/plans-2027.txt`);
  const missing = await call('bob', 'GET', `${API}/nodes/${homes}?relativePath=ada/no-such-file.txt`);
  assert.equal(existing.status, 403);
  assert.equal(missing.status, 403, 'the same answer whether the name exists or not');
});

test('a subject named like the repository or like a group gains nothing by it', async () => {
  const adaHome = (await call('ada', 'GET', `${API}/nodes/-my-`)).body!['entry'];
  assert.equal((await call('System', 'GET', `${API}/nodes/${adaHome.id}`)).status, 403, '"System" owns none of the folders the repository made');
  assert.equal((await call('System', 'PUT', `${API}/nodes/-shared-`, { permissions: { locallySet: [{ authorityId: 'System', name: 'Coordinator' }] } })).status, 403);
  assert.equal((await call('GROUP_writers', 'POST', `${API}/nodes/-root-/children`, { name: 'by-a-group-named-subject', nodeType: 'cm:folder' })).status, 403, 'a subject "GROUP_writers" is not the group');
  assert.equal((await call('ada', 'PUT', `${API}/nodes/${adaHome.id}`, { permissions: { locallySet: [{ authorityId: 'GROUP_', name: 'Consumer' }] } })).status, 400);
});

test('-my- of a subject that differs from another only in case is refused (409), never the other one\'s home', async () => {
  assert.equal((await call('erin', 'GET', `${API}/nodes/-my-`)).status, 200);
  const clash = await call('Erin', 'GET', `${API}/nodes/-my-`);
  assert.equal(clash.status, 409);
  assert.match(clash.body!['error'].briefSummary, /differs only in case/);
});

test('a 403 does not name a node the caller may not read (its id shows as a parentId), nor a home by its system-folder refusal', async () => {
  const folder = await call('ada', 'POST', `${API}/nodes/-my-/children`, { name: 'Acquisition of Initech', nodeType: 'cm:folder' });
  assert.equal(folder.status, 201, folder.text);
  const hidden = folder.body!['entry'].id as string;
  const file = await upload('ada', hidden, 'memo.txt', 'lent to bob');
  assert.equal((await call('ada', 'PUT', `${API}/nodes/${file.body!['entry'].id}`, { permissions: { locallySet: [{ authorityId: 'bob', name: 'Consumer' }] } })).status, 200);
  const seen = await call('bob', 'GET', `${API}/nodes/${file.body!['entry'].id}`);
  assert.equal(seen.body!['entry'].parentId, hidden, 'bob learns the folder\'s id from the file he may read');
  const home = (await call('ada', 'GET', `${API}/nodes/-my-`)).body!['entry'];
  const probes: [string, string, unknown?][] = [
    ['GET', `${API}/nodes/${hidden}`],
    ['GET', `${API}/nodes/${hidden}/children`],
    ['PUT', `${API}/nodes/${hidden}`, { name: 'mine now' }],
    ['PUT', `${API}/nodes/${hidden}`, { properties: { 'cm:title': 'x' } }],
    ['DELETE', `${API}/nodes/${hidden}`],
    ['POST', `${API}/nodes/${hidden}/children`, { name: 'x', nodeType: 'cm:folder' }],
    ['PUT', `${API}/nodes/${home.id}`, { name: 'renamed home' }],
    ['DELETE', `${API}/nodes/${home.id}`],
  ];
  for (const [method, path, body] of probes) {
    const refused = await call('bob', method, path, body);
    assert.equal(refused.status, 403, `${method} ${path}: ${refused.text}`);
    assert.doesNotMatch(refused.body!['error'].briefSummary, /Initech|"ada"/, `${method} ${path}`);
  }
  const own = await call('bob', 'PUT', `${API}/nodes/${file.body!['entry'].id}`, { name: 'x.txt' });
  assert.equal(own.status, 403);
  assert.match(own.body!['error'].briefSummary, /"memo\.txt"/, 'a node the caller reads is still named');
});

test('share UI: breadcrumbs show only the folders the viewer reads, so a folder shared out of a hidden one does not name its parents', async () => {
  const { browser } = await login(h);
  const hidden = (await call('bob', 'POST', `${API}/nodes/-my-/children`, { name: 'Project Titan', nodeType: 'cm:folder' })).body!['entry'];
  const lent = (await call('bob', 'POST', `${API}/nodes/${hidden.id}/children`, { name: 'Lent out', nodeType: 'cm:folder' })).body!['entry'];
  const file = (await upload('bob', lent.id, 'notes.txt', 'shared notes')).body!['entry'];
  assert.equal((await call('bob', 'PUT', `${API}/nodes/${lent.id}`, { permissions: { locallySet: [{ authorityId: h.op.user.sub, name: 'Consumer' }] } })).status, 200);
  for (const path of [`/share/folder/${lent.id}`, `/share/file/${file.id}`]) {
    const page = await browser.get(`${h.base}${path}`);
    assert.equal(page.status, 200, path);
    const crumbs = /<nav class="crumbs">(.*?)<\/nav>/s.exec(page.text)![1]!;
    assert.doesNotMatch(crumbs, /Project Titan|>bob<|User Homes|Company Home/, `${path}: ${crumbs}`);
    assert.match(crumbs, /Lent out/);
  }
  const own = await browser.get(`${h.base}/share/folder/${(await call(h.op.user.sub, 'GET', `${API}/nodes/-my-`)).body!['entry'].id}`);
  assert.match(/<nav class="crumbs">(.*?)<\/nav>/s.exec(own.text)![1]!, /Company Home.*User Homes/s, 'readable ancestors are still shown');
});

test('a folder tree 12,000 deep (any contributor can make one) is read, listed and searched by others without a stack overflow', async () => {
  let parent = '-shared-';
  for (let i = 0; i < 6; i++) {
    const made = await call('ada', 'POST', `${API}/nodes/${parent}/children`, { name: `abyss${i}`, nodeType: 'cm:folder', relativePath: 'd/'.repeat(2000) });
    assert.equal(made.status, 201, made.text.slice(0, 300));
    parent = made.body!['entry'].id;
  }
  const read = await call('bob', 'GET', `${API}/nodes/${parent}?include=path,allowableOperations`);
  assert.equal(read.status, 200, read.text.slice(0, 300));
  assert.equal((await call('bob', 'GET', `${API}/nodes/${parent}/children`)).status, 200);
  const found = await call('bob', 'POST', SEARCH, { query: { query: 'abyss5' } });
  assert.equal(found.status, 200, found.text.slice(0, 300));
  assert.deepEqual(found.body!['list'].entries.map((e: Json) => e.entry.id), [parent]);
});
