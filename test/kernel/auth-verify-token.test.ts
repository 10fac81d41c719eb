import { test } from 'node:test';
import assert from 'node:assert/strict';
import { verifyToken, whichToken } from '../../src/kernel/auth/index.ts';

const TOKEN = 'op_3f8a1c9e0b7d4a62';

test('verifyToken() accepts a token equal to one accepted value', () => {
  const accepted: Array<readonly string[]> = [
    [TOKEN],
    ['op_other', TOKEN],
    [`op_other,${TOKEN}`],
    [` ${TOKEN} , op_other`],
  ];
  for (const list of accepted) assert.equal(verifyToken(TOKEN, list), true, JSON.stringify(list));
});

test('verifyToken() rejects anything but an exact match, without throwing on any length', () => {
  const cases: Array<[string | undefined, readonly string[]]> = [
    [undefined, [TOKEN]],
    ['', [TOKEN]],
    ['', ['']],
    ['', [',']],
    [TOKEN, []],
    [TOKEN, ['']],
    [TOKEN.slice(0, -1), [TOKEN]],
    [`${TOKEN}x`, [TOKEN]],
    [` ${TOKEN}`, [TOKEN]],
    [TOKEN.toUpperCase(), [TOKEN]],
    ['x'.repeat(100_000), [TOKEN]],
    [`${TOKEN},op_other`, [`${TOKEN},op_other`]],
    ['\ud800', ['\ufffd']],
    [[TOKEN] as unknown as string, [TOKEN]],
  ];
  for (const [presented, accepted] of cases) {
    assert.equal(verifyToken(presented, accepted), false, `${JSON.stringify(presented)?.slice(0, 40)} against ${JSON.stringify(accepted)}`);
  }
});

test('verifyToken() never throws on 2,000 random presented values', () => {
  let state = 0x70ce;
  const random = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 4294967296;
  const alphabet = ['a', 'Z', '0', '_', ',', ' ', '\0', 'é', '\ud800', '😀', TOKEN];
  for (let round = 0; round < 2000; round++) {
    const presented = Array.from({ length: Math.floor(random() * 8) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
    const expected = presented === TOKEN;
    assert.equal(verifyToken(presented, ['op_other', TOKEN]), expected, `round ${round}: ${JSON.stringify(presented)}`);
  }
});

test('verifyToken() checks a list changed in place against its new values, not the digests of the old ones', () => {
  const accepted = ['op_first_token_value', 'op_second_token_value'];
  assert.equal(verifyToken('op_second_token_value', accepted), true);
  accepted[1] = 'op_rotated_token_value';
  assert.equal(verifyToken('op_second_token_value', accepted), false);
  assert.equal(verifyToken('op_rotated_token_value', accepted), true);
  accepted.push('op_third_token_value,op_fourth_token_value');
  assert.equal(verifyToken('op_fourth_token_value', accepted), true);
  accepted.length = 1;
  assert.equal(verifyToken('op_rotated_token_value', accepted), false);
});

test('whichToken() names the first entry, in the given order, whose values include the token', () => {
  const accepted = { operator: ['op-1,op-2'], bff: ['bff-1'], shared: ['bff-1'], none: [] as string[] };
  const order = ['operator', 'bff', 'shared', 'none'] as const;
  assert.equal(whichToken('op-2', accepted, order), 'operator');
  assert.equal(whichToken('bff-1', accepted, order), 'bff', 'the first in order wins a token two entries share');
  assert.equal(whichToken('bff-1', accepted, ['shared', 'bff']), 'shared');
  for (const presented of [undefined, '', 'op-3', 'op-1,op-2', 'bff-1 ', '\uD800']) {
    assert.equal(whichToken(presented, accepted, order), undefined, JSON.stringify(presented));
  }
});
