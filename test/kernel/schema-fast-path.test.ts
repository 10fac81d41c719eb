// The validator decides valid instances with tests that walk objects by for-in and scalar
// leaves kept as data (src/kernel/schema/_fused-test.ts, _scalar-leaf.ts). These cases are
// where such shortcuts could part from the checks: inherited members, a polluted
// Object.prototype, and the shared answer for valid instances.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileValidator } from '../../src/kernel/schema/compile-schema.ts';
import { compileSchema } from '../../src/kernel/schema/index.ts';

const CLOSED = { type: 'object', properties: { id: { type: 'string' } }, additionalProperties: false };
const NEEDS_EXTRA = { type: 'object', properties: { id: { type: 'string' }, extra: { type: 'integer' } }, required: ['extra'], unevaluatedProperties: false };
const TYPED_EXTRA = { type: 'object', properties: { extra: { type: 'string', maxLength: 3 } } };

/** Both validators, so that every case also holds for the checks alone. */
function verdicts(schema: unknown, instance: unknown): boolean[] {
  return [compileSchema(schema).validate(instance).valid, compileValidator(schema, { tests: false }).validate(instance).valid];
}

describe('compileSchema() on objects with inherited members', () => {
  const inherited = Object.create({ extra: 12345 }) as Record<string, unknown>;
  inherited['id'] = 'a';

  it('validate() ignores an inherited enumerable member where the schema closes the object', () => {
    assert.deepEqual(verdicts(CLOSED, inherited), [true, true]);
  });

  it('validate() does not count an inherited member as a required one', () => {
    assert.deepEqual(verdicts(NEEDS_EXTRA, inherited), [false, false]);
  });

  it('validate() does not check an inherited member against its property schema', () => {
    assert.deepEqual(verdicts(TYPED_EXTRA, inherited), [true, true]);
  });

  it('validate() sees through a polluted Object.prototype to the own members of a plain object', () => {
    Object.defineProperty(Object.prototype, 'extra', { value: 12345, enumerable: true, configurable: true, writable: true });
    try {
      const plain = JSON.parse('{"id":"a"}') as unknown;
      assert.deepEqual(verdicts(CLOSED, plain), [true, true]);
      assert.deepEqual(verdicts(NEEDS_EXTRA, plain), [false, false]);
      assert.deepEqual(verdicts(TYPED_EXTRA, plain), [true, true]);
    } finally {
      delete (Object.prototype as Record<string, unknown>)['extra'];
    }
    // And once it is clean again, a member of that name counts.
    assert.deepEqual(verdicts(NEEDS_EXTRA, { id: 'a', extra: 1 }), [true, true]);
  });

  it('validate() reads an own "__proto__" member as a member', () => {
    const instance = JSON.parse('{"__proto__": 7, "id": "a"}') as unknown;
    assert.deepEqual(verdicts(CLOSED, instance), [false, false]);
    assert.deepEqual(verdicts({ properties: { ['__proto__']: { type: 'string' } } }, instance), [false, false]);
  });
});

describe('compileSchema() answers for valid instances', () => {
  it('validate() gives every valid instance one frozen answer with no errors', () => {
    const { validate } = compileSchema({ type: 'integer' });
    const first = validate(1);
    assert.equal(first, validate(2));
    assert.deepEqual(first, { valid: true, errors: [] });
    assert.ok(Object.isFrozen(first) && Object.isFrozen(first.errors));
  });

  it('validate() still reports the errors of an invalid instance after valid ones', () => {
    const { validate } = compileSchema({ type: 'object', properties: { n: { type: 'integer', minimum: 0 } } });
    assert.equal(validate({ n: 1 }).valid, true);
    assert.deepEqual(validate({ n: -1 }).errors.map((e) => `${e.instancePath} ${e.keyword}`), ['/n minimum']);
  });
});

describe('compileSchema() uniqueItems on a long array validated again', () => {
  it('validate() answers for the array as it is now, not as an earlier call found it', () => {
    const { validate } = compileSchema({ type: 'array', uniqueItems: true, maxItems: 100 });
    const items: unknown[] = Array.from({ length: 40 }, (_, i) => ({ n: i }));
    items.push({ n: 7 });
    assert.deepEqual(validate(items).errors.map((e) => e.message), ['Value at the root must have unique items: items 7 and 40 are equal']);
    items.pop();
    assert.equal(validate(items).valid, true);
    items.push({ n: 3 });
    assert.deepEqual(validate(items).errors.map((e) => e.message), ['Value at the root must have unique items: items 3 and 40 are equal']);
    // Another keyword failing first must not leave a stale answer behind for the next call.
    const long = Array.from({ length: 101 }, (_, i) => i);
    assert.deepEqual(validate(long).errors.map((e) => e.keyword), ['maxItems']);
    long.length = 30;
    long.push(5);
    assert.deepEqual(validate(long).errors.map((e) => e.message), ['Value at the root must have unique items: items 5 and 30 are equal']);
  });
});
