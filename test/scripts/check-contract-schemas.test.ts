// scripts/check_contract_schemas.ts: finds the schemas of a contracts folder (standalone,
// OpenAPI, AsyncAPI), compiles them, exits 0 / 1 naming each failure / 2 without the folder.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test, type TestContext } from 'node:test';

const SCRIPT = join(import.meta.dirname, '..', '..', 'scripts', 'check_contract_schemas.ts');
const DIALECT = 'https://json-schema.org/draft/2020-12/schema';

function run(...args: string[]) {
  // process.execPath: the Node 26 that runs the tests, which strips the script's types.
  const result = spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A contracts folder holding `files` (path -> JSON value, or raw text). */
function contractsDir(t: TestContext, files: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-contracts-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  }
  return dir;
}

function openApi(orderSchema: unknown, responseRef: string) {
  return {
    openapi: '3.1.0',
    info: { title: 'Orders', version: '1' },
    paths: {
      '/orders': {
        post: {
          parameters: [{ name: 'dry_run', in: 'query', schema: { type: 'boolean' } }],
          requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Order' } } } },
          responses: {
            '201': { description: 'Created', content: { 'application/json': { schema: { $ref: responseRef } } } },
            '422': { description: 'Invalid', content: { 'application/problem+json': { schema: { type: 'object', properties: { errors: { type: 'array' } } } } } },
          },
        },
      },
    },
    components: { schemas: { Order: orderSchema, Receipt: { type: 'object', required: ['id'], properties: { id: { $ref: '../common.schema.json#/$defs/id' } } } } },
  };
}

function asyncApi(payloadPattern: string) {
  return {
    asyncapi: '3.0.0',
    info: { title: 'Order events', version: '1' },
    channels: {
      orders: { address: 'orders', messages: { created: { payload: { type: 'object', properties: { id: { type: 'string', pattern: payloadPattern } } } } } },
    },
    components: {
      schemas: { Amount: { type: 'integer', minimum: 0 } },
      messages: {
        cancelled: { headers: { type: 'object' }, payload: { $ref: '#/components/schemas/Amount' } },
        legacy: { payload: { schemaFormat: 'application/vnd.apache.avro;version=1.9.0', schema: { type: 'record' } } },
      },
    },
  };
}

const GOOD = {
  'common.schema.json': { $schema: DIALECT, $defs: { id: { type: 'string', pattern: '^o-[0-9]+$' } } },
  'api/orders.openapi.json': openApi({ type: 'object', properties: { id: { type: 'string' } }, unevaluatedProperties: false }, '#/components/schemas/Receipt'),
  'events/orders.asyncapi.json': asyncApi('^o-'),
  'api/orders_cdc_v1.json': { contract: 'orders_cdc', consumers: [{ consumer: 'billing', schema: 'not a schema' }] },
};

test('check_contract_schemas exits 0 when every standalone, OpenAPI and AsyncAPI schema compiles', (t) => {
  const dir = contractsDir(t, GOOD);
  const { code, stdout, stderr } = run('--dir', dir);
  assert.equal(code, 0, stdout + stderr);
  // 1 standalone + OpenAPI (2 components, 1 parameter, 1 request body, 2 responses) + AsyncAPI (1 component, 3 message parts).
  assert.equal(stdout, `11 schemas in 4 files under ${dir}: all compile\n`);
});

test('check_contract_schemas exits 1 naming each schema that fails, and a file that is not JSON', (t) => {
  const dir = contractsDir(t, {
    ...GOOD,
    'bad.schema.json': { $schema: DIALECT, properties: { name: { minLength: -1 } } },
    'api/orders.openapi.json': openApi({ type: 'strin' }, '#/components/schemas/Missing'),
    'events/orders.asyncapi.json': asyncApi('(unclosed'),
    'broken.json': '{ "openapi": ',
  });
  const { code, stdout } = run('--dir', dir);
  assert.equal(code, 1);
  const lines = stdout.trim().split('\n');
  assert.equal(lines.at(-1), `12 schemas in 6 files under ${dir}: 6 failed`);
  const named = lines.slice(0, -1).map((line) => line.slice(0, line.indexOf(': ')));
  assert.deepEqual(named, [
    `FAIL ${dir}/broken.json`,
    `FAIL ${dir}/api/orders.openapi.json#/components/schemas/Order`,
    // The request body fails too: it refers to the broken Order.
    `FAIL ${dir}/api/orders.openapi.json#/paths/~1orders/post/requestBody/content/application~1json/schema`,
    `FAIL ${dir}/api/orders.openapi.json#/paths/~1orders/post/responses/201/content/application~1json/schema`,
    `FAIL ${dir}/bad.schema.json#`,
    `FAIL ${dir}/events/orders.asyncapi.json#/channels/orders/messages/created/payload`,
  ]);
  assert.match(stdout, /schemas\/Order: Invalid schema at ".*orders\.openapi\.json#\/components\/schemas\/Order\/type": "strin" is not a type/);
  assert.match(stdout, /cannot resolve "#\/components\/schemas\/Missing"/);
  assert.match(stdout, /bad\.schema\.json#: Invalid schema at ".*bad\.schema\.json#\/properties\/name\/minLength": must be a non-negative integer, got -1/);
});

test('check_contract_schemas --json prints one document with the failures', (t) => {
  const dir = contractsDir(t, { ...GOOD, 'bad.schema.json': { $schema: DIALECT, type: 'strin' } });
  const { code, stdout } = run('--dir', dir, '--json');
  assert.equal(code, 1);
  const report = JSON.parse(stdout);
  assert.equal(report.ok, false);
  assert.equal(report.schemas, 12);
  assert.deepEqual(report.failures.map((f: { schema: string }) => f.schema), [`${dir}/bad.schema.json#`]);
});

test('check_contract_schemas exits 2 when the folder does not exist, and 0 for --help', (t) => {
  const dir = contractsDir(t, {});
  const missing = run('--dir', join(dir, 'absent'));
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /Cannot check contracts in ".*absent": no such folder/);
  const help = run('--help');
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: check_contract_schemas \[options\]/);
  assert.match(help.stdout, /--dir DIR/);
});
