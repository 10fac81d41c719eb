import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkCompatibility, COMPATIBILITY_MODES, findNarrowings } from '../../src/governance/compatibility/index.ts';
import type { CompatibilityMode } from '../../src/governance/compatibility/index.ts';

type Schema = Record<string, unknown>;

const obj = (properties: Schema, extra: Schema = {}): Schema => ({ type: 'object', properties, ...extra });
const str = (extra: Schema = {}): Schema => ({ type: 'string', ...extra });

/** [rule, old, new, rules a BACKWARD check reports, rules a FORWARD check reports, pointer of the first message]. */
const RULES: [string, Schema, Schema, string[], string[], string][] = [
  ['required property added', obj({ a: str() }), obj({ a: str() }, { required: ['a'] }), ['required_property_added'], [], '/properties/a'],
  ['required property removed', obj({ a: str() }, { required: ['a'] }), obj({ a: str() }), [], ['required_property_removed'], '/properties/a'],
  ['type narrowed', { type: ['string', 'null'] }, { type: 'string' }, ['type_narrowed'], [], ''],
  ['type widened', { type: 'string' }, { type: ['string', 'null'] }, [], ['type_widened'], ''],
  ['integer widened to number', { type: 'integer' }, { type: 'number' }, [], ['type_widened'], ''],
  ['type narrowed below the root', obj({ zip: { type: ['string', 'integer'] } }), obj({ zip: { type: 'integer' } }), ['type_narrowed'], [], '/properties/zip'],
  ['enum tightened', str({ enum: ['a', 'b', 'c'] }), str({ enum: ['a', 'b'] }), ['enum_narrowed'], [], ''],
  ['enum widened', str({ enum: ['a', 'b'] }), str({ enum: ['a', 'b', 'c'] }), [], ['enum_widened'], ''],
  ['enum added', str(), str({ enum: ['a'] }), ['enum_narrowed'], [], ''],
  ['const added', str(), str({ const: 'a' }), ['const_narrowed'], [], ''],
  ['maxLength tightened', str({ maxLength: 40 }), str({ maxLength: 20 }), ['bound_tightened'], [], ''],
  ['maxLength relaxed', str({ maxLength: 20 }), str({ maxLength: 40 }), [], ['bound_relaxed'], ''],
  ['minimum raised', { type: 'number', minimum: 0 }, { type: 'number', minimum: 1 }, ['bound_tightened'], [], ''],
  ['minimum made exclusive', { type: 'number', minimum: 0 }, { type: 'number', exclusiveMinimum: 0 }, ['bound_tightened'], [], ''],
  ['maximum added', { type: 'number' }, { type: 'number', maximum: 9 }, ['bound_tightened'], [], ''],
  ['minItems raised', { type: 'array', minItems: 0 }, { type: 'array', minItems: 1 }, ['bound_tightened'], [], ''],
  ['maxProperties removed', { type: 'object', maxProperties: 3 }, { type: 'object' }, [], ['bound_relaxed'], ''],
  ['multipleOf tightened', { type: 'integer', multipleOf: 2 }, { type: 'integer', multipleOf: 4 }, ['bound_tightened'], [], ''],
  ['multipleOf relaxed', { type: 'integer', multipleOf: 4 }, { type: 'integer', multipleOf: 2 }, [], ['bound_relaxed'], ''],
  ['pattern added', str(), str({ pattern: '^[a-z]+$' }), ['pattern_tightened'], [], ''],
  ['pattern removed', str({ pattern: '^[a-z]+$' }), str(), [], ['pattern_relaxed'], ''],
  ['format added', str(), str({ format: 'uuid' }), ['format_tightened'], [], ''],
  ['uniqueItems added', { type: 'array' }, { type: 'array', uniqueItems: true }, ['unique_items_added'], [], ''],
  ['uniqueItems removed', { type: 'array', uniqueItems: true }, { type: 'array' }, [], ['unique_items_removed'], ''],
  ['content model closed', obj({ a: str() }), obj({ a: str() }, { additionalProperties: false }), ['content_model_closed'], [], '/additionalProperties'],
  ['content model opened', obj({ a: str() }, { additionalProperties: false }), obj({ a: str() }), [], ['content_model_opened'], '/additionalProperties'],
  ['property removed from a closed model', obj({ a: str(), b: str() }, { additionalProperties: false }), obj({ a: str() }, { additionalProperties: false }), ['property_removed_from_closed_model'], [], '/properties/b'],
  ['property added to a closed model', obj({ a: str() }, { additionalProperties: false }), obj({ a: str(), b: str() }, { additionalProperties: false }), [], ['property_added_to_closed_model'], '/properties/b'],
  ['constrained property added to an open model', obj({ a: str() }), obj({ a: str(), b: str() }), ['property_added_to_open_model'], [], '/properties/b'],
  ['constrained property removed from an open model', obj({ a: str(), b: str() }), obj({ a: str() }), [], ['property_removed_from_open_model'], '/properties/b'],
  ['items narrowed', { type: 'array', items: { type: ['string', 'number'] } }, { type: 'array', items: str() }, ['type_narrowed'], [], '/items'],
  ['anyOf branch removed', { anyOf: [str(), { type: 'number' }] }, { anyOf: [str()] }, ['combinator_narrowed'], [], '/anyOf'],
  ['anyOf branch added', { anyOf: [str()] }, { anyOf: [str(), { type: 'number' }] }, [], ['combinator_widened'], '/anyOf/1'],
  ['schema made false', obj({ a: str() }), obj({ a: false }), ['schema_rejects_everything'], [], '/properties/a'],
  ['a referenced definition tightened', { $defs: { name: str({ maxLength: 9 }) }, ...obj({ a: { $ref: '#/$defs/name' } }) }, { $defs: { name: str({ maxLength: 3 }) }, ...obj({ a: { $ref: '#/$defs/name' } }) }, ['bound_tightened'], [], '/$defs/name'],
  ['an unanalysed keyword added', str(), str({ not: { const: 'x' } }), ['unsupported_change'], [], ''],
];

const sorted = (rules: string[]) => [...rules].sort();

for (const [name, before, after, backward, forward, pointer] of RULES) {
  test(`checkCompatibility() when ${name}: BACKWARD ${backward.join(',') || 'compatible'}, FORWARD ${forward.join(',') || 'compatible'}`, () => {
    const previous = [{ version: '1', schema: before }];
    const b = checkCompatibility({ mode: 'BACKWARD', previous, proposed: after });
    const f = checkCompatibility({ mode: 'FORWARD', previous, proposed: after });
    assert.deepEqual(sorted(b.messages.map((m) => m.rule)), sorted(backward), `BACKWARD: ${JSON.stringify(b.messages)}`);
    assert.deepEqual(sorted(f.messages.map((m) => m.rule)), sorted(forward), `FORWARD: ${JSON.stringify(f.messages)}`);
    assert.equal(b.is_compatible, backward.length === 0);
    assert.equal(f.is_compatible, forward.length === 0);
    const first = [...b.messages, ...f.messages][0]!;
    assert.equal(first.pointer, pointer);
    assert.ok(first.message.includes(pointer === '' ? 'the root' : pointer), first.message);
    const full = checkCompatibility({ mode: 'FULL', previous, proposed: after });
    assert.deepEqual(sorted(full.messages.map((m) => m.rule)), sorted([...backward, ...forward]));
    const none = checkCompatibility({ mode: 'NONE', previous, proposed: after });
    assert.deepEqual([none.is_compatible, none.messages, none.compared_with], [true, [], []]);
  });
}

test('checkCompatibility() finds an identical schema compatible in every mode', () => {
  const schema = { $defs: { id: str({ pattern: '^[a-z]+$' }) }, ...obj({ id: { $ref: '#/$defs/id' }, n: { type: 'integer', minimum: 0 } }, { required: ['id'], additionalProperties: false }) };
  for (const mode of COMPATIBILITY_MODES) {
    assert.equal(checkCompatibility({ mode, previous: [{ version: '1', schema }], proposed: structuredClone(schema) }).is_compatible, true, mode);
  }
});

test('checkCompatibility() adding an unconstrained or nullable-widened property is compatible both ways', () => {
  const before = obj({ a: str() });
  for (const after of [obj({ a: str(), b: {} }), obj({ a: str(), b: true })]) {
    assert.equal(checkCompatibility({ mode: 'FULL', previous: [{ version: '1', schema: before }], proposed: after }).is_compatible, true, JSON.stringify(after));
  }
});

test('checkCompatibility() *_TRANSITIVE compares with every previous version, the plain modes only with the latest', () => {
  const previous = [
    { version: '1', schema: str({ maxLength: 30 }) },
    { version: '2', schema: str({ maxLength: 10 }) },
  ];
  const proposed = str({ maxLength: 20 });
  const run = (mode: CompatibilityMode) => checkCompatibility({ mode, previous, proposed });
  assert.deepEqual([run('BACKWARD').is_compatible, run('BACKWARD').compared_with], [true, ['2']]);
  const transitive = run('BACKWARD_TRANSITIVE');
  assert.deepEqual([transitive.is_compatible, transitive.compared_with], [false, ['1', '2']]);
  assert.deepEqual(transitive.messages.map((m) => [m.version, m.rule, m.direction]), [['1', 'bound_tightened', 'backward']]);
  assert.equal(run('FORWARD').is_compatible, false, 'version 2 cannot read 20 characters');
  assert.deepEqual(run('FULL_TRANSITIVE').messages.map((m) => [m.version, m.direction]), [['1', 'backward'], ['2', 'forward']]);
  assert.equal(run('FORWARD_TRANSITIVE').messages.length, 1);
});

test('checkCompatibility() names the pointer and the rule in each message, one message per breaking change', () => {
  const before = obj({ address: obj({ zip: str(), city: str() }) });
  const after = obj({ address: obj({ zip: { type: 'integer' }, city: str({ maxLength: 5 }) }, { required: ['zip'] }) });
  const result = checkCompatibility({ mode: 'BACKWARD', previous: [{ version: '1', schema: before }], proposed: after });
  assert.deepEqual(result.messages.map((m) => [m.rule, m.pointer]).sort(), [
    ['bound_tightened', '/properties/address/properties/city'],
    ['required_property_added', '/properties/address/properties/zip'],
    ['type_narrowed', '/properties/address/properties/zip'],
  ]);
  assert.match(result.messages.find((m) => m.rule === 'required_property_added')!.message, /^Added required property "zip" at \/properties\/address\/properties\/zip$/);
});

test('findNarrowings() resolves registry references through the resolver and reports one it cannot resolve', () => {
  const registry: Record<string, unknown> = { 'urn:x:base': { type: 'object', required: ['id'] } };
  const resolve = (uri: string) => registry[uri];
  assert.deepEqual(findNarrowings({ $ref: 'urn:x:base' }, { $ref: 'urn:x:base' }, { resolve }), []);
  assert.deepEqual(findNarrowings({ $ref: 'urn:x:base' }, { type: 'object' }, { resolve }).map((n) => n.kind), ['required']);
  assert.deepEqual(findNarrowings({ $ref: 'urn:x:gone' }, { type: 'object' }, { resolve }).map((n) => n.kind), ['unsupported']);
});

test('findNarrowings() terminates on recursive schemas', () => {
  const tree = { $defs: { node: obj({ children: { type: 'array', items: { $ref: '#/$defs/node' } } }) }, $ref: '#/$defs/node' };
  assert.deepEqual(findNarrowings(tree, structuredClone(tree)), []);
  assert.deepEqual(findNarrowings(tree, true).map((n) => n.kind), ['type', 'open_model_property']);
});

test('checkCompatibility() never calls a oneOf change compatible when a value matches two branches (issue 12)', () => {
  const previous = { oneOf: [{ type: 'string' }, { type: 'integer' }] };
  const proposed = { oneOf: [{ type: 'string' }, { type: 'integer' }, { type: 'number' }] };
  const result = checkCompatibility({ mode: 'BACKWARD', previous: [{ version: '1', schema: previous }], proposed });
  assert.equal(result.is_compatible, false, 'the value 1 is valid before and invalid after');
  // A branch that cannot be proven disjoint from the one that fits is unsupported, not compatible.
  const open = checkCompatibility({ mode: 'BACKWARD', previous: [{ version: '1', schema: { oneOf: [{ type: 'string' }] } }], proposed: { oneOf: [{ type: 'string' }, { minLength: 3 }] } });
  assert.equal(open.is_compatible, false);
  assert.ok(open.messages.every((m) => ['unsupported_change', 'combinator_narrowed'].includes(m.rule) || m.rule.length > 0));
  // Disjoint branches stay compatible.
  const widened = checkCompatibility({ mode: 'BACKWARD', previous: [{ version: '1', schema: { oneOf: [{ type: 'string' }] } }], proposed: { oneOf: [{ type: 'string' }, { type: 'boolean' }] } });
  assert.deepEqual(widened.messages, []);
});

test('checkCompatibility() takes anyOf:[string,integer] to type:[string,integer] as an equivalent rewrite, in every mode', () => {
  const before = { anyOf: [{ type: 'string' }, { type: 'integer' }] };
  const after = { type: ['string', 'integer'] };
  for (const mode of ['BACKWARD', 'FORWARD', 'FULL'] as const) {
    assert.deepEqual(checkCompatibility({ mode, previous: [{ version: '1', schema: before }], proposed: after }).messages, [], `${mode}, anyOf to type`);
    assert.deepEqual(checkCompatibility({ mode, previous: [{ version: '1', schema: after }], proposed: before }).messages, [], `${mode}, type to anyOf`);
  }
  assert.equal(checkCompatibility({ mode: 'BACKWARD', previous: [{ version: '1', schema: { anyOf: [{ type: 'string' }, { type: 'null' }] } }], proposed: { type: 'string' } }).is_compatible, false, 'a real narrowing still is one');
});

// [case, old, new, BACKWARD message, FORWARD message]: the verdict was right before, the types named were the writer's "any type".
const REF_RETARGETS: [string, Schema, Schema, string | undefined, string | undefined][] = (() => {
  const defs = { s: str(), i: { type: 'integer' }, si: { type: ['string', 'integer'] } };
  const at = (ref: string): Schema => ({ $defs: defs, ...obj({ x: { $ref: `#/$defs/${ref}` } }) });
  return [
    ['a $ref moved to a definition of another type', at('s'), at('i'), 'Narrowed type at /$defs/i: "string" no longer accepted', 'Widened type at /$defs/i: "integer" now accepted, which the previous version rejects'],
    ['a $ref moved to a narrower definition', at('si'), at('s'), 'Narrowed type at /$defs/s: "integer" no longer accepted', undefined],
    ['an inline type replaced by a $ref of another type', obj({ x: str() }), at('i'), 'Narrowed type at /$defs/i: "string" no longer accepted', 'Widened type at /$defs/i: "integer" now accepted, which the previous version rejects'],
    ['a $ref replaced by an inline type of another type', at('s'), obj({ x: { type: 'integer' } }), 'Narrowed type at /properties/x: "string" no longer accepted', 'Widened type at /properties/x: "integer" now accepted, which the previous version rejects'],
  ];
})();

for (const [name, previous, proposed, backward, forward] of REF_RETARGETS) {
  test(`checkCompatibility() names the types that changed when ${name}`, () => {
    for (const [mode, expected] of [['BACKWARD', backward], ['FORWARD', forward]] as const) {
      const result = checkCompatibility({ mode, previous: [{ version: 'v1', schema: previous }], proposed });
      assert.deepEqual(result.messages.map((m) => m.message), expected === undefined ? [] : [expected], mode);
    }
  });
}

test('checkCompatibility() answers in bounded time when references unfold exponentially: unsupported, not compatible', () => {
  // Each definition names the next twice: 5 KB that unfold into 2^30 schema pairs.
  const fan = (n: number) => {
    const defs: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) defs[`d${i}`] = { type: 'object', properties: { l: { $ref: `#/$defs/d${i + 1}` }, r: { $ref: `#/$defs/d${i + 1}` } } };
    defs[`d${n}`] = { type: 'string' };
    return { $ref: '#/$defs/d0', $defs: defs };
  };
  const started = Date.now();
  const result = checkCompatibility({ mode: 'BACKWARD', previous: [{ version: '1', schema: fan(30) }], proposed: fan(29) });
  assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
  assert.equal(result.is_compatible, false);
  assert.ok(result.messages.some((m) => /schema pairs to compare/.test(m.message)), JSON.stringify(result.messages));
});
