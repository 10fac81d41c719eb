// The repository API (Alfresco's shapes under /repository/...): uploads with every option,
// metadata and content updates, versions and revert, renditions, search with paging, probes,
// the transcript-summary references, and bad input that gets a clear 4xx and changes nothing.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { verifyChain } from '../../src/kernel/index.ts';
import { API, SEARCH, login, multipart, startContent } from './_service.ts';
import type { Browser, Harness } from './_service.ts';

let h: Harness;
let browser: Browser;

before(async () => {
  h = await startContent({ CONTENT_MAX_UPLOAD_BYTES: String(256 * 1024) });
  ({ browser } = await login(h));
});
after(() => h.close());

type Json = Record<string, any>;

async function upload(fields: [string, string][], file: { name: string; content: string | Buffer; type?: string; field?: string } | undefined, parent = '-root-') {
  const m = multipart(fields, file);
  const r = await browser.request(`${h.base}${API}/nodes/${parent}/children`, { method: 'POST', headers: { 'content-type': m.contentType }, body: m.body });
  return { status: r.status, body: r.json() as Json };
}
async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const r = await browser.request(`${h.base}${path}`, { method, headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...headers }, ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }) });
  return { status: r.status, text: r.text, headers: r.headers, body: (r.headers['content-type'] ?? '').includes('json') ? (r.json() as Json) : undefined };
}
function assertAlfrescoError(body: Json | undefined, status: number) {
  assert.equal(body?.['error']?.statusCode, status);
  assert.deepEqual(Object.keys(body!['error']).sort(), ['briefSummary', 'descriptionURL', 'errorKey', 'logId', 'stackTrace', 'statusCode']);
}
function countEvents(): number {
  const sqlite = new DatabaseSync(join(h.dataDir, 'content.sqlite'), { readOnly: true });
  const count = Number(sqlite.prepare('SELECT count(*) AS n FROM content_events').get()?.['n']);
  sqlite.close();
  return count;
}

test('POST children uploads a file: 201, Alfresco node entry, content stored by SHA-256 on disk, readback byte-exact', async () => {
  const content = 'Quarterly minutes: the aardvark budget was approved.';
  const r = await upload([['name', 'minutes.txt'], ['comment', 'first draft'], ['cm:title', 'Board minutes']], { name: 'ignored.txt', content });
  assert.equal(r.status, 201);
  const entry = r.body['entry'];
  assert.equal(entry.name, 'minutes.txt');
  assert.equal(entry.nodeType, 'cm:content');
  assert.equal(entry.isFile, true);
  assert.equal(entry.content.mimeType, 'text/plain');
  assert.equal(entry.content.sizeInBytes, Buffer.byteLength(content));
  assert.equal(entry.properties['cm:versionLabel'], '1.0');
  assert.equal(entry.properties['cm:title'], 'Board minutes');
  assert.match(entry.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+0000$/);
  const sha = createHash('sha256').update(content).digest('hex');
  assert.ok(existsSync(join(h.dataDir, 'content-blobs', sha.slice(0, 2), sha.slice(2, 4), sha)));
  const read = await api('GET', `${API}/nodes/${entry.id}/content`);
  assert.equal(read.status, 200);
  assert.equal(read.text, content);
  assert.equal(read.headers.etag, `"${sha}"`);
  const versions = await api('GET', `${API}/nodes/${entry.id}/versions`);
  assert.equal(versions.body!['list'].entries[0].entry.versionComment, 'first draft');
});

test('POST children: relativePath creates folders, autoRename renames, overwrite versions, a clash without either is 409', async () => {
  const first = await upload([['relativePath', 'projects/alpha'], ['majorVersion', 'false']], { name: 'plan.md', content: '# plan' });
  assert.equal(first.status, 201);
  assert.equal(first.body['entry'].properties['cm:versionLabel'], '0.1');
  const folderId = first.body['entry'].parentId;
  const folder = await api('GET', `${API}/nodes/${folderId}`);
  assert.equal(folder.body!['entry'].name, 'alpha');
  const renamed = await upload([['relativePath', 'projects/alpha'], ['autoRename', 'true']], { name: 'plan.md', content: '# plan 2' });
  assert.equal(renamed.body['entry'].name, 'plan-1.md');
  const before = countEvents();
  const clash = await upload([['relativePath', 'projects/alpha']], { name: 'plan.md', content: '# plan 3' });
  assert.equal(clash.status, 409);
  assertAlfrescoError(clash.body, 409);
  assert.equal(countEvents(), before);
  const overwritten = await upload([['relativePath', 'projects/alpha'], ['overwrite', 'true'], ['majorVersion', 'false']], { name: 'plan.md', content: '# plan 4' });
  assert.equal(overwritten.body['entry'].id, first.body['entry'].id);
  assert.equal(overwritten.body['entry'].properties['cm:versionLabel'], '0.2');
  const children = await api('GET', `${API}/nodes/${folderId}/children?maxItems=1&skipCount=1`);
  assert.deepEqual({ ...children.body!['list'].pagination }, { count: 1, hasMoreItems: false, totalItems: 2, skipCount: 1, maxItems: 1 });
});

test('PUT nodes/{id} updates name and properties; PUT content adds versions; revert makes a new version with old bytes', async () => {
  const made = await upload([], { name: 'report.txt', content: 'version one text' });
  const id = made.body['entry'].id;
  const renamed = await api('PUT', `${API}/nodes/${id}`, { name: 'report-final.txt', properties: { 'cm:description': 'the zebra report' } });
  assert.equal(renamed.status, 200);
  assert.equal(renamed.body!['entry'].name, 'report-final.txt');
  assert.equal(renamed.body!['entry'].properties['cm:description'], 'the zebra report');
  const minor = await api('PUT', `${API}/nodes/${id}/content?comment=typo&majorVersion=false`, 'version two text', { 'content-type': 'text/plain' });
  assert.equal(minor.body!['entry'].properties['cm:versionLabel'], '1.1');
  const major = await api('PUT', `${API}/nodes/${id}/content?majorVersion=true`, 'version three text', { 'content-type': 'text/plain' });
  assert.equal(major.body!['entry'].properties['cm:versionLabel'], '2.0');
  const list = await api('GET', `${API}/nodes/${id}/versions`);
  assert.deepEqual(list.body!['list'].entries.map((e: Json) => e['entry'].id), ['2.0', '1.1', '1.0']);
  assert.equal((await api('GET', `${API}/nodes/${id}/versions/1.0/content`)).text, 'version one text');
  const reverted = await api('POST', `${API}/nodes/${id}/versions/1.0/revert`, { majorVersion: true, comment: 'back' });
  assert.equal(reverted.status, 200);
  assert.equal(reverted.body!['entry'].id, '3.0');
  assert.equal((await api('GET', `${API}/nodes/${id}/content`)).text, 'version one text');
  assert.equal((await api('GET', `${API}/nodes/${id}/versions/9.9`)).status, 404);
});

test('renditions: POST is 202, text of text content, a labelled placeholder otherwise', async () => {
  const text = await upload([], { name: 'notes.txt', content: 'rendition body' });
  const binary = await upload([], { name: 'photo.png', content: Buffer.from([0x89, 0x50, 0x4e, 0x47]), type: 'image/png' });
  for (const node of [text, binary]) {
    const id = node.body['entry'].id;
    assert.equal((await api('GET', `${API}/nodes/${id}/renditions/text/content`)).status, 404);
    const made = await api('POST', `${API}/nodes/${id}/renditions`, [{ id: 'text' }, { id: 'doclib' }]);
    assert.equal(made.status, 202);
    const listed = await api('GET', `${API}/nodes/${id}/renditions`);
    assert.deepEqual(listed.body!['list'].entries.map((e: Json) => e['entry'].status), ['CREATED', 'CREATED']);
  }
  assert.equal((await api('GET', `${API}/nodes/${text.body['entry'].id}/renditions/text/content`)).text, 'rendition body');
  assert.match((await api('GET', `${API}/nodes/${binary.body['entry'].id}/renditions/text/content`)).text, /^\[placeholder\] No text rendition: "photo.png" is image\/png/);
  const svg = await api('GET', `${API}/nodes/${binary.body['entry'].id}/renditions/doclib/content`);
  assert.match(svg.text, /placeholder/);
  assert.equal((await api('POST', `${API}/nodes/${text.body['entry'].id}/renditions`, { id: 'pdf' })).status, 400);
  assert.equal((await api('POST', `${API}/nodes/${text.body['entry'].id}/renditions`, { id: 'text,doclib' })).status, 409, 'all exist already');
  await api('PUT', `${API}/nodes/${text.body['entry'].id}/content`, 'rendition body v2', { 'content-type': 'text/plain' });
  assert.equal((await api('GET', `${API}/nodes/${text.body['entry'].id}/renditions/text/content`)).status, 404, 'a new version needs a new rendition');
  assert.equal((await api('POST', `${API}/nodes/${text.body['entry'].id}/renditions`, { id: 'text, doclib' })).status, 202);
  assert.equal((await api('GET', `${API}/nodes/${text.body['entry'].id}/renditions/text/content`)).text, 'rendition body v2');
});

test('search: full text over name, metadata and content, with paging and Alfresco\'s list envelope', async () => {
  await upload([['cm:title', 'pelican brief']], { name: 'a.txt', content: 'nothing here' });
  await upload([], { name: 'pelican.txt', content: 'nothing' });
  await upload([], { name: 'c.txt', content: 'the pelican flies' });
  const all = await api('POST', SEARCH, { query: { query: 'pelican', language: 'afts' } });
  assert.equal(all.status, 200);
  assert.equal(all.body!['list'].pagination.totalItems, 3);
  assert.equal(all.body!['list'].entries[0].entry.name, 'pelican.txt', 'a name match ranks first');
  assert.ok(typeof all.body!['list'].entries[0].entry.search.score === 'number');
  const page = await api('POST', SEARCH, { query: { query: 'pelican' }, paging: { maxItems: 2, skipCount: 2 } });
  assert.deepEqual({ ...page.body!['list'].pagination }, { count: 1, hasMoreItems: false, totalItems: 3, skipCount: 2, maxItems: 2 });
  assert.equal((await api('POST', SEARCH, { query: { query: 'name:pelican' } })).body!['list'].pagination.totalItems, 1);
  assert.equal((await api('POST', SEARCH, { query: { query: 'pelic*' } })).body!['list'].pagination.totalItems, 3);
  assert.equal((await api('POST', SEARCH, { query: { query: 'zebra' } })).body!['list'].pagination.totalItems, 1, 'metadata from PUT is indexed');
});

test('search takes the members Alfresco\'s clients send: include, fields, sort by a node field, TYPE filter queries', async () => {
  await upload([], { name: 'heron-b.txt', content: 'the heron waits' });
  await upload([], { name: 'heron-a.txt', content: 'a heron again' });
  const folder = await api('POST', `${API}/nodes/-root-/children`, { name: 'heron-folder', nodeType: 'cm:folder' });
  assert.equal(folder.status, 201);
  const byName = await api('POST', SEARCH, {
    query: { query: 'heron*', language: 'afts' },
    include: ['properties', 'aspectNames', 'path', 'allowableOperations'],
    sort: [{ type: 'FIELD', field: 'cm:name', ascending: true }],
    filterQueries: [{ query: '+TYPE:"cm:content"' }],
    fields: ['id', 'name'],
    paging: { maxItems: 10, skipCount: 0 },
  });
  assert.equal(byName.status, 200, byName.text);
  const entries = byName.body!['list'].entries.map((e: Json) => e.entry);
  assert.deepEqual(entries.map((e: Json) => e.name), ['heron-a.txt', 'heron-b.txt'], 'ascending by name, the folder filtered out');
  assert.deepEqual(Object.keys(entries[0]).sort(), ['id', 'name', 'search'], 'fields keeps only the named members and the score');
  assert.equal(byName.body!['list'].pagination.totalItems, 2);
  const folders = await api('POST', SEARCH, { query: { query: 'heron*' }, filterQueries: [{ query: 'TYPE:"cm:folder"' }] });
  assert.deepEqual(folders.body!['list'].entries.map((e: Json) => e.entry.name), ['heron-folder']);
  const descending = await api('POST', SEARCH, { query: { query: 'heron*' }, filterQueries: [{ query: '-TYPE:"cm:folder"' }], sort: [{ type: 'FIELD', field: 'name', ascending: false }] });
  assert.deepEqual(descending.body!['list'].entries.map((e: Json) => e.entry.name), ['heron-b.txt', 'heron-a.txt']);
  const events = countEvents();
  for (const [label, body] of [
    ['an unknown sort field', { query: { query: 'heron' }, sort: [{ type: 'FIELD', field: 'cm:secret' }] }],
    ['a sort field named for a prototype member', { query: { query: 'heron' }, sort: [{ type: 'FIELD', field: 'constructor' }] }],
    ['a filter query that is not a type filter', { query: { query: 'heron' }, filterQueries: [{ query: 'cm:name:heron OR 1=1' }] }],
    ['an unknown include value', { query: { query: 'heron' }, include: ['secrets'] }],
  ] as const) {
    const r = await api('POST', SEARCH, body);
    assert.equal(r.status, 400, label);
    assertAlfrescoError(r.body, 400);
  }
  assert.equal(countEvents(), events, 'a refused search writes nothing');
});

test('bad input gets Alfresco\'s error body and a 4xx, and leaves no evidence row', async () => {
  const before = countEvents();
  const cases: [string, Promise<{ status: number; body: Json | undefined }>, number][] = [
    ['no filedata', upload([['name', 'x.txt']], undefined), 400],
    ['wrong file field', upload([], { name: 'x.txt', content: 'x', field: 'file' }), 400],
    ['unknown field', upload([['colour', 'red']], { name: 'x.txt', content: 'x' }), 400],
    ['bad flag', upload([['overwrite', 'yes']], { name: 'x.txt', content: 'x' }), 400],
    ['bad name', upload([['name', '../etc']], { name: 'x.txt', content: 'x' }), 400],
    ['unknown parent', upload([], { name: 'x.txt', content: 'x' }, 'no-such-node'), 404],
    ['oversized', upload([], { name: 'big.bin', content: Buffer.alloc(300 * 1024) }), 413],
    ['malformed JSON', api('PUT', `${API}/nodes/-root-/children`, '{"name":'), 405],
    ['malformed JSON update', api('PUT', `${API}/nodes/company-home`, '{"name":'), 400],
    ['extra field', api('PUT', `${API}/nodes/company-home`, { name: 'x', owner: 'me' }), 400],
    ['wrong type', api('PUT', `${API}/nodes/company-home`, { properties: { 'cm:title': 5 } }), 400],
    ['rename root', api('PUT', `${API}/nodes/company-home`, { name: 'Root' }), 403],
    ['search missing query', api('POST', SEARCH, { paging: {} }), 400],
    ['search language', api('POST', SEARCH, { query: { query: 'x', language: 'cmis' } }), 400],
    ['search paging', api('POST', SEARCH, { query: { query: 'x' }, paging: { maxItems: 0 } }), 400],
    ['paging query', api('GET', `${API}/nodes/-root-/children?maxItems=abc`), 400],
    ['folder has no content', api('GET', `${API}/nodes/-root-/content`), 404],
  ];
  for (const [name, pending, status] of cases) {
    const r = await pending;
    assert.equal(r.status, status, name);
    if (status !== 405) assertAlfrescoError(r.body, status);
  }
  const truncated = multipart([], { name: 'x.txt', content: 'x' });
  const cut = await browser.request(`${h.base}${API}/nodes/-root-/children`, { method: 'POST', headers: { 'content-type': truncated.contentType }, body: truncated.body.subarray(0, truncated.body.length - 10) });
  assert.equal(cut.status, 400);
  assert.equal(countEvents(), before);
});

test('folders: JSON body creates one; -my- is the user\'s home', async () => {
  const made = await api('POST', `${API}/nodes/-my-/children`, { name: 'Drafts', nodeType: 'cm:folder' });
  assert.equal(made.status, 201);
  assert.equal(made.body!['entry'].isFolder, true);
  const home = await api('GET', `${API}/nodes/-my-`);
  assert.equal(home.body!['entry'].name, 'user-42');
  assert.equal((await api('POST', `${API}/nodes/-my-/children`, { name: 'Drafts', nodeType: 'cm:content' })).status, 400);
});

test('probes answer loopback without a credential; -ready- is green only with search', async () => {
  const ready = await api('GET', `${API}/probes/-ready-`, undefined, { cookie: '' });
  assert.equal(ready.status, 200);
  assert.equal(ready.body!['entry'].message, 'readyProbe: Success - Tested');
  assert.equal((await api('GET', `${API}/probes/-live-`)).status, 200);
});

test('transcript-summary-references: references only, owner refs, fail closed on a dangling summary', async () => {
  const transcript = await upload([['assistant:kind', 'transcript']], { name: 'call.vtt', content: 'WEBVTT\n\nsecret words' });
  await upload([['assistant:kind', 'summary'], ['assistant:transcriptRef', transcript.body['entry'].id]], { name: 'call-summary.txt', content: 'summary words' });
  const ok = await api('GET', '/repository/service/assistant/transcript-summary-references.json');
  assert.equal(ok.status, 200);
  assert.equal(ok.body!['owner_issue_ref'], 'issue:19');
  assert.equal(ok.body!['blocked_program_ref'], 'program:none');
  assert.equal(ok.body!['transcripts'][0].summaries.length, 1);
  assert.doesNotMatch(ok.text, /secret words|summary words/);
  await upload([['assistant:kind', 'summary'], ['assistant:transcriptRef', 'missing']], { name: 'orphan.txt', content: 'x' });
  const closed = await api('GET', '/repository/service/assistant/transcript-summary-references.json');
  assert.equal(closed.status, 503);
  assert.equal(closed.body!['status'], 'fail_closed');
  assert.match(closed.body!['fail_closed_reasons'][0], /^summary_without_transcript/);
});

test('every change leaves a content_events row, and the chain verifies', async () => {
  const sqlite = new DatabaseSync(join(h.dataDir, 'content.sqlite'), { readOnly: true });
  const actions = sqlite.prepare('SELECT DISTINCT action FROM content_events').all().map((r) => r['action']);
  for (const action of ['created', 'content-created', 'content-updated', 'updated', 'reverted', 'rendition-created', 'session-started']) assert.ok(actions.includes(action), action);
  assert.equal(verifyChain(sqlite, { name: 'content_events', columns: { node_id: 'text', action: 'text' } }).ok, true);
  sqlite.close();
});

test('probes refuse a caller off loopback with 403', async () => {
  const { loopbackOnly } = await import('../../src/content/probes.ts');
  const outcome = await loopbackOnly({ remoteAddress: '10.1.2.3' } as never);
  assert.equal(outcome.ok, false);
  assert.equal(outcome.ok === false && outcome.reply.status, 403);
  assert.equal((await loopbackOnly({ remoteAddress: '::ffff:127.0.0.1' } as never)).ok, true);
});

// Last: it breaks the search index of the shared service on purpose.
test('without a working search index, -ready- is 503 and the transcript surface fails closed', async () => {
  const sqlite = new DatabaseSync(join(h.dataDir, 'content.sqlite'));
  sqlite.exec('DROP TABLE search_index');
  sqlite.close();
  const ready = await api('GET', `${API}/probes/-ready-`);
  assert.equal(ready.status, 503);
  assertAlfrescoError(ready.body, 503);
  assert.match(ready.body!['error'].briefSummary, /search index not answering/);
  assert.equal((await api('GET', `${API}/probes/-live-`)).status, 200);
  const refs = await api('GET', '/repository/service/assistant/transcript-summary-references.json');
  assert.equal(refs.status, 503);
  assert.ok(refs.body!['fail_closed_reasons'].some((r: string) => r.startsWith('repository_not_ready')));
});
