import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJson } from '../../src/kernel/store/canonical-json.ts';
import { rowHash, rowHashOfTexts } from '../../src/kernel/store/row-hash.ts';

/** RFC 8785 appendix B: IEEE 754 bit patterns and their required serialization. */
const RFC_8785_NUMBERS: Array<[string, string]> = [
  ['0000000000000000', '0'],
  ['8000000000000000', '0'],
  ['0000000000000001', '5e-324'],
  ['8000000000000001', '-5e-324'],
  ['7fefffffffffffff', '1.7976931348623157e+308'],
  ['ffefffffffffffff', '-1.7976931348623157e+308'],
  ['4340000000000000', '9007199254740992'],
  ['c340000000000000', '-9007199254740992'],
  ['4430000000000000', '295147905179352830000'],
  ['44b52d02c7e14af5', '9.999999999999997e+22'],
  ['44b52d02c7e14af6', '1e+23'],
  ['44b52d02c7e14af7', '1.0000000000000001e+23'],
  ['444b1ae4d6e2ef4e', '999999999999999700000'],
  ['444b1ae4d6e2ef4f', '999999999999999900000'],
  ['444b1ae4d6e2ef50', '1e+21'],
  ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
  ['3eb0c6f7a0b5ed8d', '0.000001'],
  ['41b3de4355555553', '333333333.3333332'],
  ['41b3de4355555554', '333333333.33333325'],
  ['41b3de4355555555', '333333333.3333333'],
  ['41b3de4355555556', '333333333.3333334'],
  ['41b3de4355555557', '333333333.33333343'],
  ['becbf647612f3696', '-0.0000033333333333333333'],
  ['43143ff3c1cb0959', '1424953923781206.2'],
];

function fromBits(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

for (const [bits, expected] of RFC_8785_NUMBERS) {
  test(`canonicalJson() serializes the RFC 8785 number 0x${bits} as ${expected}`, () => {
    assert.equal(canonicalJson(fromBits(bits)), expected);
  });
}

test('canonicalJson() serializes 1e21, 1e-7 and -0 in ECMAScript form', () => {
  assert.equal(canonicalJson([1e21, 1e-7, -0, 1e20, 4.5, 0.002]), '[1e+21,1e-7,0,100000000000000000000,4.5,0.002]');
});

test('canonicalJson() sorts keys by UTF-16 code units as in RFC 8785 section 3.2.3', () => {
  const input = {
    '\u20ac': 'Euro Sign',
    '\r': 'Carriage Return',
    '\ufb33': 'Hebrew Letter Dalet With Dagesh',
    '1': 'One',
    '\ud83d\ude00': 'Emoji: Grinning Face',
    '\u0080': 'Control',
    '\u00f6': 'Latin Small Letter O With Diaeresis',
  };
  const expected =
    '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
    '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}';
  assert.equal(canonicalJson(input), expected);
});

test('canonicalJson() reproduces the RFC 8785 section 3.2.4 example byte for byte', () => {
  const input = JSON.parse(
    '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],' +
      '"string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",' +
      '"literals": [null, true, false]}',
  );
  const expected =
    '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
    '"string":"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}';
  assert.equal(canonicalJson(input), expected);
  // The RFC gives the UTF-8 bytes of the result too (appendix, "Resulting UTF-8").
  assert.equal(
    Buffer.from(canonicalJson(input)).toString('hex'),
    '7b226c69746572616c73223a5b6e756c6c2c747275652c66616c73655d2c226e756d62657273223a5b3333333333333333' +
      '332e333333333333332c31652b33302c342e352c302e3030322c31652d32375d2c22737472696e67223a22e282ac245c75' +
      '303030665c6e4127425c225c5c5c5c5c222f227d',
  );
});

test('canonicalJson() sorts nested objects and keeps array order', () => {
  assert.equal(canonicalJson({ b: [{ z: 1, a: 2 }, 3], a: {} }), '{"a":{},"b":[{"a":2,"z":1},3]}');
});

test('canonicalJson() accepts objects without a prototype', () => {
  const bare = Object.create(null) as Record<string, unknown>;
  bare['k'] = 'v';
  assert.equal(canonicalJson(bare), '{"k":"v"}');
});

const REJECTED: Array<[string, unknown, RegExp]> = [
  ['NaN', NaN, /\$: NaN is not a JSON number/],
  ['Infinity', { a: [Infinity] }, /\$\.a\[0\]: Infinity is not a JSON number/],
  ['-Infinity', -Infinity, /-Infinity is not a JSON number/],
  ['undefined', { a: undefined }, /\$\.a: a undefined is not JSON/],
  ['a function', [() => 1], /\$\[0\]: a function is not JSON/],
  ['a bigint', 1n, /a bigint is not JSON/],
  ['a symbol', Symbol('s'), /a symbol is not JSON/],
  ['a Date', { at: new Date(0) }, /\$\.at: a Date is not plain JSON data/],
  ['a Map', new Map(), /a Map is not plain JSON data/],
  ['a lone high surrogate', '\ud800x', /string has a lone surrogate/],
  ['a lone low surrogate in a key', { '\udc00': 1 }, /string has a lone surrogate/],
];

for (const [label, input, message] of REJECTED) {
  test(`canonicalJson() rejects ${label} with a TypeError`, () => {
    assert.throws(() => canonicalJson(input), (error: unknown) => error instanceof TypeError && message.test(error.message));
  });
}

test('canonicalJson() rejects a cycle', () => {
  const cyclic: Record<string, unknown> = {};
  cyclic['self'] = cyclic;
  assert.throws(() => canonicalJson(cyclic), /value is cyclic/);
});

test('canonicalJson() accepts the same object twice when it is not a cycle', () => {
  const shared = { x: 1 };
  assert.equal(canonicalJson([shared, shared]), '[{"x":1},{"x":1}]');
});

test('canonicalJson() refuses a sparse array instead of writing invalid JSON', () => {
  assert.throws(() => canonicalJson([1, , 2]), /Cannot canonicalize .*\[1\]: the array has a hole/);
});

test('rowHashOfTexts() over canonical member texts equals rowHash() over the values, for every kind of member', () => {
  const payloads: unknown[] = [
    null, true, 0, -0, 1e21, 1e-7, -1.5, 5e-324, 1.7976931348623157e308, '', '\u0000\u001f"\\\u2028\u007f', '😀é\ufeff',
    [], {}, [1, [2, { b: 1, a: [{}] }]], { '\ue000': 1, '😀': 2, Z: 3, a: 4, '': 5, payload: 6, seq: 7 },
  ];
  for (const payload of payloads) {
    const columns = { a: 'x\n', pa: -0, payloadx: 1e21, seqq: '😀', zz: '' };
    const fields = { ...columns, seq: 12, recorded_at: '2026-01-01T00:00:00.000Z', prev_sha256: '0'.repeat(64), payload };
    const texts = Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, canonicalJson(value)]));
    assert.equal(rowHashOfTexts(texts as never), rowHash(fields as never), JSON.stringify(payload));
  }
});
