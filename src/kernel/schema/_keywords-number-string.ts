// Validation keywords for numbers and strings: multipleOf, the four bounds, maxLength,
// minLength and pattern. Lengths count code points; patterns are ECMA-262 with the u flag.

import { compileError } from './_compile-error.ts';
import type { KeywordDef, SchemaContext } from './_compile.ts';
import { codePointLength, multipleOfTest } from './_numbers.ts';
import { jsonType, preview, report, subject, type Check } from './_run-context.ts';

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

function compileMultipleOf(value: unknown, _cx: unknown, at: string): Check {
  const divisor = requireNumber(value, at);
  if (divisor <= 0) throw compileError(at, `must be greater than 0, got ${divisor}`);
  const isMultiple = multipleOfTest(divisor);
  return (data, ctx) => {
    if (typeof data !== 'number' || isMultiple(data)) return true;
    if (ctx.record) report(ctx, at, 'multipleOf', `${subject(ctx)} must be a multiple of ${divisor}, got ${data}`);
    return false;
  };
}

type Comparison = (data: number, limit: number) => boolean;

function bound(keyword: string, phrase: string, holds: Comparison): KeywordDef['compile'] {
  return (value, _cx, at) => {
    const limit = requireNumber(value, at);
    return (data, ctx) => {
      if (typeof data !== 'number' || holds(data, limit)) return true;
      if (ctx.record) report(ctx, at, keyword, `${subject(ctx)} must be ${phrase} ${limit}, got ${data}`);
      return false;
    };
  };
}

function compileMaxLength(value: unknown, _cx: unknown, at: string): Check {
  const max = requireNonNegativeInteger(value, at);
  return (data, ctx) => {
    // Code points never outnumber UTF-16 units, so short strings need no count.
    if (typeof data !== 'string' || data.length <= max) return true;
    const length = codePointLength(data);
    if (length <= max) return true;
    if (ctx.record) report(ctx, at, 'maxLength', `${subject(ctx)} must be at most ${max} characters long, got ${length}`);
    return false;
  };
}

function compileMinLength(value: unknown, _cx: unknown, at: string): Check {
  const min = requireNonNegativeInteger(value, at);
  return (data, ctx) => {
    if (typeof data !== 'string' || data.length >= 2 * min) return true;
    const length = codePointLength(data);
    if (length >= min) return true;
    if (ctx.record) report(ctx, at, 'minLength', `${subject(ctx)} must be at least ${min} characters long, got ${length}`);
    return false;
  };
}

function compilePatternKeyword(value: unknown, cx: SchemaContext, at: string): Check {
  const regex = compilePattern(cx, value, at);
  return (data, ctx) => {
    if (typeof data !== 'string' || regex.test(data)) return true;
    if (ctx.record) report(ctx, at, 'pattern', `${subject(ctx)} must match pattern ${preview(value)}, got ${preview(data)}`);
    return false;
  };
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
