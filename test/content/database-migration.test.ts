// A database made before the permission model: its homes become their users' alone, User Homes
// the repository's, names get their case-insensitive NFC key, and every node its owner.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, statement } from '../../src/kernel/index.ts';
import { CONTENT_EVENTS, MIGRATIONS, ROOT_NODE_ID, openContentDatabase } from '../../src/content/database.ts';
import { permissionPolicy, permissionsOn } from '../../src/content/permissions.ts';
import type { NodeRow } from '../../src/content/node-entry.ts';

test('the permissions migration isolates the homes an older release made and keys names by NFC lower case', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-content-migration-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'content.sqlite');
  const old = openDatabase(path, { migrations: MIGRATIONS.slice(0, 2), evidenceTables: [CONTENT_EVENTS] });
  await old.write((sqlite) => {
    const insert = statement(sqlite, `INSERT INTO nodes (id, parent_id, name, node_type, is_folder, created_at, created_by, modified_at, modified_by, properties) VALUES (?, ?, ?, ?, ?, 'x', ?, 'x', ?, '{}')`);
    const by = (id: string) => JSON.stringify({ id, displayName: id });
    insert.run(ROOT_NODE_ID, null, 'Company Home', 'cm:folder', 1, by('System'), by('System'));
    // The old release made User Homes as whoever first asked for -my-.
    insert.run('homes', ROOT_NODE_ID, 'User Homes', 'cm:folder', 1, by('ada'), by('ada'));
    insert.run('home-ada', 'homes', 'ada', 'cm:folder', 1, by('ada'), by('ada'));
    insert.run('home-bob', 'homes', 'bob', 'cm:folder', 1, by('bob'), by('bob'));
    insert.run('cafe', 'home-ada', 'Cafe\u0301.TXT', 'cm:content', 0, by('ada'), by('ada'));
  });
  await old.close();
  const store = await openContentDatabase(path);
  t.after(() => store.close());
  const node = (id: string) => statement(store.sqlite, 'SELECT * FROM nodes WHERE id = ?').get(id) as unknown as NodeRow;
  assert.equal(node('homes').owner, null, 'nobody owns it');
  assert.equal(node(ROOT_NODE_ID).owner, null);
  assert.equal(node('home-ada').inherit_permissions, 0);
  assert.equal(node('cafe').name_key, 'caf\u00e9.txt');
  const policy = permissionPolicy({ writersGroup: 'writers', coordinatorsGroup: undefined });
  const bob = { id: 'bob', groups: ['writers'] };
  assert.equal(permissionsOn(store.sqlite, policy, node('home-ada'), bob).size, 0, 'bob has nothing in ada\'s home');
  assert.equal(permissionsOn(store.sqlite, policy, node('cafe'), bob).size, 0);
  assert.deepEqual([...permissionsOn(store.sqlite, policy, node('homes'), bob)], ['read'], 'User Homes: everyone reads, nobody writes');
  assert.ok(permissionsOn(store.sqlite, policy, node('home-bob'), bob).has('changePermissions'), 'bob is Coordinator of his own home');
});
