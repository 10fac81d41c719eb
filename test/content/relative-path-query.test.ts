// GET nodes/{id} and nodes/{id}/children take Alfresco's `relativePath` query parameter (getNode,
// listNodeChildren): the node, or the children of the folder, that the path names below nodeId.
// A path that names nothing is 404, never the children of nodeId itself.

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
  const m = multipart([['relativePath', 'reports/2026'], ['name', 'q1.txt']], { name: 'q1.txt', content: 'first quarter' });
  const r = await browser.request(`${h.base}${API}/nodes/-root-/children`, { method: 'POST', headers: { 'content-type': m.contentType }, body: m.body });
  assert.equal(r.status, 201);
});
after(() => h.close());

async function get(path: string): Promise<{ status: number; body: Json }> {
  const r = await browser.request(`${h.base}${API}${path}`);
  return { status: r.status, body: r.json() as Json };
}

test('GET children?relativePath= lists the folder the path names', async () => {
  const r = await get(`/nodes/-root-/children?relativePath=${encodeURIComponent('reports/2026')}`);
  assert.equal(r.status, 200);
  assert.deepEqual(r.body['list'].entries.map((e: Json) => e.entry.name), ['q1.txt']);
  const slashes = await get(`/nodes/-root-/children?relativePath=${encodeURIComponent('/reports//2026/')}`);
  assert.deepEqual(slashes.body['list'].entries.map((e: Json) => e.entry.name), ['q1.txt']);
});

test('GET nodes/{id}?relativePath= answers the node the path names', async () => {
  const r = await get(`/nodes/-root-?relativePath=${encodeURIComponent('reports/2026/q1.txt')}`);
  assert.equal(r.status, 200);
  assert.equal(r.body['entry'].name, 'q1.txt');
  assert.equal(r.body['entry'].isFile, true);
});

test('a relativePath that names nothing, or climbs with "..", is a 4xx, not the children of nodeId', async () => {
  for (const [path, status] of [['reports/1999', 404], ['reports/2026/q1.txt/deeper', 404], ['../etc', 400], ['reports/../reports', 400]] as const) {
    const r = await get(`/nodes/-root-/children?relativePath=${encodeURIComponent(path)}`);
    assert.equal(r.status, status, path);
    assert.equal(r.body['error'].statusCode, status);
  }
  const file = await get(`/nodes/-root-/children?relativePath=${encodeURIComponent('reports/2026/q1.txt')}`);
  assert.equal(file.status, 400, 'a file has no children');
});
