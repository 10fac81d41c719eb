// Keywords for arrays: prefixItems, items, contains (with minContains and maxContains),
// unevaluatedItems (applicators) and maxItems, minItems, uniqueItems (validation).

import { addItemIndex, isItemEvaluated, type Annotations } from './_annotations.ts';
import { compileError } from './_compile-error.ts';
import { compileSubschema, verdictOf, type KeywordDef, type SchemaContext } from './_compile.ts';
import { holds, verdictEntry, type Compiled, type Test } from './_fused-test.ts';
import { deepEqual, equalityKey, isScalar } from './_deep-equal.ts';
import { keywordFromTest } from './_keyword-from-test.ts';
import { requireNonNegativeInteger } from './_keywords-number-string.ts';
import { report, type Check, type RunContext } from './_run-context.ts';

/**
 * Checks one element with the instance location moved onto it: a scalar leaf is decided inline
 * and checked only when it fails; any other subschema is checked at once, so that a failing
 * element is walked once (a passing one costs what its test would).
 */
function checkElement(sub: Compiled, data: unknown[], index: number, ctx: RunContext): boolean {
  const value = data[index];
  if (sub.leaf !== undefined && sub.test(value)) return true;
  ctx.path.push(index);
  const ok = sub.check(value, ctx, null);
  ctx.path.pop();
  return ok;
}

function compilePrefixItems(value: unknown, cx: SchemaContext, at: string): Compiled {
  if (!Array.isArray(value) || value.length === 0) throw compileError(at, 'must be a non-empty array of schemas');
  const subs = value.map((item, i) => compileSubschema(cx, item, `/prefixItems/${i}`));
  const check: Check = (data, ctx, ann) => {
    if (!Array.isArray(data)) return true;
    const end = Math.min(data.length, subs.length);
    if (ann !== null && end > ann.items) ann.items = end;
    let ok = true;
    for (let i = 0; i < end; i++) {
      if (checkElement(subs[i] as Compiled, data, i, ctx)) continue;
      if (!ctx.all) return false;
      ok = false;
    }
    return ok;
  };
  const test: Test = (data) => {
    if (!Array.isArray(data)) return true;
    const end = Math.min(data.length, subs.length);
    for (let i = 0; i < end; i++) if (!(subs[i] as Compiled).test(data[i])) return false;
    return true;
  };
  return { check, test };
}

const describeUnexpectedItem = (subject: string): string => `${subject} is not allowed: unexpected item`;

/**
 * Checks the elements that `covered` leaves out (items and unevaluatedItems): those from an
 * index on, or those the annotations do not cover.
 */
function leftoverElementsCheck(
  keyword: string,
  sub: Compiled | undefined,
  at: string,
  covered: number | ((index: number, ann: Annotations | null) => boolean),
): Check {
  const start = typeof covered === 'number' ? covered : 0;
  const isCovered = typeof covered === 'number' ? null : covered;
  return (data, ctx, ann) => {
    if (!Array.isArray(data)) return true;
    let ok = true;
    for (let i = start; i < data.length; i++) {
      if (isCovered !== null && isCovered(i, ann)) continue;
      if (sub !== undefined && checkElement(sub, data, i, ctx)) continue;
      if (sub === undefined && ctx.record) report(ctx, at, keyword, describeUnexpectedItem, data[i], i);
      if (!ctx.all) return false;
      ok = false;
    }
    if (ann !== null) ann.allItems = true;
    return ok;
  };
}

function compileItems(value: unknown, cx: SchemaContext, at: string): Compiled {
  const prefix = cx.schema['prefixItems'];
  const start = Array.isArray(prefix) ? prefix.length : 0;
  const sub = value === false ? undefined : compileSubschema(cx, value, '/items');
  const verdict = sub === undefined ? null : verdictEntry(sub);
  const test: Test = (data) => {
    if (!Array.isArray(data)) return true;
    if (verdict === null) return data.length <= start;
    for (let i = start; i < data.length; i++) if (!holds(verdict, data[i])) return false;
    return true;
  };
  return { check: leftoverElementsCheck('items', sub, at, start), test };
}

function compileUnevaluatedItems(value: unknown, cx: SchemaContext, at: string): Check {
  const sub = value === false ? undefined : compileSubschema(cx, value, '/unevaluatedItems');
  return leftoverElementsCheck('unevaluatedItems', sub, at, (index, ann) => ann !== null && isItemEvaluated(ann, index));
}

function compileContains(value: unknown, cx: SchemaContext, at: string): Check {
  const sub = compileSubschema(cx, value, '/contains');
  const matches = verdictOf(cx.state, sub);
  // minContains and maxContains belong to the validation vocabulary.
  const bounded = cx.vocabulary.has('validation');
  const minValue = bounded ? cx.schema['minContains'] : undefined;
  const maxValue = bounded ? cx.schema['maxContains'] : undefined;
  const min = minValue === undefined ? 1 : requireNonNegativeInteger(minValue, `${cx.info.location}/minContains`);
  const max = maxValue === undefined ? Infinity : requireNonNegativeInteger(maxValue, `${cx.info.location}/maxContains`);
  const minAt = minValue === undefined ? at : `${cx.info.location}/minContains`;
  const maxAt = `${cx.info.location}/maxContains`;
  const describeTooFew = (subject: string, count: unknown): string => `${subject} must contain at least ${min} matching item${min === 1 ? '' : 's'}, found ${String(count)}`;
  const describeTooMany = (subject: string, count: unknown): string => `${subject} must contain at most ${max} matching item${max === 1 ? '' : 's'}, found ${String(count)}`;
  return (data, ctx, ann) => {
    if (!Array.isArray(data)) return true;
    let count = 0;
    for (let i = 0; i < data.length; i++) {
      ctx.path.push(i);
      const matched = matches(data[i], ctx);
      ctx.path.pop();
      if (!matched) continue;
      count++;
      if (ann !== null) addItemIndex(ann, i);
      // Without annotations to collect, stop as soon as the verdict is known.
      else if (count >= min && max === Infinity) return true;
    }
    if (count < min) {
      if (ctx.record) report(ctx, minAt, minValue === undefined ? 'contains' : 'minContains', describeTooFew, count);
      return false;
    }
    if (count > max) {
      if (ctx.record) report(ctx, maxAt, 'maxContains', describeTooMany, count);
      return false;
    }
    return true;
  };
}

function compileContainsBound(value: unknown, _cx: SchemaContext, at: string): undefined {
  requireNonNegativeInteger(value, at);
  return undefined;
}

function itemCount(keyword: 'minItems' | 'maxItems', phrase: string, holds: (count: number, limit: number) => boolean): KeywordDef['compile'] {
  return (value, _cx, at) => {
    const limit = requireNonNegativeInteger(value, at);
    const test: Test = (data) => !Array.isArray(data) || holds(data.length, limit);
    const describe = (subject: string, data: unknown): string => `${subject} must have ${phrase} ${limit} items, got ${(data as unknown[]).length}`;
    return keywordFromTest(test, { at, keyword, describe, shape: { kind: keyword, limit } });
  };
}

/** Up to this many elements, comparing every pair is cheaper than building the maps. */
const PAIRWISE_LIMIT = 16;

/**
 * The first pair of equal elements, or undefined. Short arrays compare pairwise; longer ones go
 * through Maps in one pass: an untrusted array of 100 000 objects must not cost 5 billion
 * comparisons.
 */
function findDuplicate(data: unknown[]): [number, number] | undefined {
  if (data.length <= PAIRWISE_LIMIT) {
    for (let j = 1; j < data.length; j++) for (let i = 0; i < j; i++) if (deepEqual(data[i], data[j])) return [i, j];
    return undefined;
  }
  // Two maps: the string "{}" and the object {} must not meet.
  const scalars = new Map<unknown, number>();
  const structured = new Map<unknown, number>();
  for (let i = 0; i < data.length; i++) {
    const item = data[i];
    const scalar = isScalar(item);
    const seen = scalar ? scalars : structured;
    const key = scalar ? item : equalityKey(item);
    const first = seen.get(key);
    if (first !== undefined) return [first, i];
    seen.set(key, i);
  }
  return undefined;
}

const describeDuplicate = (subject: string, pair: unknown): string => {
  const [first, second] = pair as [number, number];
  return `${subject} must have unique items: items ${first} and ${second} are equal`;
};

function compileUniqueItems(value: unknown, cx: SchemaContext, at: string): Compiled | undefined {
  if (typeof value !== 'boolean') throw compileError(at, 'must be a boolean');
  if (!value) return undefined;
  // A long array costs a pass over every element: the check of a failed validation reuses the
  // pair its test found in the same validate() call instead of a second pass. Held weakly, so
  // that the validator keeps no instance alive.
  const { calls } = cx.state;
  let seen: { data: WeakRef<unknown[]>; call: number; duplicate: [number, number] | undefined } | undefined;
  const duplicateIn = (data: unknown[]): [number, number] | undefined => {
    if (data.length <= PAIRWISE_LIMIT) return findDuplicate(data);
    if (seen !== undefined && seen.call === calls.count && seen.data.deref() === data) return seen.duplicate;
    const duplicate = findDuplicate(data);
    seen = { data: new WeakRef(data), call: calls.count, duplicate };
    return duplicate;
  };
  const check: Check = (data, ctx) => {
    if (!Array.isArray(data)) return true;
    const duplicate = duplicateIn(data);
    if (duplicate === undefined) return true;
    if (ctx.record) report(ctx, at, 'uniqueItems', describeDuplicate, duplicate);
    return false;
  };
  return { check, test: (data) => !Array.isArray(data) || duplicateIn(data) === undefined };
}

export const ARRAY_KEYWORDS: Record<string, KeywordDef> = {
  prefixItems: { vocabulary: 'applicator', compile: compilePrefixItems },
  items: { vocabulary: 'applicator', compile: compileItems },
  contains: { vocabulary: 'applicator', compile: compileContains },
  unevaluatedItems: { vocabulary: 'unevaluated', compile: compileUnevaluatedItems, late: true },
  minContains: { vocabulary: 'validation', compile: compileContainsBound },
  maxContains: { vocabulary: 'validation', compile: compileContainsBound },
  maxItems: { vocabulary: 'validation', compile: itemCount('maxItems', 'at most', (count, limit) => count <= limit) },
  minItems: { vocabulary: 'validation', compile: itemCount('minItems', 'at least', (count, limit) => count >= limit) },
  uniqueItems: { vocabulary: 'validation', compile: compileUniqueItems },
};
