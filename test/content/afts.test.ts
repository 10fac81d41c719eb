// AFTS as Alfresco answers it: operators, parentheses, phrases, wildcards, fields, TYPE, ASPECT
// and date ranges over the search API, ADF's own query, and a clear 400 naming anything else.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAfts } from '../../src/content/afts-parse.ts';
import { compileAfts } from '../../src/content/afts-sql.ts';
import { send } from '../helpers/http.ts';
import { API, SEARCH, login, multipart, startContent } from './_service.ts';
import type { Harness } from './_service.ts';

let h: Harness;
const bearer = () => ({ authorization: `Bearer ${h.op.accessToken()}` });

before(async () => {
  h = await startContent();
  const files: [string, string, [string, string][]][] = [
    ['doc1.txt', 'zebrafish report alpha', []],
    ['doc2.txt', 'zebrafish beta', []],
    ['notes.md', 'quokka census on Tuesday', [['cm:title', 'Wildlife plan'], ['cm:description', 'Counting animals']]],
  ];
  for (const [name, content, fields] of files) {
    const m = multipart([['name', name], ...fields], { name, content });
    const r = await send(`${h.base}${API}/nodes/-root-/children`, { method: 'POST', headers: { ...bearer(), 'content-type': m.contentType }, body: m.body });
    assert.equal(r.status, 201, r.text);
  }
  const folder = await send(`${h.base}${API}/nodes/-root-/children`, { method: 'POST', headers: { ...bearer(), 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Zebra folder', nodeType: 'cm:folder' }) });
  assert.equal(folder.status, 201);
});
after(() => h.close());

async function search(query: string, filterQueries: string[] = []) {
  const r = await send(`${h.base}${SEARCH}`, { method: 'POST', headers: { ...bearer(), 'content-type': 'application/json' }, body: JSON.stringify({ query: { query, language: 'afts' }, ...(filterQueries.length > 0 && { filterQueries: filterQueries.map((q) => ({ query: q })) }) }) });
  const body = r.json() as { list?: { entries: { entry: { name: string } }[] }; error?: { briefSummary: string } };
  return { status: r.status, names: body.list?.entries.map((e) => e.entry.name).sort() ?? [], summary: body.error?.briefSummary ?? '' };
}

const today = new Date().toISOString().slice(0, 10);

test('AFTS operators, phrases, wildcards, fields, TYPE, ASPECT and ranges find what Alfresco would', async () => {
  const cases: [string, string[]][] = [
    ['zebrafish -doc1', ['doc2.txt']],
    ['zebrafish AND beta', ['doc2.txt']],
    ['alpha OR beta', ['doc1.txt', 'doc2.txt']],
    ['alpha or beta', ['doc1.txt', 'doc2.txt']],
    ['zebrafish NOT beta', ['doc1.txt']],
    ['zebrafish !beta', ['doc1.txt']],
    ['+zebrafish +alpha', ['doc1.txt']],
    ['(alpha OR beta) AND report', ['doc1.txt']],
    ['alpha || quokka', ['doc1.txt', 'notes.md']],
    ['"zebrafish report"', ['doc1.txt']],
    ['"report zebrafish"', []],
    ['zebra*', ['Zebra folder', 'doc1.txt', 'doc2.txt']],
    ['z?brafish', ['doc1.txt', 'doc2.txt']],
    ['qu*ka', ['notes.md']],
    ['qu?ka', []],
    ['cm:name:doc*', ['doc1.txt', 'doc2.txt']],
    ['cm:name:(doc1 OR notes)', ['doc1.txt', 'notes.md']],
    ['cm:title:wildlife', ['notes.md']],
    ['cm:description:wildlife', []],
    ['cm:description:count*', ['notes.md']],
    ['@cm:title:"wildlife plan"', ['notes.md']],
    ['TEXT:zebra*', ['doc1.txt', 'doc2.txt']],
    ['TYPE:"cm:folder" AND zebra*', ['Zebra folder']],
    ['zebra* AND -TYPE:"cm:folder"', ['doc1.txt', 'doc2.txt']],
    ['zebra* AND ASPECT:"cm:versionable"', ['doc1.txt', 'doc2.txt']],
    ['zebra* AND ASPECT:"sys:hidden"', []],
    ['zebra* AND cm:created:[MIN TO NOW]', ['Zebra folder', 'doc1.txt', 'doc2.txt']],
    [`zebra* AND cm:modified:[${today} TO ${today}]`, ['Zebra folder', 'doc1.txt', 'doc2.txt']],
    [`zebra* AND cm:created:{${today} TO MAX]`, []],
    ['zebra* AND cm:created:[2000-01-01 TO 2000-12-31]', []],
    // ADF's date-time range filter: `${field}:['${moment().format()}' TO '...']` (single quotes, an offset).
    [`zebra* AND cm:created:['${today}T00:00:00+01:00' TO '${today}T23:59:59+00:00']`, ['Zebra folder', 'doc1.txt', 'doc2.txt']],
    ["zebra* AND cm:created:['2000-01-01T00:00:00+00:00' TO '2000-12-31T23:59:59+00:00']", []],
    ['cm:name:"zebra*" OR TEXT:"zebra*"', ['Zebra folder', 'doc1.txt', 'doc2.txt']],
    // The Alfresco Content App's fields: name, title, description, TEXT and TAG (no node has a tag).
    ['(cm:name:"wild*" OR cm:title:"wild*" OR cm:description:"wild*" OR TEXT:"wild*" OR TAG:"wild*")', ['notes.md']],
    ['TAG:"zebra"', []],
    ['zebrafish AND NOT TAG:"x"', ['doc1.txt', 'doc2.txt']],
  ];
  for (const [query, names] of cases) {
    const r = await search(query);
    assert.equal(r.status, 200, `${query}: ${r.summary}`);
    assert.deepEqual(r.names, names, query);
  }
});

test('filterQueries are AFTS too, as ADF sends them', async () => {
  const adf = ["+TYPE:'cm:folder' OR +TYPE:'cm:content'", '-TYPE:"cm:thumbnail" AND -TYPE:"cm:failedThumbnail" AND -TYPE:"cm:rating"', '-ASPECT:"st:siteContainer" AND -ASPECT:"sys:hidden"'];
  assert.deepEqual((await search('cm:name:"zebra*" OR TEXT:"zebra*"', adf)).names, ['Zebra folder', 'doc1.txt', 'doc2.txt']);
  assert.deepEqual((await search('zebra*', ['TYPE:"cm:content"', 'cm:name:doc2*'])).names, ['doc2.txt']);
});

test('anything else is a 400 that names it, never words', async () => {
  const refused: [string, RegExp][] = [
    ['PATH:"/app:company_home//*"', /the field PATH:/],
    ['cm:creator:bob', /the field cm:creator:/],
    ['zebra~2', /fuzzy/],
    ['zebra^3', /boost/],
    ['=zebrafish', /exact match/],
    ['*fish', /starts with a wildcard/],
    ['(zebra', /without its "\)"/],
    ['zebra)', /without its "\("/],
    ['"unterminated', /unterminated phrase/],
    ['cm:created:2026', /without a range/],
    ['cm:name:[a TO b]', /a range on cm:name:/],
    ['zebra AND cm:created:[yesterday TO NOW]', /range bound "yesterday"/],
    ['-zebra', /must name a word/],
    ['TYPE:"cm:content"', /must name a word/],
    ['zebra OR TYPE:"cm:folder"', /must name a word/],
    ['zebra AND', /ends with an operator/],
    ['"zeb* fish"', /inside a phrase/],
    // Deep nesting is refused before the parser's recursion can overflow the stack (a 500 before).
    [`${'('.repeat(2045)}zebra${')'.repeat(2045)}`, /nested deeper than 64/],
    [`${'NOT ('.repeat(800)}zebra`, /nested deeper than 64/],
    [`${'('.repeat(4090)}zebra`, /nested deeper than 64/],
  ];
  for (const [query, reason] of refused) {
    const r = await search(query);
    assert.equal(r.status, 400, query);
    assert.match(r.summary, /^Unsupported AFTS: /, query);
    assert.match(r.summary, reason, query);
  }
  const filter = await search('zebra', ['cm:owner:bob']);
  assert.equal(filter.status, 400);
  assert.match(filter.summary, /cm:owner/);
});

test('share UI search: a deeply nested query is a 400 page, not a 500', async () => {
  const browser = (await login(h)).browser;
  const r = await browser.get(`${h.base}/share/search?q=${encodeURIComponent('('.repeat(4000))}`);
  assert.equal(r.status, 400, r.text.slice(0, 300));
  assert.match(r.text, /nested deeper than 64/);
});

test('parseAfts(): precedence is NOT over AND over OR; juxtaposition is AND', () => {
  assert.deepEqual(parseAfts('a b OR c'), { kind: 'or', nodes: [{ kind: 'and', nodes: [{ kind: 'text', field: 'all', terms: ['a'], phrase: false }, { kind: 'text', field: 'all', terms: ['b'], phrase: false }] }, { kind: 'text', field: 'all', terms: ['c'], phrase: false }] });
  assert.deepEqual(parseAfts('NOT a AND b'), { kind: 'and', nodes: [{ kind: 'not', node: { kind: 'text', field: 'all', terms: ['a'], phrase: false } }, { kind: 'text', field: 'all', terms: ['b'], phrase: false }] });
  assert.deepEqual(parseAfts('report.txt'), { kind: 'text', field: 'all', terms: ['report', 'txt'], phrase: true });
});

test('compileAfts(): a repeated word or prefix is looked up once, not once per repeat', () => {
  const words = { words: Array.from({ length: 64 }, (_, i) => `lexicon1${i}`), complete: false };
  const expansions = new Map([['lexicon1', words]]);
  const once = compileAfts(parseAfts('lexicon1*'), expansions).candidates;
  for (const query of ['lexicon1* OR lexicon1*', 'lexicon1* lexicon1* lexicon1*', '(lexicon1* OR lexicon1*) AND lexicon1*']) {
    assert.equal(compileAfts(parseAfts(query), expansions).candidates.split('lexicon10"').length - 1, 1, query);
  }
  assert.equal(once.split('lexicon10"').length - 1, 1);
  // Different words are all kept.
  assert.match(compileAfts(parseAfts('alpha OR beta OR alpha'), new Map()).candidates, /alpha.*beta/);
  // Beside a negation (not answered by the index alone) the positive words are deduplicated too.
  assert.equal(compileAfts(parseAfts('(lexicon1* OR lexicon1*) -zulu'), expansions).candidates.split('lexicon10"').length - 1, 1);
});
