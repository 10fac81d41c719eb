// Hostile AFTS against the search API: a query of many long prefixes (each expanded to up to
// 64 words, each distinct one its own read on the pool) is refused with a 400 naming the bound,
// instead of holding a read thread for seconds or filling the pool's queue (a 503 for everyone).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { send } from '../helpers/http.ts';
import { API, SEARCH, multipart, startContent } from './_service.ts';
import type { Harness } from './_service.ts';

let h: Harness;
const bearer = () => ({ authorization: `Bearer ${h.op.accessToken()}` });

before(async () => {
  h = await startContent();
  for (let n = 0; n < 3; n++) {
    const m = multipart([['name', `doc-${n}.txt`]], { name: `doc-${n}.txt`, content: `lexicon${n} report` });
    const r = await send(`${h.base}${API}/nodes/-root-/children`, { method: 'POST', headers: { ...bearer(), 'content-type': m.contentType }, body: m.body });
    assert.equal(r.status, 201, r.text);
  }
});
after(() => h.close());

async function search(query: string) {
  const r = await send(`${h.base}${SEARCH}`, { method: 'POST', headers: { ...bearer(), 'content-type': 'application/json' }, body: JSON.stringify({ query: { query, language: 'afts' } }) });
  const body = r.json() as { list?: { entries: { entry: { name: string } }[] }; error?: { briefSummary: string } };
  return { status: r.status, names: body.list?.entries.map((e) => e.entry.name).sort() ?? [], summary: body.error?.briefSummary ?? '' };
}

test('a query of more long prefixes than the pool can queue is a 400 naming the bound, not a 503', async () => {
  const distinct = Array.from({ length: 300 }, (_, i) => `lexicon${i}*`).join(' OR ').slice(0, 4000).replace(/ OR \S*$/, '');
  const repeated = `${'lexicon1* '.repeat(300)}report`;
  for (const query of [distinct, repeated]) {
    const r = await search(query);
    assert.equal(r.status, 400, r.summary);
    assert.match(r.summary, /at most 32 in one query/);
  }
});

test('ADF-style queries of a few long prefixes still answer', async () => {
  const word = (w: string) => `(cm:name:"${w}*" OR cm:title:"${w}*" OR cm:description:"${w}*" OR TEXT:"${w}*")`;
  assert.deepEqual((await search([word('lexicon'), word('report')].join(' AND '))).names, ['doc-0.txt', 'doc-1.txt', 'doc-2.txt']);
  assert.deepEqual((await search(Array.from({ length: 32 }, () => 'lexicon1*').join(' OR '))).names, ['doc-1.txt']);
});
