// Alfresco's own JavaScript client, unchanged: the requests @alfresco/js-api 10 sends (recorded
// from the library by fixtures/record-js-api-requests.mjs: path, query, headers and body bytes)
// replayed as they are, with only the node ids and the bearer token filled in. Each must get the
// answer Alfresco would give, at the path js-api builds (.../public/alfresco/versions/1/...).

import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { send } from '../helpers/http.ts';
import { startContent } from './_service.ts';
import type { Harness } from './_service.ts';

interface Recorded {
  label: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  authorization: string;
  body: string;
}
const fixture = JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', 'js-api-10-requests.json'), 'utf8')) as { library: string; version: string; requests: Recorded[] };

let h: Harness;
before(async () => {
  h = await startContent();
});
after(() => h.close());

type Json = Record<string, any>;

test(`@alfresco/js-api ${fixture.version}: NodesApi, UploadApi, VersionsApi, RenditionsApi, SearchApi and TrashcanApi requests, byte for byte`, async () => {
  assert.equal(fixture.library, '@alfresco/js-api');
  assert.match(fixture.version, /^10\./);
  const ids: Record<string, string> = {};
  const token = h.op.accessToken();
  const answers: { label: string; status: number; body: Json | undefined; text: string }[] = [];
  for (const request of fixture.requests) {
    const url = request.url.replace(/FOLDER_ID|FILE_ID/g, (name) => ids[name] ?? name);
    assert.match(url, /^\/repository\/api\/-default-\/public\/(alfresco|search)\/versions\/1\//, 'js-api builds these paths itself');
    const body = Buffer.from(request.body, 'base64');
    const r = await send(`${h.base}${url}`, { method: request.method, headers: { ...request.headers, authorization: request.authorization.replace('<token>', token) }, ...(body.length > 0 && { body }) });
    const json = (r.headers['content-type'] ?? '').includes('json') && r.text !== '' ? (r.json() as Json) : undefined;
    answers.push({ label: request.label, status: r.status, body: json, text: r.text });
    if (request.label === 'createNode') ids['FOLDER_ID'] = json!['entry'].id;
    if (request.label === 'uploadFile') ids['FILE_ID'] = json!['entry'].id;
  }
  const by = (label: string, nth = 0) => answers.filter((a) => a.label === label)[nth]!;
  const expected: [string, number][] = [
    ['getNode', 200], ['createNode', 201], ['listNodeChildren', 200], ['uploadFile', 201], ['updateNode', 200], ['updateNodeContent', 200],
    ['getNodeContent', 200], ['listVersionHistory', 200], ['revertVersion', 200], ['getRenditionContent', 200], ['createRendition', 202],
    ['listRenditions', 200], ['search', 200], ['deleteNode', 204], ['listDeletedNodes', 200], ['getDeletedNode', 200], ['restoreDeletedNode', 200],
    ['deleteDeletedNode', 204],
  ];
  for (const [label, status] of expected) assert.equal(by(label).status, status, `${label}: ${by(label).text.slice(0, 300)}`);
  assert.equal(by('deleteNode', 1).status, 204);

  const home = by('getNode').body!['entry'];
  assert.equal(home.path.name, '/Company Home/User Homes');
  assert.equal(home.permissions.isInheritanceEnabled, false);
  assert.deepEqual(home.allowableOperations, ['update', 'create', 'updatePermissions']);
  assert.deepEqual(by('listNodeChildren').body!['list'].entries.map((e: Json) => Object.keys(e.entry).sort()), [['id', 'name', 'path']]);
  const uploaded = by('uploadFile').body!['entry'];
  assert.equal(uploaded.name, 'hello.txt');
  assert.equal(uploaded.properties['cm:title'], 'Hello');
  assert.equal(by('updateNode').body!['entry'].properties['cm:description'], 'greets');
  assert.equal(by('updateNodeContent').body!['entry'].name, 'renamed.txt');
  assert.equal(by('getNodeContent').text, 'renamed body');
  assert.deepEqual(by('listVersionHistory').body!['list'].entries.map((e: Json) => e.entry.id), ['2.0', '1.0']);
  assert.equal(by('revertVersion').body!['entry'].id, '2.1');
  assert.match(by('getRenditionContent').text, /^<svg /);
  assert.deepEqual(by('search').body!['list'].entries.map((e: Json) => [e.entry.name, e.entry.path.name]), [['renamed.txt', '/Company Home/User Homes/user-42/Reports/sub/dir']]);
  assert.deepEqual(by('listDeletedNodes').body!['list'].entries.map((e: Json) => [e.entry.name, e.entry.path.name]), [['Reports', '/Company Home/User Homes/user-42']]);
  assert.equal(by('restoreDeletedNode').body!['entry'].name, 'Reports');
});
