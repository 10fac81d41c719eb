// Keywords for objects: properties, patternProperties, additionalProperties, propertyNames,
// unevaluatedProperties (applicators) and required, dependentRequired, maxProperties,
// minProperties (validation).

import { addProp, addPropSet, isPropEvaluated, type Annotations } from './_annotations.ts';
import { compileError } from './_compile-error.ts';
import { compileSubschema, type KeywordDef, type SchemaContext } from './_compile.ts';
import { requireNonNegativeInteger, compilePattern } from './_keywords-number-string.ts';
import { escapePointerToken } from './_pointer.ts';
import { passes, preview, report, subject, type Check, type RunContext } from './_run-context.ts';
import { isObject } from './_schema-index.ts';

/** Checks one member value with the instance location moved onto it. */
function checkMember(check: Check, data: Record<string, unknown>, name: string, ctx: RunContext): boolean {
  ctx.path.push(name);
  const ok = check(data[name], ctx, null);
  ctx.path.pop();
  return ok;
}

function requireSchemaMap(value: unknown, at: string): Record<string, unknown> {
  if (!isObject(value)) throw compileError(at, 'must be an object of schemas');
  return value;
}

function compileProperties(value: unknown, cx: SchemaContext, at: string): Check {
  const map = requireSchemaMap(value, at);
  const entries = Object.keys(map).map((name) => [name, compileSubschema(cx, map[name], `/properties/${escapePointerToken(name)}`)] as const);
  const names: ReadonlySet<string> = new Set(Object.keys(map));
  return (data, ctx, ann) => {
    if (!isObject(data)) return true;
    if (ann !== null) addPropSet(ann, names);
    let ok = true;
    for (const [name, check] of entries) {
      if (!Object.hasOwn(data, name)) continue;
      if (checkMember(check, data, name, ctx)) continue;
      if (!ctx.all) return false;
      ok = false;
    }
    return ok;
  };
}

function compilePatternProperties(value: unknown, cx: SchemaContext, at: string): Check {
  const map = requireSchemaMap(value, at);
  const entries = Object.keys(map).map((source) => {
    const suffix = `/patternProperties/${escapePointerToken(source)}`;
    return [compilePattern(cx, source, cx.info.location + suffix), compileSubschema(cx, map[source], suffix)] as const;
  });
  return (data, ctx, ann) => {
    if (!isObject(data)) return true;
    let ok = true;
    for (const name of Object.keys(data)) {
      for (const [regex, check] of entries) {
        if (!regex.test(name)) continue;
        if (ann !== null) addProp(ann, name);
        if (checkMember(check, data, name, ctx)) continue;
        if (!ctx.all) return false;
        ok = false;
      }
    }
    return ok;
  };
}

/**
 * Checks every member that `isCovered` leaves out against `value` (additionalProperties and
 * unevaluatedProperties); `false` gets a message naming the unexpected property.
 */
function compileLeftoverMembers(
  keyword: string,
  value: unknown,
  cx: SchemaContext,
  at: string,
  isCovered: (name: string, ann: Annotations | null) => boolean,
): Check {
  const check = value === false ? undefined : compileSubschema(cx, value, `/${keyword}`);
  return (data, ctx, ann) => {
    if (!isObject(data)) return true;
    let ok = true;
    for (const name of Object.keys(data)) {
      if (isCovered(name, ann)) continue;
      if (check !== undefined && checkMember(check, data, name, ctx)) continue;
      if (check === undefined && ctx.record) {
        report(ctx, at, keyword, `${subject(ctx, name)} is not allowed: unexpected property ${preview(name)}`, name);
      }
      if (!ctx.all) return false;
      ok = false;
    }
    if (ann !== null) ann.allProps = true;
    return ok;
  };
}

function compileAdditionalProperties(value: unknown, cx: SchemaContext, at: string): Check {
  const properties = cx.schema['properties'];
  const declared = new Set(isObject(properties) ? Object.keys(properties) : []);
  const patternMap = cx.schema['patternProperties'];
  const patterns = isObject(patternMap) ? Object.keys(patternMap).map((source) => compilePattern(cx, source, `${cx.info.location}/patternProperties/${escapePointerToken(source)}`)) : [];
  return compileLeftoverMembers('additionalProperties', value, cx, at, (name) => declared.has(name) || patterns.some((regex) => regex.test(name)));
}

function compileUnevaluatedProperties(value: unknown, cx: SchemaContext, at: string): Check {
  return compileLeftoverMembers('unevaluatedProperties', value, cx, at, (name, ann) => ann !== null && isPropEvaluated(ann, name));
}

function compilePropertyNames(value: unknown, cx: SchemaContext, at: string): Check {
  const check = compileSubschema(cx, value, '/propertyNames');
  return (data, ctx) => {
    if (!isObject(data)) return true;
    let ok = true;
    for (const name of Object.keys(data)) {
      if (passes(check, name, ctx, null)) continue;
      if (ctx.record) report(ctx, at, 'propertyNames', `${subject(ctx)} has an invalid property name ${preview(name)}`);
      if (!ctx.all) return false;
      ok = false;
    }
    return ok;
  };
}

function requireStringList(value: unknown, at: string): string[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) throw compileError(at, 'must be an array of strings');
  return value;
}

function compileRequired(value: unknown, _cx: SchemaContext, at: string): Check {
  const names = requireStringList(value, at);
  return (data, ctx) => {
    if (!isObject(data)) return true;
    let ok = true;
    for (const name of names) {
      if (Object.hasOwn(data, name)) continue;
      if (ctx.record) report(ctx, at, 'required', `${subject(ctx)} is missing required property ${preview(name)}`);
      if (!ctx.all) return false;
      ok = false;
    }
    return ok;
  };
}

function compileDependentRequired(value: unknown, _cx: SchemaContext, at: string): Check {
  if (!isObject(value)) throw compileError(at, 'must be an object of string arrays');
  const entries = Object.keys(value).map((name) => [name, requireStringList(value[name], `${at}/${escapePointerToken(name)}`)] as const);
  return (data, ctx) => {
    if (!isObject(data)) return true;
    let ok = true;
    for (const [trigger, names] of entries) {
      if (!Object.hasOwn(data, trigger)) continue;
      for (const name of names) {
        if (Object.hasOwn(data, name)) continue;
        if (ctx.record) report(ctx, at, 'dependentRequired', `${subject(ctx)} must have property ${preview(name)} when it has ${preview(trigger)}`);
        if (!ctx.all) return false;
        ok = false;
      }
    }
    return ok;
  };
}

function memberCount(keyword: string, phrase: string, holds: (count: number, limit: number) => boolean): KeywordDef['compile'] {
  return (value, _cx, at) => {
    const limit = requireNonNegativeInteger(value, at);
    return (data, ctx) => {
      if (!isObject(data)) return true;
      const count = Object.keys(data).length;
      if (holds(count, limit)) return true;
      if (ctx.record) report(ctx, at, keyword, `${subject(ctx)} must have ${phrase} ${limit} properties, got ${count}`);
      return false;
    };
  };
}

export const OBJECT_KEYWORDS: Record<string, KeywordDef> = {
  properties: { vocabulary: 'applicator', compile: compileProperties },
  patternProperties: { vocabulary: 'applicator', compile: compilePatternProperties },
  additionalProperties: { vocabulary: 'applicator', compile: compileAdditionalProperties },
  propertyNames: { vocabulary: 'applicator', compile: compilePropertyNames },
  unevaluatedProperties: { vocabulary: 'unevaluated', compile: compileUnevaluatedProperties, late: true },
  required: { vocabulary: 'validation', compile: compileRequired },
  dependentRequired: { vocabulary: 'validation', compile: compileDependentRequired },
  maxProperties: { vocabulary: 'validation', compile: memberCount('maxProperties', 'at most', (count, limit) => count <= limit) },
  minProperties: { vocabulary: 'validation', compile: memberCount('minProperties', 'at least', (count, limit) => count >= limit) },
};
