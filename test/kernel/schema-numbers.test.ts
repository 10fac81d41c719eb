// multipleOfTest() and isMultipleOf(): multiples computed on decimal values, and the fast
// path for decimal divisors agreeing with the exact BigInt one. codePointLength(): surrogates.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { codePointLength, isMultipleOf, multipleOfTest } from '../../src/kernel/schema/_numbers.ts';

describe('isMultipleOf()', () => {
  const cases: [number, number, boolean][] = [
    [0.0075, 0.0001, true], [0.00751, 0.0001, false], [3.99, 0.01, true], [3.999, 0.01, false], [12.5, 0.5, true],
    [1e308, 0.5, true], [4.5, 1.5, true], [4, 1.5, false], [-0.02, 0.01, true], [0.3, 0.1, true],
    [0.30000000000000004, 0.1, false], [2 ** 60, 3, false], [2 ** 60, 2, true], [1e-9, 1e-8, false],
  ];
  for (const [value, divisor, expected] of cases) {
    it(`isMultipleOf() says ${value} is ${expected ? '' : 'not '}a multiple of ${divisor}, and so does multipleOfTest()`, () => {
      assert.equal(isMultipleOf(value, divisor), expected);
      assert.equal(multipleOfTest(divisor)(value), expected);
    });
  }

  it('multipleOfTest() agrees with isMultipleOf() across values and divisors', () => {
    const divisors = [0.01, 0.5, 2, 0.0001, 1e-8, 1.5, 3, 0.1, 1e21, 0.3, 7];
    const values = [0, 12.5, 3.99, 18, -0.02, 1e308, 4.5, 0.6, -9, 2 ** 60, 1e21, 3e21, 123456.789012345, 1e-8, 0.07, 1234567.89];
    for (const divisor of divisors) {
      const test = multipleOfTest(divisor);
      for (const value of values) assert.equal(test(value), isMultipleOf(value, divisor), `${value} / ${divisor}`);
    }
  });

  it('multipleOfTest() agrees with isMultipleOf() on 200 000 decimals of every size near the 2^49 bound', () => {
    // A fixed linear congruential sequence: the same values on every run.
    let seed = 12345;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (const divisor of [0.01, 0.05, 0.001, 0.25, 1e-6]) {
      const test = multipleOfTest(divisor);
      for (let i = 0; i < 40_000; i++) {
        const magnitude = 10 ** Math.floor(next() * 18 - 4);
        const decimals = Math.floor(next() * 8);
        const value = Number((next() * magnitude * (next() < 0.5 ? -1 : 1)).toFixed(decimals));
        assert.equal(test(value), isMultipleOf(value, divisor), `${value} / ${divisor}`);
      }
    }
  });
});

describe('codePointLength()', () => {
  it('codePointLength() counts a surrogate pair once and a lone surrogate once', () => {
    assert.equal(codePointLength('abc'), 3);
    assert.equal(codePointLength('😀a😀'), 3);
    assert.equal(codePointLength('\ud83d'), 1);
    assert.equal(codePointLength('a\ude00\ud83d'), 3);
  });
});
