// The trashcan: DELETE nodes/{id} archives a folder with its children, deleted-nodes lists,
// restores and purges them; a purge removes the blobs no version still needs, blobs orphaned
// by a crash are reclaimed at start, and every step leaves an evidence row.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { verifyChain } from '../../src/kernel/index.ts';
import { CONTENT_EVENTS } from '../../src/content/database.ts';
import { API, SEARCH, login, startContent } from './_service.ts';
import { users } from './_users.ts';
import type { AsUser } from './_users.ts';
import type { Harness } from './_service.ts';

let h: Harness;
before(async () => {
  h = await startContent();
});
after(() => h.close());

type Json = Record<string, any>;

const as = users(() => h);
const call = as.call;
async function upload(who: string, parent: string, name: string, content: string, options: AsUser = {}) {
  const r = await as.upload(who, parent, name, content, options);
  assert.equal(r.status, 201, r.text);
  return r.body!['entry'];
}
async function folder(who: string, parent: string, name: string) {
  const r = await call(who, 'POST', `${API}/nodes/${parent}/children`, { name, nodeType: 'cm:folder' });
  assert.equal(r.status, 201, r.text);
  return r.body!['entry'];
}
function blobFile(content: string): string {
  const sha = createHash('sha256').update(content).digest('hex');
  return join(h.dataDir, 'content-blobs', sha.slice(0, 2), sha.slice(2, 4), sha);
}
function events(action: string): Json[] {
  const sqlite = new DatabaseSync(join(h.dataDir, 'content.sqlite'), { readOnly: true });
  try {
    return sqlite.prepare('SELECT node_id, payload FROM content_events WHERE action = ? ORDER BY seq').all(action).map((row) => ({ node_id: row['node_id'], ...JSON.parse(String(row['payload'])) }));
  } finally {
    sqlite.close();
  }
}

test('DELETE a folder archives it with its children; deleted-nodes lists it for its deleter only; restore brings all back', async () => {
  const top = await folder('ada', '-root-', 'Trash Trial');
  const inner = await folder('ada', top.id, 'inner');
  const file = await upload('ada', inner.id, 'wombat.txt', 'the wombat census');
  const deleted = await call('ada', 'DELETE', `${API}/nodes/${top.id}`);
  assert.equal(deleted.status, 204);
  for (const id of [top.id, inner.id, file.id]) assert.equal((await call('ada', 'GET', `${API}/nodes/${id}`)).status, 404);
  assert.equal((await call('ada', 'GET', `${API}/nodes/${file.id}/content`)).status, 404);
  const root = await call('ada', 'GET', `${API}/nodes/-root-/children`);
  assert.ok(!root.body!['list'].entries.some((e: Json) => e.entry.id === top.id));
  assert.equal((await call('ada', 'POST', SEARCH, { query: { query: 'wombat' } })).body!['list'].pagination.totalItems, 0);
  const trash = await call('ada', 'GET', `${API}/deleted-nodes`);
  assert.deepEqual(trash.body!['list'].entries.map((e: Json) => e.entry.id), [top.id], 'the folder, not its children');
  const entry = trash.body!['list'].entries[0].entry;
  assert.match(entry.archivedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+0000$/);
  assert.equal(entry.archivedByUser.id, 'ada');
  assert.equal((await call('ada', 'GET', `${API}/deleted-nodes/${top.id}`)).body!['entry'].name, 'Trash Trial');
  assert.equal((await call('bob', 'GET', `${API}/deleted-nodes`)).body!['list'].pagination.totalItems, 0, 'not in bob\'s trashcan');
  assert.equal((await call('bob', 'POST', `${API}/deleted-nodes/${top.id}/restore`)).status, 404);
  assert.equal((await call('ada', 'POST', `${API}/deleted-nodes/${inner.id}/restore`)).status, 404, 'a child is restored with its folder, not alone');
  const restored = await call('ada', 'POST', `${API}/deleted-nodes/${top.id}/restore`);
  assert.equal(restored.status, 200);
  assert.equal(restored.body!['entry'].id, top.id);
  assert.equal((await call('ada', 'GET', `${API}/nodes/${file.id}/content`)).text, 'the wombat census');
  assert.equal((await call('ada', 'POST', SEARCH, { query: { query: 'wombat' } })).body!['list'].pagination.totalItems, 1);
  assert.equal((await call('ada', 'GET', `${API}/deleted-nodes`)).body!['list'].pagination.totalItems, 0);
  const { state: deletedState, ...deletedEvent } = events('deleted').at(-1)!;
  assert.deepEqual(deletedEvent, { node_id: top.id, actor: 'ada', parent_id: 'company-home', name: 'Trash Trial', nodes: 3 });
  // The rows the change left, for a restore (derive-repository.ts): the three nodes, archived under the folder.
  assert.deepEqual(deletedState.nodes.map((n: Json) => [n['archive_root'], n['archiver']]), [[top.id, 'ada'], [top.id, 'ada'], [top.id, 'ada']]);
  const { state: restoredState, ...restoredEvent } = events('restored').at(-1)!;
  assert.deepEqual(restoredEvent, { node_id: top.id, actor: 'ada', parent_id: 'company-home', name: 'Trash Trial', nodes: 3 });
  assert.deepEqual(restoredState.nodes.map((n: Json) => n['archived_at']), [null, null, null]);
});

test('restore refuses when the name is taken again (409, case-insensitively) or the folder is gone (404)', async () => {
  const home = await folder('ada', '-my-', 'restore-cases');
  const first = await upload('ada', home.id, 'Report.txt', 'one');
  assert.equal((await call('ada', 'DELETE', `${API}/nodes/${first.id}`)).status, 204);
  await upload('ada', home.id, 'REPORT.txt', 'two');
  const clash = await call('ada', 'POST', `${API}/deleted-nodes/${first.id}/restore`);
  assert.equal(clash.status, 409);
  assert.equal(clash.body!['error'].statusCode, 409);
  const sub = await folder('ada', home.id, 'sub');
  const child = await upload('ada', sub.id, 'child.txt', 'child');
  assert.equal((await call('ada', 'DELETE', `${API}/nodes/${child.id}`)).status, 204);
  assert.equal((await call('ada', 'DELETE', `${API}/nodes/${sub.id}`)).status, 204);
  assert.equal((await call('ada', 'POST', `${API}/deleted-nodes/${child.id}/restore`)).status, 404, 'its folder is in the trashcan');
  assert.equal((await call('ada', 'POST', `${API}/deleted-nodes/${sub.id}/restore`)).status, 200);
  assert.equal((await call('ada', 'POST', `${API}/deleted-nodes/${child.id}/restore`)).status, 200);
  assert.equal((await call('ada', 'POST', `${API}/deleted-nodes/${sub.id}/restore`)).status, 404, 'not in the trashcan any more');
  assert.equal((await call('ada', 'DELETE', `${API}/nodes/${sub.id}`)).status, 204);
  const target = await call('ada', 'POST', `${API}/deleted-nodes/${sub.id}/restore`, { targetParentId: home.id });
  assert.equal(target.status, 400, 'a restore elsewhere is refused, not ignored');
  assert.match(target.body!['error'].briefSummary, /not supported/);
});

test('restore needs create on the folder now: a deleter who lost it gets 403 (without the folder\'s name) and nothing comes back', async () => {
  const shared = await folder('ada', '-my-', 'lent-to-bob');
  assert.equal((await call('ada', 'PUT', `${API}/nodes/${shared.id}`, { permissions: { locallySet: [{ authorityId: 'bob', name: 'Coordinator' }] } })).status, 200);
  const bobs = await upload('bob', shared.id, 'bob-notes.txt', 'notes');
  assert.equal((await call('bob', 'DELETE', `${API}/nodes/${bobs.id}`)).status, 204);
  assert.equal((await call('ada', 'PUT', `${API}/nodes/${shared.id}`, { permissions: { locallySet: [] } })).status, 200);
  const refused = await call('bob', 'POST', `${API}/deleted-nodes/${bobs.id}/restore`);
  assert.equal(refused.status, 403, refused.text);
  assert.equal(refused.body!['error'].errorKey, 'framework.exception.PermissionDenied');
  assert.doesNotMatch(refused.text, /lent-to-bob/, 'the folder bob cannot read any more is not named');
  assert.equal((await call('ada', 'GET', `${API}/nodes/${shared.id}/children`)).body!['list'].entries.length, 0);
  assert.equal((await call('bob', 'GET', `${API}/deleted-nodes/${bobs.id}`)).status, 200, 'still in bob\'s trashcan');
  assert.equal((await call('ada', 'PUT', `${API}/nodes/${shared.id}`, { permissions: { locallySet: [{ authorityId: 'bob', name: 'Contributor' }] } })).status, 200);
  assert.equal((await call('bob', 'POST', `${API}/deleted-nodes/${bobs.id}/restore`)).status, 200, 'create on the folder is enough');
});

test('purge removes the rows and the blobs no version needs; a blob another node shares stays', async () => {
  const box = await folder('ada', '-my-', 'purge-box');
  const shared = await upload('ada', box.id, 'a.txt', 'shared bytes of the quoll');
  await upload('ada', box.id, 'b.txt', 'shared bytes of the quoll');
  const alone = await upload('ada', box.id, 'c.txt', 'bytes only c has');
  for (const node of [shared, alone]) assert.equal((await call('ada', 'DELETE', `${API}/nodes/${node.id}`)).status, 204);
  assert.ok(existsSync(blobFile('bytes only c has')), 'content is kept until purged');
  assert.equal((await call('bob', 'DELETE', `${API}/deleted-nodes/${alone.id}`)).status, 404, 'only the deleter purges');
  assert.equal((await call('ada', 'DELETE', `${API}/deleted-nodes/${alone.id}`, undefined, { scope: 'openid api:read' })).status, 403);
  assert.equal((await call('ada', 'DELETE', `${API}/deleted-nodes/${shared.id}`)).status, 204);
  assert.ok(existsSync(blobFile('shared bytes of the quoll')), 'b.txt still names it');
  assert.equal((await call('ada', 'DELETE', `${API}/deleted-nodes/${alone.id}`)).status, 204);
  assert.ok(!existsSync(blobFile('bytes only c has')));
  assert.equal((await call('ada', 'GET', `${API}/deleted-nodes/${alone.id}`)).status, 404);
  assert.equal((await call('ada', 'POST', `${API}/deleted-nodes/${alone.id}/restore`)).status, 404);
  const purged = events('purged').at(-1)!;
  assert.deepEqual(purged, { node_id: alone.id, actor: 'ada', name: 'c.txt', nodes: 1, versions: 1, blobs_removed: [createHash('sha256').update('bytes only c has').digest('hex')], state: { removed: [alone.id] } });
  assert.deepEqual(events('purged').at(-2)!['blobs_removed'], []);
  // permanent=true: straight through the trashcan.
  const gone = await upload('ada', box.id, 'd.txt', 'bytes of d');
  assert.equal((await call('ada', 'DELETE', `${API}/nodes/${gone.id}?permanent=true`)).status, 204);
  assert.ok(!existsSync(blobFile('bytes of d')));
  assert.equal((await call('ada', 'GET', `${API}/deleted-nodes/${gone.id}`)).status, 404);
});

test('delete needs the delete permission (owner or Coordinator) and the write scope; system folders are refused', async () => {
  const adaFolder = await folder('ada', '-root-', 'Ada delete rights');
  const before = events('deleted').length;
  assert.equal((await call('bob', 'DELETE', `${API}/nodes/${adaFolder.id}`)).status, 403, 'bob may read it, not delete it');
  assert.equal((await call('carol', 'DELETE', `${API}/nodes/${adaFolder.id}`, undefined, { groups: ['writers'] })).status, 403, 'a Collaborator does not delete what is not theirs');
  assert.equal((await call('ada', 'DELETE', `${API}/nodes/${adaFolder.id}`, undefined, { scope: 'openid api:read' })).status, 403);
  // A folder holding someone else's file: its owner may not delete that file, so not the folder.
  await upload('carol', adaFolder.id, 'carols.txt', 'carol', { groups: ['writers'] });
  assert.equal((await call('ada', 'DELETE', `${API}/nodes/${adaFolder.id}`)).status, 403);
  for (const id of ['-root-', '-my-', '-shared-']) assert.equal((await call('ada', 'DELETE', `${API}/nodes/${id}`)).status, 403, id);
  assert.equal((await call('ada', 'DELETE', `${API}/nodes/no-such-node`)).status, 404);
  assert.equal((await call('ada', 'DELETE', `${API}/nodes/${adaFolder.id}?permanent=maybe`)).status, 400);
  assert.equal(events('deleted').length, before, 'nothing was deleted');
  assert.equal((await call('ada', 'GET', `${API}/nodes/${adaFolder.id}`)).status, 200);
});

test('at start, blobs no version names are removed and a blob a purge had moved aside is put back; one evidence row says so', async () => {
  const kept = await upload('ada', '-my-', 'kept.txt', 'bytes a version still names');
  assert.ok(kept.id);
  const tmp = join(h.dataDir, 'content-blobs', 'tmp');
  assert.deepEqual(readdirSync(tmp).filter((entry) => entry.startsWith('placing-')), [], 'a committed upload leaves no journal entry');
  // A crash after the blob was stored but before its version committed: the blob, and the journal entry naming it.
  const orphan = blobFile('orphaned by a crash');
  mkdirSync(dirname(orphan), { recursive: true });
  writeFileSync(orphan, 'orphaned by a crash');
  writeFileSync(join(tmp, `placing-${orphan.slice(-64)}-1`), '');
  // A journal entry whose version did commit (its removal was lost): the blob stays.
  writeFileSync(join(tmp, `placing-${blobFile('bytes a version still names').slice(-64)}-2`), '');
  // A crash in a purge whose unit never committed: the blob is aside, the version still names it.
  const aside = blobFile('bytes a version still names');
  const sha = aside.slice(-64);
  renameSync(aside, join(h.dataDir, 'content-blobs', 'tmp', `purge-${sha}`));
  await h.restart();
  assert.ok(!existsSync(orphan));
  assert.ok(existsSync(aside));
  assert.equal((await call('ada', 'GET', `${API}/nodes/${kept.id}/content`)).text, 'bytes a version still names');
  const row = events('blobs-reclaimed').at(-1)!;
  assert.equal(row['removed'], 1);
  assert.deepEqual(row['removed_sha256'], [orphan.slice(-64)]);
  assert.deepEqual(row['restored_sha256'], [sha]);
  assert.deepEqual(readdirSync(tmp), [], 'the journal entries were judged and removed');
  const sqlite = new DatabaseSync(join(h.dataDir, 'content.sqlite'), { readOnly: true });
  try {
    assert.equal(verifyChain(sqlite, CONTENT_EVENTS).ok, true);
  } finally {
    sqlite.close();
  }
});

test('share UI: delete asks first, then moves to the trashcan page, where restore and a confirmed purge work; forged forms change nothing', async () => {
  const { browser, csrf } = await login(h);
  const form = (path: string, fields: Record<string, string>) => browser.request(`${h.base}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
  const made = await form('/share/folder/company-home/folder', { _csrf: csrf, name: 'UI trash' });
  const id = String(made.headers.location).split('/').pop()!;
  const folderPage = await browser.get(`${h.base}/share/folder/${id}`);
  assert.match(folderPage.text, new RegExp(`href="/share/node/${id}/delete"`));
  const confirm = await browser.get(`${h.base}/share/node/${id}/delete`);
  assert.equal(confirm.status, 200);
  assert.match(confirm.text, /id="confirm-message">This moves the folder <strong>UI trash<\/strong> and everything in it to your trashcan/);
  assert.equal((await form(`/share/node/${id}/delete`, { _csrf: 'forged' })).status, 403);
  assert.equal((await browser.get(`${h.base}/share/folder/${id}`)).status, 200, 'a forged form deletes nothing');
  const deleted = await form(`/share/node/${id}/delete`, { _csrf: csrf });
  assert.equal(deleted.status, 303);
  assert.equal(deleted.headers.location, '/share/folder/company-home');
  assert.equal((await browser.get(`${h.base}/share/folder/${id}`)).status, 404);
  const trash = await browser.get(`${h.base}/share/trashcan`);
  assert.match(trash.text, /<td>UI trash<\/td>/);
  const restored = await form(`/share/trashcan/${id}/restore`, { _csrf: csrf });
  assert.equal(restored.status, 303);
  assert.equal(restored.headers.location, `/share/folder/${id}`);
  assert.equal((await browser.get(`${h.base}/share/folder/${id}`)).status, 200);
  await form(`/share/node/${id}/delete`, { _csrf: csrf });
  assert.match((await browser.get(`${h.base}/share/trashcan/${id}/purge`)).text, /will be removed for good/);
  assert.equal((await form(`/share/trashcan/${id}/purge`, { _csrf: csrf })).status, 303);
  assert.match((await browser.get(`${h.base}/share/trashcan`)).text, /id="trashcan-empty"/);
  assert.equal((await browser.get(`${h.base}/share/node/company-home/delete`)).status, 403, 'Company Home offers no delete');
  const home = await browser.get(`${h.base}${API}/nodes/-my-`);
  const homeId = (home.json() as { entry: { id: string } }).entry.id;
  assert.doesNotMatch((await browser.get(`${h.base}/share/folder/${homeId}`)).text, /id="delete-link"/, 'a home offers no delete link, though its user is its Coordinator');
  assert.equal((await browser.get(`${h.base}/share/node/${homeId}/delete`)).status, 403);
});

test('at start, only the blobs the journal names are judged: a blob on disk that it does not name is not looked at (the store was walked whole once)', async () => {
  // A blob no version names but no journal entry either: not a crash of this store's uploads, so
  // not searched for; walking every blob would cost each start seconds at a million blobs.
  const stray = blobFile('never journaled');
  mkdirSync(dirname(stray), { recursive: true });
  writeFileSync(stray, 'never journaled');
  await h.restart();
  assert.ok(existsSync(stray), 'the start walked the blobs');
  // Without the journal file (a store made before the journal), the one walk finds it.
  rmSync(join(h.dataDir, 'content-blobs', 'journaled'));
  await h.restart();
  assert.ok(!existsSync(stray));
  assert.ok(existsSync(join(h.dataDir, 'content-blobs', 'journaled')));
});
