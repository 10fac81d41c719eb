// Validation keywords about what a value is: type, enum and const.

import { compileError } from './_compile-error.ts';
import type { KeywordDef } from './_compile.ts';
import type { Compiled } from './_fused-test.ts';
import { deepEqual, isScalar } from './_deep-equal.ts';
import { jsonType, preview, report, type Check } from './_run-context.ts';
import { isObject } from './_schema-index.ts';

const TYPE_TESTS: Record<string, (value: unknown) => boolean> = {
  null: (value) => value === null,
  boolean: (value) => typeof value === 'boolean',
  object: isObject,
  array: Array.isArray,
  string: (value) => typeof value === 'string',
  number: (value) => typeof value === 'number',
  // 2020-12: any number with a zero fractional part is an integer (1.0 is).
  integer: Number.isInteger,
};

const ARTICLES: Record<string, string> = {
  null: 'null', boolean: 'a boolean', object: 'an object', array: 'an array', string: 'a string', number: 'a number', integer: 'an integer',
};

function compileType(value: unknown, _cx: unknown, at: string): Compiled {
  const types = Array.isArray(value) ? value : [value];
  if (types.length === 0) throw compileError(at, 'must name at least one type');
  for (const type of types) {
    if (typeof type !== 'string' || !Object.hasOwn(TYPE_TESTS, type)) {
      throw compileError(at, `${preview(type)} is not a type: use ${Object.keys(TYPE_TESTS).join(', ')}`);
    }
  }
  const tests = types.map((type: string) => TYPE_TESTS[type] as (value: unknown) => boolean);
  const expected = types.length === 1 ? ARTICLES[types[0] as string] : `one of types ${types.join(', ')}`;
  const [single] = tests;
  const matches = tests.length === 1 && single !== undefined ? single : (data: unknown) => tests.some((test) => test(data));
  const describe = (subject: string, data: unknown): string => `${subject} must be ${expected}, got ${jsonType(data)}`;
  const check: Check = (data, ctx) => {
    if (matches(data)) return true;
    if (ctx.record) report(ctx, at, 'type', describe, data);
    return false;
  };
  return { check, test: matches, shape: { kind: 'type', types } };
}

function compileEnum(value: unknown, _cx: unknown, at: string): Compiled {
  if (!Array.isArray(value)) throw compileError(at, 'must be an array');
  const scalars = new Set(value.filter(isScalar));
  const structured = value.filter((item) => !isScalar(item));
  const listed = value.slice(0, 10).map(preview).join(', ') + (value.length > 10 ? ', ...' : '');
  const test = (data: unknown): boolean => (isScalar(data) ? scalars.has(data) : structured.some((item) => deepEqual(item, data)));
  const describe = (subject: string, data: unknown): string => `${subject} must be one of ${listed}, got ${preview(data)}`;
  const check: Check = (data, ctx) => {
    if (test(data)) return true;
    if (ctx.record) report(ctx, at, 'enum', describe, data);
    return false;
  };
  return structured.length === 0 ? { check, test, shape: { kind: 'values', values: scalars } } : { check, test };
}

function compileConst(value: unknown, _cx: unknown, at: string): Compiled {
  const test = isScalar(value) ? (data: unknown) => data === value : (data: unknown) => deepEqual(value, data);
  const describe = (subject: string, data: unknown): string => `${subject} must be ${preview(value)}, got ${preview(data)}`;
  const check: Check = (data, ctx) => {
    if (test(data)) return true;
    if (ctx.record) report(ctx, at, 'const', describe, data);
    return false;
  };
  return isScalar(value) ? { check, test, shape: { kind: 'values', values: new Set([value]) } } : { check, test };
}

export const TYPE_KEYWORDS: Record<string, KeywordDef> = {
  type: { vocabulary: 'validation', compile: compileType },
  enum: { vocabulary: 'validation', compile: compileEnum },
  const: { vocabulary: 'validation', compile: compileConst },
};
