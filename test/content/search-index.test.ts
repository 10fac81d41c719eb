import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, statement } from '../../src/kernel/index.ts';
import { CONTENT_EVENTS, MIGRATIONS, ROOT_NODE_ID, openContentDatabase } from '../../src/content/database.ts';
import { SYSTEM_ACTOR, createFile, updateMetadata } from '../../src/content/repository.ts';
import { indexNode } from '../../src/content/search-index.ts';
import { searchNodes } from '../../src/content/search.ts';

const USER = SYSTEM_ACTOR;
const page = { skipCount: 0, maxItems: 10 };
// Any file that exists stands in for the blob: this test is about the index.
const content = (text: string) => ({ sha256: 'a'.repeat(64), size: text.length, mimeType: 'text/plain', text, blobPath: import.meta.filename });
const names = (sqlite: Parameters<typeof searchNodes>[0], query: string) => searchNodes(sqlite, { query, paging: page }).rows.map((r) => r.node.name).sort();

function tempPath(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-content-index-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'content.sqlite');
}

test('a database made before search_rows gets them from its index rows, and later updates change the right row', async (t) => {
  const path = tempPath(t);
  // The schema as the first release made it: the index row of a node found by node_id only.
  const old = openDatabase(path, { migrations: MIGRATIONS.slice(0, 1), evidenceTables: [CONTENT_EVENTS] });
  await old.write((sqlite) => {
    const insert = statement(sqlite, `INSERT INTO nodes (id, parent_id, name, node_type, is_folder, created_at, created_by, modified_at, modified_by, properties) VALUES (?, ?, ?, ?, ?, 'x', '{}', 'x', '{}', '{}')`);
    insert.run(ROOT_NODE_ID, null, 'Company Home', 'cm:folder', 1);
    for (const [id, name] of [['n-1', 'alpha.txt'], ['n-2', 'bravo.txt']] as const) {
      insert.run(id, ROOT_NODE_ID, name, 'cm:content', 0);
      statement(sqlite, 'INSERT INTO search_index (node_id, name, metadata, body) VALUES (?, ?, ?, ?)').run(id, name, '', `body of ${name}`);
    }
    statement(sqlite, `INSERT INTO search_index (node_id, name, metadata, body) VALUES (?, 'Company Home', '', '')`).run(ROOT_NODE_ID);
  });
  await old.close();

  const store = await openContentDatabase(path);
  t.after(() => store.close());
  const rows = statement(store.sqlite, 'SELECT s.node_id, s.fts_rowid, i.node_id AS indexed FROM search_rows s JOIN search_index i ON i.rowid = s.fts_rowid ORDER BY s.node_id').all();
  assert.deepEqual(rows.map((r) => [r['node_id'], r['indexed']]), [[ROOT_NODE_ID, ROOT_NODE_ID], ['n-1', 'n-1'], ['n-2', 'n-2']]);

  await store.write((sqlite, tx) => updateMetadata(sqlite, tx, { nodeId: 'n-2', name: 'charlie.txt', properties: undefined, user: USER }));
  assert.deepEqual(names(store.sqlite, 'charlie'), ['charlie.txt']);
  assert.deepEqual(names(store.sqlite, 'bravo'), ['charlie.txt'], 'the body still says bravo');
  assert.deepEqual(names(store.sqlite, 'alpha'), ['alpha.txt'], 'the other node is untouched');
});

test('a new file is indexed by name and body, a new version replaces only its own body', async (t) => {
  const store = await openContentDatabase(tempPath(t));
  t.after(() => store.close());
  const file = (name: string, text: string) => store.write((sqlite, tx) => createFile(sqlite, tx, {
    parentId: ROOT_NODE_ID, name, relativePath: undefined, autoRename: false, overwrite: true, properties: {},
    content: content(text), version: { majorVersion: true, comment: undefined }, user: USER,
  }));
  await file('one.txt', 'delta echo');
  await file('two.txt', 'delta foxtrot');
  await file('one.txt', 'golf');
  assert.deepEqual(names(store.sqlite, 'delta'), ['two.txt']);
  assert.deepEqual(names(store.sqlite, 'golf'), ['one.txt']);
  assert.equal(Number(statement(store.sqlite, 'SELECT count(*) AS n FROM search_rows').get()!['n']), 3);
});

test('a database made before the prefix indexes gets its index rebuilt with them once, every row kept under its rowid', async (t) => {
  const path = tempPath(t);
  const before = MIGRATIONS.findIndex((m) => m.name === 'search prefix indexes and vocabulary');
  assert.ok(before > 0);
  const old = openDatabase(path, { migrations: MIGRATIONS.slice(0, before), evidenceTables: [CONTENT_EVENTS] });
  await old.write((sqlite) => {
    statement(sqlite, `INSERT INTO nodes (id, parent_id, name, name_key, node_type, is_folder, created_at, created_by, modified_at, modified_by, properties) VALUES (?, NULL, 'Company Home', 'company home', 'cm:folder', 1, 'x', '{}', 'x', '{}', '{}')`).run(ROOT_NODE_ID);
    indexNode(sqlite, { nodeId: ROOT_NODE_ID, name: 'Company Home', metadata: '', body: '' });
  });
  await old.close();
  const store = await openContentDatabase(path);
  t.after(() => store.close());
  const file = (name: string, text: string) => store.write((sqlite, tx) => createFile(sqlite, tx, {
    parentId: ROOT_NODE_ID, name, relativePath: undefined, autoRename: false, overwrite: true, properties: {},
    content: content(text), version: { majorVersion: true, comment: undefined }, user: USER,
  }));
  await file('quokka.txt', 'marsupial');
  const schema = String(statement(store.sqlite, `SELECT sql FROM sqlite_schema WHERE name = 'search_index'`).get()!['sql']);
  assert.match(schema, /prefix = '1 2 3 4'/);
  const rows = statement(store.sqlite, 'SELECT s.node_id, i.node_id AS indexed FROM search_rows s JOIN search_index i ON i.rowid = s.fts_rowid ORDER BY s.node_id').all();
  assert.equal(rows.length, 2);
  for (const row of rows) assert.equal(row['indexed'], row['node_id'], 'each node\'s index row kept its rowid');
  assert.deepEqual(names(store.sqlite, 'comp*'), ['Company Home'], 'a row indexed before: found by its prefix index');
  assert.deepEqual(names(store.sqlite, 'compan*'), ['Company Home'], 'and by the vocabulary');
  assert.deepEqual(names(store.sqlite, 'marsu*'), ['quokka.txt']);
});

test('new nodes get time-ordered ids (UUID version 7): in id order they are in the order they were made, so a search window of the newest nodes joins them from neighbouring pages', async (t) => {
  const store = await openContentDatabase(tempPath(t));
  t.after(() => store.close());
  const made: string[] = [];
  for (let i = 0; i < 40; i++) {
    made.push((await store.write((sqlite, tx) => createFile(sqlite, tx, {
      parentId: ROOT_NODE_ID, name: `ordered-${i}.txt`, relativePath: undefined, autoRename: false, overwrite: true, properties: {},
      content: content(`kilo ${i}`), version: { majorVersion: true, comment: undefined }, user: USER,
    }))).id);
  }
  for (const id of made) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.deepEqual([...made].sort(), made, 'ids sort in the order the nodes were made');
  // The newest nodes are the last entries of the index on id, which the search's join reads.
  const byId = statement(store.sqlite, `SELECT name FROM nodes WHERE name LIKE 'ordered-%' ORDER BY id DESC LIMIT 3`).all().map((r) => r['name']);
  assert.deepEqual(byId, ['ordered-39.txt', 'ordered-38.txt', 'ordered-37.txt']);
});
