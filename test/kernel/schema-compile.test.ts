// compileSchema(): an invalid schema fails at compile time with AirlockError 'schema_compile'
// naming the location of the bad part; registry, $schema and format options behave as documented.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isAirlockError } from '../../src/kernel/errors.ts';
import { compileSchema, type CompileOptions } from '../../src/kernel/schema/index.ts';

function compileFailure(schema: unknown, options?: CompileOptions): { location: string | undefined; message: string } {
  try {
    compileSchema(schema, options);
  } catch (error) {
    assert.ok(isAirlockError(error, 'schema_compile'), `expected a schema_compile AirlockError, got ${String(error)}`);
    return { location: error.details[0], message: error.message };
  }
  assert.fail('compileSchema() accepted an invalid schema');
}

describe('compileSchema() on invalid schemas', () => {
  const REMOTE = { 'https://example.test/bad.json': { $defs: { n: { minimum: 'zero' } } } };
  const cases: [string, unknown, string, RegExp, CompileOptions?][] = [
    ['a number where a schema is required', { properties: { a: 5 } }, '/properties/a', /must be a schema \(an object or a boolean\), got number/],
    ['a string as items', { items: 'string' }, '/items', /must be a schema/],
    ['a $ref to nothing', { properties: { a: { $ref: '#/$defs/missing' } } }, '/properties/a/$ref', /cannot resolve "#\/\$defs\/missing": nothing at "\/\$defs\/missing" in this schema/],
    ['a $ref to an unknown document', { $ref: 'https://example.test/none.json' }, '/$ref', /no schema "https:\/\/example.test\/none.json" is known/],
    ['a $ref to an unknown anchor', { $ref: '#nowhere' }, '/$ref', /no anchor "nowhere"/],
    ['a bad regular expression in pattern', { pattern: '(' }, '/pattern', /"\(" is not a valid regular expression/],
    ['a bad regular expression in patternProperties', { patternProperties: { '[': true } }, '/patternProperties/[', /not a valid regular expression/],
    ['a negative minLength', { minLength: -1 }, '/minLength', /must be a non-negative integer, got -1/],
    ['an unknown type', { type: ['string', 'text'] }, '/type', /"text" is not a type/],
    ['an empty allOf', { allOf: [] }, '/allOf', /must be a non-empty array of schemas/],
    ['a non-string in required', { required: ['a', 1] }, '/required', /must be an array of strings/],
    ['zero as multipleOf', { multipleOf: 0 }, '/multipleOf', /must be greater than 0/],
    ['a broken definition nothing references', { $defs: { unused: { type: 5 } } }, '/$defs/unused/type', /5 is not a type/],
    ['an $id with a fragment', { $defs: { a: { $id: 'https://example.test/a#frag' } } }, '/$defs/a/$id', /must not have a fragment/],
    ['a malformed anchor', { $anchor: '1st' }, '/$anchor', /"1st" is not a valid anchor name/],
    ['an unknown $schema', { $schema: 'http://json-schema.org/draft-07/schema#' }, '/$schema', /unknown \$schema/],
    ['a bad keyword in a registry document', { $ref: 'https://example.test/bad.json#/$defs/n' }, 'https://example.test/bad.json#/$defs/n/minimum', /must be a number/, { registry: REMOTE }],
    ['a format that cannot be asserted', { format: 'idn-email' }, '/format', /format "idn-email" cannot be asserted/, { formats: 'assert' }],
    ['a root that is not a schema', 'string', '', /^Invalid schema at the root: must be a schema/],
  ];
  for (const [what, schema, location, message, options] of cases) {
    it(`compileSchema() rejects ${what} at "${location}"`, () => {
      const failure = compileFailure(schema, options);
      assert.equal(failure.location, location);
      assert.match(failure.message, message);
    });
  }

  it('compileSchema() throws a TypeError for a formats option it does not know', () => {
    assert.throws(() => compileSchema({}, { formats: 'strict' as 'assert' }), { name: 'TypeError', message: 'Option formats must be "annotate" or "assert", got "strict"' });
  });

  it('compileSchema() compiles boolean schemas; false rejects everything', () => {
    assert.equal(compileSchema(true).validate({ any: 'thing' }).valid, true);
    assert.deepEqual(compileSchema(false).validate(1).errors, [
      { instancePath: '', schemaPath: '', keyword: 'false', message: 'Value at the root is not allowed: the schema is false' },
    ]);
  });

  it('compileSchema() accepts an unknown format when formats are annotations', () => {
    assert.equal(compileSchema({ format: 'idn-email' }).validate('x').valid, true);
  });
});

describe('compileSchema() registry and dialects', () => {
  const address = { $id: 'https://example.test/address.json', type: 'object', required: ['city'] };

  it('compileSchema() resolves a $ref through a Map registry or a plain-object registry', () => {
    for (const registry of [new Map([['https://example.test/address.json', address]]), { 'https://example.test/address.json': address }]) {
      const { validate } = compileSchema({ $ref: 'https://example.test/address.json' }, { registry });
      assert.equal(validate({ city: 'Ghent' }).valid, true);
      assert.equal(validate({}).valid, false);
    }
  });

  it('compileSchema() finds a registry document under its $id as well as its key', () => {
    const registry = { 'file:///contracts/address.json': address };
    assert.equal(compileSchema({ $ref: 'https://example.test/address.json' }, { registry }).validate({}).valid, false);
    assert.equal(compileSchema({ $ref: 'file:///contracts/address.json' }, { registry }).validate({}).valid, false);
  });

  it('compileSchema() validates schemas against the built-in 2020-12 metaschema', () => {
    const { validate } = compileSchema({ $ref: 'https://json-schema.org/draft/2020-12/schema' });
    assert.equal(validate({ type: 'string', minLength: 1 }).valid, true);
    assert.equal(validate({ properties: { a: { type: 'text' } } }).valid, false);
    assert.equal(validate({ $defs: { a: { minLength: -1 } } }).valid, false);
  });

  it('compileSchema() ignores keywords of vocabularies the $schema dialect leaves out', () => {
    const registry = {
      'https://example.test/no-validation': {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        $vocabulary: { 'https://json-schema.org/draft/2020-12/vocab/core': true, 'https://json-schema.org/draft/2020-12/vocab/applicator': true },
      },
    };
    const { validate } = compileSchema({ $schema: 'https://example.test/no-validation', properties: { a: false }, minProperties: 5 }, { registry });
    assert.equal(validate({}).valid, true);
    assert.equal(validate({ a: 1 }).valid, false);
  });

  it('compileSchema() rejects a dialect that requires an unknown vocabulary', () => {
    const registry = { 'https://example.test/custom': { $vocabulary: { 'https://example.test/vocab/money': true } } };
    const failure = compileFailure({ $schema: 'https://example.test/custom' }, { registry });
    assert.equal(failure.location, 'https://example.test/custom#/$vocabulary');
    assert.match(failure.message, /required vocabulary "https:\/\/example.test\/vocab\/money" is not supported/);
  });

  it('compileSchema() compiles recursive schemas and validates deep instances', () => {
    const tree = { type: 'object', properties: { children: { type: 'array', items: { $ref: '#' } } }, unevaluatedProperties: false };
    const { validate } = compileSchema(tree);
    assert.equal(validate({ children: [{ children: [{ children: [] }] }] }).valid, true);
    assert.deepEqual(validate({ children: [{ children: [{ name: 'x' }] }] }).errors.map((e) => e.instancePath), ['/children/0/children/0/name']);
  });
});
