import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { readFileSync } from 'node:fs';
import { CONTROL_SCHEMA_VERSION, GRAPH_SCHEMA_TABLES, openControlDatabase } from '../../src/semantic/control-schema.ts';
import { checkSchemaIntegrity, describeGraphSchema } from '../../src/semantic/schema-integrity.ts';
import { testStore } from './fixtures/semantic-fixtures.ts';

const CONTRACT = JSON.parse(readFileSync(new URL('../../contracts/semantic_control_schema_v1.json', import.meta.url), 'utf8')) as Record<string, unknown>;

test('contracts/semantic_control_schema_v1.json matches a freshly migrated control database', () => {
  const store = openControlDatabase(':memory:');
  try {
    const { objects, sha256 } = describeGraphSchema(store.sqlite);
    const expected = {
      user_version: CONTROL_SCHEMA_VERSION,
      covered_tables: [...GRAPH_SCHEMA_TABLES],
      tables: objects.filter((o) => o.type === 'table').map((o) => o.name),
      indexes: objects.filter((o) => o.type === 'index').map((o) => o.name),
      schema_sha256: sha256,
    };
    const committed = Object.fromEntries(Object.keys(expected).map((k) => [k, CONTRACT[k]]));
    assert.deepEqual(committed, expected, 'the migrations changed: update the contract (and add a migration, never edit the first one)');
  } finally {
    void store.close();
  }
});

test('checkSchemaIntegrity() passes on a migrated database', (t) => {
  const receipt = checkSchemaIntegrity(testStore(t).sqlite);
  assert.equal(receipt.status, 'pass', receipt.reasons.join('\n'));
  assert.deepEqual(receipt.isolation_domain_check, { columns: 3, domains: 16, matches_contract: true });
  assert.equal(receipt.observed_schema_sha256, receipt.expected_schema_sha256);
  assert.ok(receipt.tables.every((t) => t.present) && receipt.indexes.every((i) => i.present));
});

test('checkSchemaIntegrity() fails an unmigrated database', () => {
  const sqlite = new DatabaseSync(':memory:');
  const receipt = checkSchemaIntegrity(sqlite);
  assert.equal(receipt.status, 'fail');
  assert.match(receipt.reasons[0]!, /user_version is 0, expected 4: the control database is not migrated/);
  assert.ok(receipt.reasons.includes('schema object "graph_nodes" is missing'));
  sqlite.close();
});

test('checkSchemaIntegrity() finds a dropped index, a loosened CHECK constraint and an added trigger', (t) => {
  const cases: [string, string, RegExp][] = [
    ['dropped index', 'DROP INDEX graph_edges_hidden', /schema object "graph_edges_hidden" is missing/],
    ['added trigger', 'CREATE TRIGGER sneak AFTER INSERT ON graph_nodes BEGIN SELECT 1; END', /schema object "sneak" \(trigger\) is not expected/],
    ['loosened CHECK', "DROP TABLE graph_nodes; LOOSENED", /table "graph_nodes" restricts isolation_domain_ref to other domains than the contract lists/],
  ];
  for (const [name, sql, reason] of cases) {
    const store = testStore(t);
    const original = String(store.sqlite.prepare("SELECT sql FROM sqlite_schema WHERE name = 'graph_nodes'").get()?.['sql']);
    store.sqlite.exec(sql.replace('LOOSENED', original.replace("'telephony', ", "'telephony', 'anything', ")));
    const receipt = checkSchemaIntegrity(store.sqlite);
    assert.equal(receipt.status, 'fail', name);
    assert.ok(receipt.reasons.some((r) => reason.test(r)), `${name}: ${receipt.reasons.join('; ')}`);
    assert.ok(receipt.reasons.some((r) => /schema hash differs/.test(r)), name);
  }
});
