// compileSchema().validate(): where errors point (instancePath, schemaPath), which keyword
// they name, and what their messages say, for nested failures.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileSchema, type ValidationError } from '../../src/kernel/schema/index.ts';

const ORDER = {
  type: 'object',
  required: ['id', 'items'],
  properties: {
    id: { type: 'string', pattern: '^o-[0-9]+$' },
    items: { type: 'array', items: { $ref: '#/$defs/item' } },
  },
  unevaluatedProperties: false,
  $defs: {
    item: {
      type: 'object',
      required: ['name', 'qty'],
      properties: { name: { type: 'string' }, qty: { type: 'integer', minimum: 1 }, unit: { enum: ['kg', 'pcs'] } },
      additionalProperties: false,
    },
  },
};

function errorsOf(schema: unknown, instance: unknown, options = {}): readonly ValidationError[] {
  return compileSchema(schema, options).validate(instance).errors;
}

describe('compileSchema().validate() errors', () => {
  it('validate() reports each nested failure with its instance path, schema path, keyword and message', () => {
    const errors = errorsOf(ORDER, {
      id: 'x-1',
      items: [{ name: 'bolt', qty: 2 }, { name: 'nut', qty: 0, unit: 'box' }, { name: 7, qty: 1, colour: 'red' }],
      note: 'late',
    });
    assert.deepEqual(errors, [
      { instancePath: '/id', schemaPath: '/properties/id/pattern', keyword: 'pattern', message: 'Value at "/id" must match pattern "^o-[0-9]+$", got "x-1"' },
      { instancePath: '/items/1/qty', schemaPath: '/$defs/item/properties/qty/minimum', keyword: 'minimum', message: 'Value at "/items/1/qty" must be at least 1, got 0' },
      { instancePath: '/items/1/unit', schemaPath: '/$defs/item/properties/unit/enum', keyword: 'enum', message: 'Value at "/items/1/unit" must be one of "kg", "pcs", got "box"' },
      { instancePath: '/items/2/name', schemaPath: '/$defs/item/properties/name/type', keyword: 'type', message: 'Value at "/items/2/name" must be a string, got number' },
      { instancePath: '/items/2/colour', schemaPath: '/$defs/item/additionalProperties', keyword: 'additionalProperties', message: 'Value at "/items/2/colour" is not allowed: unexpected property "colour"' },
      { instancePath: '/note', schemaPath: '/unevaluatedProperties', keyword: 'unevaluatedProperties', message: 'Value at "/note" is not allowed: unexpected property "note"' },
    ]);
  });

  it('validate() names the object that misses a required property, and the root as "the root"', () => {
    assert.deepEqual(errorsOf(ORDER, { items: [{ qty: 1 }] }).map((e) => [e.instancePath, e.message]), [
      ['', 'Value at the root is missing required property "id"'],
      ['/items/0', 'Value at "/items/0" is missing required property "name"'],
    ]);
  });

  it('validate() keeps each error whole when it moves an object\'s missing required names before its members\' errors', () => {
    // Errors are kept in one flat log of records of different lengths (the location's tokens,
    // an unexpected member's name); moving the root's two records must not split any of them.
    const schema = {
      type: 'object',
      required: ['id', 'name'],
      properties: {
        id: { type: 'string' },
        items: { type: 'array', items: { type: 'object', required: ['q'], properties: { q: { type: 'integer' } }, additionalProperties: false } },
      },
      additionalProperties: false,
    };
    assert.deepEqual(errorsOf(schema, { items: [{ z: 1 }, { q: 'x' }], extra: true }).map((e) => [e.instancePath, e.schemaPath, e.message]), [
      ['', '/required', 'Value at the root is missing required property "id"'],
      ['', '/required', 'Value at the root is missing required property "name"'],
      ['/items/0', '/properties/items/items/required', 'Value at "/items/0" is missing required property "q"'],
      ['/items/0/z', '/properties/items/items/additionalProperties', 'Value at "/items/0/z" is not allowed: unexpected property "z"'],
      ['/items/1/q', '/properties/items/items/properties/q/type', 'Value at "/items/1/q" must be an integer, got string'],
      ['/extra', '/additionalProperties', 'Value at "/extra" is not allowed: unexpected property "extra"'],
    ]);
  });

  it('validate() with allErrors: false stops at the first error', () => {
    const errors = errorsOf(ORDER, { id: 1, items: 'none' }, { allErrors: false });
    assert.equal(errors.length, 1);
    assert.equal(errors[0]?.message, 'Value at "/id" must be a string, got number');
  });

  it('validate() returns no errors for a valid instance', () => {
    assert.deepEqual(compileSchema(ORDER).validate({ id: 'o-1', items: [{ name: 'a', qty: 3, unit: 'kg' }] }), { valid: true, errors: [] });
  });

  it('validate() reports a failed anyOf or oneOf once, without the errors of its branches', () => {
    const schema = { properties: { a: { anyOf: [{ type: 'string' }, { type: 'null' }] }, b: { oneOf: [{ minimum: 0 }, { maximum: 10 }] } } };
    assert.deepEqual(errorsOf(schema, { a: 1, b: 5 }), [
      { instancePath: '/a', schemaPath: '/properties/a/anyOf', keyword: 'anyOf', message: 'Value at "/a" must match at least one schema in anyOf' },
      { instancePath: '/b', schemaPath: '/properties/b/oneOf', keyword: 'oneOf', message: 'Value at "/b" must match exactly one schema in oneOf: matched 2 (0, 1)' },
    ]);
  });

  it('validate() reports then/else failures at their own schema path', () => {
    const schema = { if: { properties: { kind: { const: 'business' } } }, then: { required: ['vat'] }, else: { properties: { vat: false } } };
    assert.deepEqual(errorsOf(schema, { kind: 'business' }).map((e) => e.schemaPath), ['/then/required']);
    assert.deepEqual(errorsOf(schema, { kind: 'person', vat: 'x' }).map((e) => [e.instancePath, e.schemaPath, e.message]), [
      ['/vat', '/else/properties/vat', 'Value at "/vat" is not allowed: the schema at "/else/properties/vat" is false'],
    ]);
  });

  it('validate() gives the remote document in the schema path of a keyword found through a registry $ref', () => {
    const registry = { 'https://example.test/money.json': { type: 'number', multipleOf: 0.01 } };
    const errors = errorsOf({ properties: { price: { $ref: 'https://example.test/money.json' } } }, { price: 1.005 }, { registry });
    assert.deepEqual(errors, [{
      instancePath: '/price',
      schemaPath: 'https://example.test/money.json#/multipleOf',
      keyword: 'multipleOf',
      message: 'Value at "/price" must be a multiple of 0.01, got 1.005',
    }]);
  });

  it('validate() escapes "/" and "~" in instance paths', () => {
    const errors = errorsOf({ additionalProperties: { type: 'integer' } }, { 'a/b~c': 'x' });
    assert.equal(errors[0]?.instancePath, '/a~1b~0c');
    assert.equal(errors[0]?.message, 'Value at "/a~1b~0c" must be an integer, got string');
  });

  const messages: [string, unknown, unknown, string][] = [
    ['maxLength in code points', { maxLength: 2 }, '😀😀😀', 'Value at the root must be at most 2 characters long, got 3'],
    ['exclusiveMaximum', { exclusiveMaximum: 3 }, 3, 'Value at the root must be less than 3, got 3'],
    ['minItems', { minItems: 2 }, [1], 'Value at the root must have at least 2 items, got 1'],
    ['uniqueItems', { uniqueItems: true }, [{ a: 1 }, 2, { a: 1.0 }], 'Value at the root must have unique items: items 0 and 2 are equal'],
    ['contains', { contains: { type: 'string' } }, [1, 2], 'Value at the root must contain at least 1 matching item, found 0'],
    ['maxContains', { contains: { type: 'string' }, maxContains: 1 }, ['a', 'b'], 'Value at the root must contain at most 1 matching item, found 2'],
    ['propertyNames', { propertyNames: { maxLength: 3 } }, { long: 1 }, 'Value at the root has an invalid property name "long"'],
    ['dependentRequired', { dependentRequired: { card: ['cvc'] } }, { card: '4111' }, 'Value at the root must have property "cvc" when it has "card"'],
    ['not', { not: { type: 'null' } }, null, 'Value at the root must not match the schema in "not"'],
    ['const', { const: { v: 1 } }, { v: 2 }, 'Value at the root must be {"v":1}, got {"v":2}'],
    ['type list', { type: ['string', 'null'] }, 1, 'Value at the root must be one of types string, null, got number'],
    ['items false', { prefixItems: [true], items: false }, [1, 2], 'Value at "/1" is not allowed: unexpected item'],
  ];
  for (const [keyword, schema, instance, message] of messages) {
    it(`validate() describes a ${keyword} failure`, () => {
      assert.deepEqual(errorsOf(schema, instance).map((e) => e.message), [message]);
    });
  }

  it('validate() asserts formats only with formats: "assert"', () => {
    const schema = { format: 'email' };
    assert.equal(compileSchema(schema).validate('not an address').valid, true);
    assert.deepEqual(errorsOf(schema, 'not an address', { formats: 'assert' }).map((e) => e.message), [
      'Value at the root must be a valid email, got "not an address"',
    ]);
  });

  it('validate() can be called again and again with independent results', () => {
    const { validate } = compileSchema({ type: 'string' });
    const first = validate(1);
    assert.equal(validate('ok').valid, true);
    assert.equal(first.errors.length, 1);
  });

  it('validate() formats errors when they are first read, each result its own, and JSON.stringify includes them', () => {
    const { validate } = compileSchema(ORDER);
    const first = validate({ id: 7, items: [] });
    const second = validate({ id: 'o-1', items: [{ name: 'a', qty: 0 }], extra: true });
    assert.deepEqual(second.errors.map((e) => [e.instancePath, e.keyword]), [['/items/0/qty', 'minimum'], ['/extra', 'unevaluatedProperties']]);
    assert.deepEqual(first.errors, [
      { instancePath: '/id', schemaPath: '/properties/id/type', keyword: 'type', message: 'Value at "/id" must be a string, got number' },
    ]);
    assert.equal(first.errors, first.errors, 'read twice, the same list');
    assert.deepEqual(JSON.parse(JSON.stringify(first)), { valid: false, errors: first.errors });
    const { valid, errors } = second;
    assert.equal(valid, false);
    assert.equal(errors[1]?.message, 'Value at "/extra" is not allowed: unexpected property "extra"');
  });
});

describe('compileSchema() uniqueItems on large instances', () => {
  it('validate() finds the duplicate among 100 000 objects in one pass, keeping "{}" apart from {}', () => {
    const { validate } = compileSchema({ uniqueItems: true });
    const items: unknown[] = Array.from({ length: 100_000 }, (_, i) => ({ id: i, tags: ['a', i % 7] }));
    assert.equal(validate([...items, '{}', {}]).valid, true);
    const started = performance.now();
    const errors = validate([...items, { tags: ['a', 3], id: 3 }]).errors;
    assert.ok(performance.now() - started < 2000, 'uniqueItems must not compare pairwise');
    assert.deepEqual(errors.map((e) => e.message), ['Value at the root must have unique items: items 3 and 100000 are equal']);
  });
});
