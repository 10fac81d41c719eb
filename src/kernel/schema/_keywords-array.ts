// Keywords for arrays: prefixItems, items, contains (with minContains and maxContains),
// unevaluatedItems (applicators) and maxItems, minItems, uniqueItems (validation).

import { addItemIndex, isItemEvaluated, type Annotations } from './_annotations.ts';
import { compileError } from './_compile-error.ts';
import { compileSubschema, type KeywordDef, type SchemaContext } from './_compile.ts';
import { equalityKey, isScalar } from './_deep-equal.ts';
import { requireNonNegativeInteger } from './_keywords-number-string.ts';
import { passes, report, subject, type Check, type RunContext } from './_run-context.ts';

/** Checks one element with the instance location moved onto it. */
function checkElement(check: Check, data: unknown[], index: number, ctx: RunContext): boolean {
  ctx.path.push(index);
  const ok = check(data[index], ctx, null);
  ctx.path.pop();
  return ok;
}

function compilePrefixItems(value: unknown, cx: SchemaContext, at: string): Check {
  if (!Array.isArray(value) || value.length === 0) throw compileError(at, 'must be a non-empty array of schemas');
  const checks = value.map((item, i) => compileSubschema(cx, item, `/prefixItems/${i}`));
  return (data, ctx, ann) => {
    if (!Array.isArray(data)) return true;
    const end = Math.min(data.length, checks.length);
    if (ann !== null && end > ann.items) ann.items = end;
    let ok = true;
    for (let i = 0; i < end; i++) {
      if (checkElement(checks[i] as Check, data, i, ctx)) continue;
      if (!ctx.all) return false;
      ok = false;
    }
    return ok;
  };
}

/** Checks the elements that `isCovered` leaves out (items and unevaluatedItems). */
function compileLeftoverElements(
  keyword: string,
  value: unknown,
  cx: SchemaContext,
  at: string,
  isCovered: (index: number, ann: Annotations | null) => boolean,
): Check {
  const check = value === false ? undefined : compileSubschema(cx, value, `/${keyword}`);
  return (data, ctx, ann) => {
    if (!Array.isArray(data)) return true;
    let ok = true;
    for (let i = 0; i < data.length; i++) {
      if (isCovered(i, ann)) continue;
      if (check !== undefined && checkElement(check, data, i, ctx)) continue;
      if (check === undefined && ctx.record) report(ctx, at, keyword, `${subject(ctx, i)} is not allowed: unexpected item`, i);
      if (!ctx.all) return false;
      ok = false;
    }
    if (ann !== null) ann.allItems = true;
    return ok;
  };
}

function compileItems(value: unknown, cx: SchemaContext, at: string): Check {
  const prefix = cx.schema['prefixItems'];
  const start = Array.isArray(prefix) ? prefix.length : 0;
  return compileLeftoverElements('items', value, cx, at, (index) => index < start);
}

function compileUnevaluatedItems(value: unknown, cx: SchemaContext, at: string): Check {
  return compileLeftoverElements('unevaluatedItems', value, cx, at, (index, ann) => ann !== null && isItemEvaluated(ann, index));
}

function compileContains(value: unknown, cx: SchemaContext, at: string): Check {
  const check = compileSubschema(cx, value, '/contains');
  // minContains and maxContains belong to the validation vocabulary.
  const bounded = cx.vocabulary.has('validation');
  const minValue = bounded ? cx.schema['minContains'] : undefined;
  const maxValue = bounded ? cx.schema['maxContains'] : undefined;
  const min = minValue === undefined ? 1 : requireNonNegativeInteger(minValue, `${cx.info.location}/minContains`);
  const max = maxValue === undefined ? Infinity : requireNonNegativeInteger(maxValue, `${cx.info.location}/maxContains`);
  const minAt = minValue === undefined ? at : `${cx.info.location}/minContains`;
  const maxAt = `${cx.info.location}/maxContains`;
  return (data, ctx, ann) => {
    if (!Array.isArray(data)) return true;
    let count = 0;
    for (let i = 0; i < data.length; i++) {
      ctx.path.push(i);
      const matched = passes(check, data[i], ctx, null);
      ctx.path.pop();
      if (!matched) continue;
      count++;
      if (ann !== null) addItemIndex(ann, i);
      // Without annotations to collect, stop as soon as the verdict is known.
      else if (count >= min && max === Infinity) return true;
    }
    if (count < min) {
      if (ctx.record) report(ctx, minAt, minValue === undefined ? 'contains' : 'minContains', `${subject(ctx)} must contain at least ${min} matching item${min === 1 ? '' : 's'}, found ${count}`);
      return false;
    }
    if (count > max) {
      if (ctx.record) report(ctx, maxAt, 'maxContains', `${subject(ctx)} must contain at most ${max} matching item${max === 1 ? '' : 's'}, found ${count}`);
      return false;
    }
    return true;
  };
}

function compileContainsBound(value: unknown, _cx: SchemaContext, at: string): undefined {
  requireNonNegativeInteger(value, at);
  return undefined;
}

function itemCount(keyword: string, phrase: string, holds: (count: number, limit: number) => boolean): KeywordDef['compile'] {
  return (value, _cx, at) => {
    const limit = requireNonNegativeInteger(value, at);
    return (data, ctx) => {
      if (!Array.isArray(data) || holds(data.length, limit)) return true;
      if (ctx.record) report(ctx, at, keyword, `${subject(ctx)} must have ${phrase} ${limit} items, got ${data.length}`);
      return false;
    };
  };
}

/**
 * The first pair of equal elements, or undefined. One pass through Maps, never pairwise: an
 * untrusted array of 100 000 objects must not cost 5 billion comparisons.
 */
function findDuplicate(data: unknown[]): [number, number] | undefined {
  // Two maps: the string "{}" and the object {} must not meet.
  const scalars = new Map<unknown, number>();
  const structured = new Map<unknown, number>();
  for (let i = 0; i < data.length; i++) {
    const item = data[i];
    const [seen, key] = isScalar(item) ? [scalars, item] : [structured, equalityKey(item)];
    const first = seen.get(key);
    if (first !== undefined) return [first, i];
    seen.set(key, i);
  }
  return undefined;
}

function compileUniqueItems(value: unknown, _cx: SchemaContext, at: string): Check | undefined {
  if (typeof value !== 'boolean') throw compileError(at, 'must be a boolean');
  if (!value) return undefined;
  return (data, ctx) => {
    if (!Array.isArray(data)) return true;
    const duplicate = findDuplicate(data);
    if (duplicate === undefined) return true;
    if (ctx.record) report(ctx, at, 'uniqueItems', `${subject(ctx)} must have unique items: items ${duplicate[0]} and ${duplicate[1]} are equal`);
    return false;
  };
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
