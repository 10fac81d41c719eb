// Validation keywords for numbers and strings: multipleOf, the four bounds, maxLength,
// minLength and pattern. Lengths count code points; patterns are ECMA-262 with the u flag.

import { compileError } from './_compile-error.ts';
import type { KeywordDef, SchemaContext } from './_compile.ts';
import type { Compiled } from './_fused-test.ts';
import { numberKeyword, stringKeyword } from './_keyword-from-test.ts';
import { codePointLength, multipleOfTest } from './_numbers.ts';
import { jsonType, preview } from './_run-context.ts';

export function requireNonNegativeInteger(value: unknown, at: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw compileError(at, `must be a non-negative integer, got ${preview(value)}`);
  }
  return value;
}

function requireNumber(value: unknown, at: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw compileError(at, `must be a number, got ${jsonType(value)}`);
  return value;
}

/** Compiles `pattern` once per schema, as ECMA-262 with the u flag; a bad pattern fails compilation. */
export function compilePattern(cx: SchemaContext, pattern: unknown, at: string): RegExp {
  if (typeof pattern !== 'string') throw compileError(at, `must be a regular expression string, got ${jsonType(pattern)}`);
  const known = cx.state.patterns.get(pattern);
  if (known !== undefined) return known;
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, 'u');
  } catch (cause) {
    throw compileError(at, `${preview(pattern)} is not a valid regular expression: ${(cause as Error).message}`);
  }
  cx.state.patterns.set(pattern, regex);
  return regex;
}

function compileMultipleOf(value: unknown, _cx: unknown, at: string): Compiled {
  const divisor = requireNumber(value, at);
  if (divisor <= 0) throw compileError(at, `must be greater than 0, got ${divisor}`);
  const isMultiple = multipleOfTest(divisor);
  const describe = (subject: string, data: unknown): string => `${subject} must be a multiple of ${divisor}, got ${String(data)}`;
  return numberKeyword(isMultiple, { at, keyword: 'multipleOf', describe, shape: { kind: 'multipleOf', holds: isMultiple } });
}

type Comparison = (data: number, limit: number) => boolean;
type BoundKeyword = 'minimum' | 'maximum' | 'exclusiveMinimum' | 'exclusiveMaximum';

function bound(keyword: BoundKeyword, phrase: string, holds: Comparison): KeywordDef['compile'] {
  return (value, _cx, at) => {
    const limit = requireNumber(value, at);
    const describe = (subject: string, data: unknown): string => `${subject} must be ${phrase} ${limit}, got ${String(data)}`;
    return numberKeyword((data) => holds(data, limit), { at, keyword, describe, shape: { kind: keyword, limit } });
  };
}

function compileMaxLength(value: unknown, _cx: unknown, at: string): Compiled {
  const max = requireNonNegativeInteger(value, at);
  // Code points never outnumber UTF-16 units, so short strings need no count.
  return stringKeyword((text) => text.length <= max || codePointLength(text) <= max, {
    at,
    keyword: 'maxLength',
    describe: (subject, data) => `${subject} must be at most ${max} characters long, got ${codePointLength(data as string)}`,
    shape: { kind: 'maxLength', limit: max },
  });
}

function compileMinLength(value: unknown, _cx: unknown, at: string): Compiled {
  const min = requireNonNegativeInteger(value, at);
  return stringKeyword((text) => text.length >= 2 * min || codePointLength(text) >= min, {
    at,
    keyword: 'minLength',
    describe: (subject, data) => `${subject} must be at least ${min} characters long, got ${codePointLength(data as string)}`,
    shape: { kind: 'minLength', limit: min },
  });
}

function compilePatternKeyword(value: unknown, cx: SchemaContext, at: string): Compiled {
  const regex = compilePattern(cx, value, at);
  return stringKeyword((text) => regex.test(text), {
    at,
    keyword: 'pattern',
    describe: (subject, data) => `${subject} must match pattern ${preview(value)}, got ${preview(data)}`,
    shape: { kind: 'pattern', regex },
  });
}

export const NUMBER_STRING_KEYWORDS: Record<string, KeywordDef> = {
  multipleOf: { vocabulary: 'validation', compile: compileMultipleOf },
  maximum: { vocabulary: 'validation', compile: bound('maximum', 'at most', (data, limit) => data <= limit) },
  exclusiveMaximum: { vocabulary: 'validation', compile: bound('exclusiveMaximum', 'less than', (data, limit) => data < limit) },
  minimum: { vocabulary: 'validation', compile: bound('minimum', 'at least', (data, limit) => data >= limit) },
  exclusiveMinimum: { vocabulary: 'validation', compile: bound('exclusiveMinimum', 'greater than', (data, limit) => data > limit) },
  maxLength: { vocabulary: 'validation', compile: compileMaxLength },
  minLength: { vocabulary: 'validation', compile: compileMinLength },
  pattern: { vocabulary: 'validation', compile: compilePatternKeyword },
};
