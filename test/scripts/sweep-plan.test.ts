import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { planSweep } from '../../scripts/_sweep/plan.ts';
import { sampleValue } from '../../scripts/_sweep/sample-value.ts';
import { TARGET_OPENAPI_FILE } from './fixtures/sweep/test-target.ts';

const identity = (schema: unknown) => schema as Record<string, unknown>;

// [case, parameter, expected value or /reason pattern/, expected source]
const SAMPLES: [string, Record<string, unknown>, string | RegExp, string?][] = [
  ['parameter example wins over the schema', { name: 'id', example: 'x-1', schema: { type: 'integer', example: 5 } }, 'x-1', 'example'],
  ['first entry of an examples map', { name: 'id', examples: { first: { value: 'a' }, second: { value: 'b' } }, schema: { type: 'string' } }, 'a', 'examples.first'],
  ['schema const', { name: 'id', schema: { const: 'fixed' } }, 'fixed', 'schema.const'],
  ['schema example (numbers become text)', { name: 'id', schema: { type: 'integer', example: 42 } }, '42', 'schema.example'],
  ['first of schema examples (3.1 array)', { name: 'id', schema: { type: 'string', examples: ['e1', 'e2'] } }, 'e1', 'schema.examples'],
  ['schema default', { name: 'id', schema: { type: 'string', default: 'dflt' } }, 'dflt', 'schema.default'],
  ['first enum member', { name: 'lane', schema: { type: 'string', enum: ['create-session', 'answer-turn'] } }, 'create-session', 'schema.enum'],
  ['integer without bounds is 1', { name: 'n', schema: { type: 'integer' } }, '1', 'derived'],
  ['integer moved up to its minimum', { name: 'n', schema: { type: 'integer', minimum: 10 } }, '10', 'derived'],
  ['integer within an exclusive maximum below 1', { name: 'n', schema: { type: 'integer', minimum: -5, exclusiveMaximum: 0 } }, '-5', 'derived'],
  ['integer rounded up to its multipleOf', { name: 'n', schema: { type: 'integer', minimum: 3, multipleOf: 5 } }, '5', 'derived'],
  ['nullable integer by type list', { name: 'n', schema: { type: ['null', 'integer'] } }, '1', 'derived'],
  ['boolean', { name: 'b', schema: { type: 'boolean' } }, 'true', 'derived'],
  ['plain string', { name: 'session_id', schema: { type: 'string' } }, 'sample', 'derived'],
  ['string padded to its minLength', { name: 's', schema: { type: 'string', minLength: 9 } }, 'samplexxx', 'derived'],
  ['string cut to its maxLength', { name: 's', schema: { type: 'string', maxLength: 3 } }, 'sam', 'derived'],
  ['string matching its pattern', { name: 's', schema: { type: 'string', pattern: '^[a-z]+$' } }, 'sample', 'derived'],
  ['date format', { name: 'd', schema: { type: 'string', format: 'date' } }, '2024-01-01', 'derived'],
  ['uuid format, derived from the name', { name: 'tenant', schema: { type: 'string', format: 'uuid' } }, /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'derived'],
  ['no example and no schema', { name: 'id' }, /has no example and no schema/],
  ['a pattern the sample cannot meet', { name: 'code', schema: { type: 'string', pattern: '^[A-Z]{3}$' } }, /pattern "\^\[A-Z\]\{3\}\$" and no example/],
  ['an invalid pattern', { name: 'code', schema: { type: 'string', pattern: '(' } }, /not a valid regular expression/],
  ['an object type', { name: 'filter', schema: { type: 'object' } }, /type "object"/],
  ['integer bounds that exclude every value', { name: 'n', schema: { type: 'integer', minimum: 2, maximum: 1 } }, /bounds no integer sample satisfies/],
  ['maxLength 0', { name: 's', schema: { type: 'string', maxLength: 0 } }, /length bounds 0\.\.0/],
  ['an object example', { name: 'id', example: { a: 1 } }, /example that is not a string, number or boolean/],
];

for (const [name, parameter, expected, source] of SAMPLES) {
  test(`sampleValue() ${name}`, () => {
    const sample = sampleValue(parameter, identity);
    if (typeof expected === 'string') {
      assert.deepEqual(sample, { ok: true, value: expected, source });
    } else if (sample.ok) {
      assert.equal(source, 'derived', `unexpected success ${sample.value}`);
      assert.match(sample.value, expected);
    } else {
      assert.equal(source, undefined, `unexpected failure ${sample.reason}`);
      assert.match(sample.reason, expected);
    }
  });
}

test('sampleValue() gives the same uuid for the same name and another for another name', () => {
  const a1 = sampleValue({ name: 'a', schema: { type: 'string', format: 'uuid' } }, identity);
  const a2 = sampleValue({ name: 'a', schema: { type: 'string', format: 'uuid' } }, identity);
  const b = sampleValue({ name: 'b', schema: { type: 'string', format: 'uuid' } }, identity);
  assert.ok(a1.ok && a2.ok && b.ok);
  assert.equal(a1.value, a2.value);
  assert.notEqual(a1.value, b.value);
});

test('planSweep() keeps GET operations only, fills path parameters and marks what depends on samples', () => {
  const document = JSON.parse(readFileSync(TARGET_OPENAPI_FILE, 'utf8'));
  const plan = planSweep(document);
  assert.equal(plan.prefix, '');
  assert.equal(plan.filteredOut, 0);
  assert.ok(!plan.operations.some((o) => o.template === '/writes'), 'POST-only path skipped');
  const byTemplate = new Map(plan.operations.map((o) => [o.template, o]));
  assert.deepEqual(byTemplate.get('/items/{item_id}'), {
    method: 'GET', template: '/items/{item_id}', operationId: 'item', path: '/items/1', parameters: { item_id: '1' },
    sampleDependent: true, secured: false, readiness: false, unresolved: [],
  });
  assert.equal(byTemplate.get('/reports/{report_id}')?.path, '/reports/r-42');
  assert.equal(byTemplate.get('/ok')?.sampleDependent, false);
  assert.equal(byTemplate.get('/secure')?.secured, true);
  const unresolved = byTemplate.get('/unresolved/{code}');
  assert.equal(unresolved?.path, undefined);
  assert.equal(unresolved?.sampleDependent, true);
  assert.match(unresolved?.unresolved[0] ?? '', /pattern/);
});

test('planSweep() is deterministic: the same export gives the same plan', () => {
  const text = readFileSync(TARGET_OPENAPI_FILE, 'utf8');
  assert.deepEqual(planSweep(JSON.parse(text)), planSweep(JSON.parse(text)));
});

test('planSweep() resolves $refs, lets the operation override the path item, encodes values and adds required query parameters', () => {
  const document = {
    openapi: '3.0.3',
    servers: [{ url: 'https://{host}/base/{version}/', variables: { host: { default: 'example.org' }, version: { default: 'v2' } } }],
    security: [{ key: [] }],
    paths: {
      '/things/{thing}': {
        parameters: [{ $ref: '#/components/parameters/Thing' }],
        get: {
          parameters: [
            { name: 'thing', in: 'path', required: true, example: 'a b/c' },
            { name: 'tenant_id', in: 'query', required: true, schema: { $ref: '#/components/schemas/Tenant' } },
            { name: 'page', in: 'query', schema: { type: 'integer' } },
          ],
          security: [{}, { key: [] }],
        },
      },
      '/plain': { $ref: '#/components/pathItems/Plain' },
    },
    components: {
      parameters: { Thing: { name: 'thing', in: 'path', required: true, example: 'from-ref' } },
      schemas: { Tenant: { type: 'string', enum: ['t1', 't2'] } },
      pathItems: { Plain: { get: { operationId: 'plain' } } },
    },
  };
  const plan = planSweep(document);
  assert.equal(plan.prefix, '/base/v2');
  const [things, plain] = plan.operations;
  assert.equal(things?.path, '/things/a%20b%2Fc?tenant_id=t1');
  assert.deepEqual(things?.parameters, { thing: 'a b/c', tenant_id: 't1' });
  assert.equal(things?.secured, false, 'an empty requirement makes the credential optional');
  assert.equal(plain?.path, '/plain');
  assert.equal(plain?.secured, true, 'document-level security applies');
  assert.equal(plain?.sampleDependent, false);
});

test('planSweep() reports an undeclared path parameter and an unresolvable $ref', () => {
  const plan = planSweep({
    openapi: '3.1.0',
    paths: {
      '/a/{x}': { get: {} },
      '/b/{y}': { get: { parameters: [{ $ref: 'other.json#/y' }] } },
    },
  });
  assert.deepEqual(plan.operations.map((o) => o.unresolved), [
    ['Path parameter "x" is not declared'],
    ['A parameter cannot be resolved: {"$ref":"other.json#/y"}', 'Path parameter "y" is not declared'],
  ]);
  assert.ok(plan.operations.every((o) => o.path === undefined));
});

test('planSweep() applies --include and --exclude globs to the path template', () => {
  const document = JSON.parse(readFileSync(TARGET_OPENAPI_FILE, 'utf8'));
  const included = planSweep(document, { include: ['/limited/*', '/ok'] });
  assert.deepEqual(included.operations.map((o) => o.template), ['/ok', '/limited/after', '/limited/bare', '/limited/forever']);
  const excluded = planSweep(document, { include: ['/limited/*'], exclude: ['/limited/forever'] });
  assert.deepEqual(excluded.operations.map((o) => o.template), ['/limited/after', '/limited/bare']);
  assert.equal(excluded.filteredOut, 11);
  assert.equal(planSweep(document, { include: ['/**'] }).operations.length, 13, '** crosses segments');
});
