// Keywords for objects: properties, patternProperties, additionalProperties, propertyNames,
// unevaluatedProperties (applicators) and required, dependentRequired, maxProperties,
// minProperties (validation).

import { addProp, isPropEvaluated, type Annotations } from './_annotations.ts';
import { compileError } from './_compile-error.ts';
import { compileSubschema, verdictOf, type KeywordDef, type SchemaContext } from './_compile.ts';
import { holds, inheritsEnumerables, objectKeywords, verdictEntry, type Compiled, type Test } from './_fused-test.ts';
import { keywordFromTest } from './_keyword-from-test.ts';
import { compilePattern, requireNonNegativeInteger } from './_keywords-number-string.ts';
import { escapePointerToken } from './_pointer.ts';
import { coversAll, ownCoverage, reachableCoverage, type PropertyCoverage } from './_property-coverage.ts';
import { preview, report, type Check, type RunContext } from './_run-context.ts';
import { isObject } from './_schema-index.ts';

/**
 * Checks one member value with the instance location moved onto it; a member that passes its
 * test costs no more.
 */
function checkMember(sub: Compiled, data: Record<string, unknown>, name: string, ctx: RunContext): boolean {
  const value = data[name];
  if (sub.test(value)) return true;
  ctx.path.push(name);
  const ok = sub.check(value, ctx, null);
  ctx.path.pop();
  return ok;
}

function requireSchemaMap(value: unknown, at: string): Record<string, unknown> {
  if (!isObject(value)) throw compileError(at, 'must be an object of schemas');
  return value;
}

/**
 * `properties` is answered with the node's `required`, leftover keyword and `type: object` in
 * one walk over the instance's members (objectKeywords in _fused-test.ts), and the node always
 * does so: its check and test here are that walk for `properties` alone, not a second one.
 */
function compileProperties(value: unknown, cx: SchemaContext, at: string): Compiled {
  const map = requireSchemaMap(value, at);
  const subs = new Map(Object.keys(map).map((name) => [name, compileSubschema(cx, map[name], `/properties/${escapePointerToken(name)}`)]));
  const shape = { kind: 'members', subs } as const;
  const { check, test } = objectKeywords([{ shape }]) as { check: Check; test: Test };
  return { check, test, shape };
}

function compilePatternProperties(value: unknown, cx: SchemaContext, at: string): Compiled {
  const map = requireSchemaMap(value, at);
  const entries = Object.keys(map).map((source) => {
    const suffix = `/patternProperties/${escapePointerToken(source)}`;
    return { regex: compilePattern(cx, source, cx.info.location + suffix), sub: compileSubschema(cx, map[source], suffix) };
  });
  const check: Check = (data, ctx, ann) => {
    if (!isObject(data)) return true;
    let ok = true;
    for (const name of Object.keys(data)) {
      for (const { regex, sub } of entries) {
        if (!regex.test(name)) continue;
        if (ann !== null) addProp(ann, name);
        if (checkMember(sub, data, name, ctx)) continue;
        if (!ctx.all) return false;
        ok = false;
      }
    }
    return ok;
  };
  const test: Test = (data) => {
    if (!isObject(data)) return true;
    for (const name of Object.keys(data)) {
      for (const { regex, sub } of entries) if (regex.test(name) && !sub.test(data[name])) return false;
    }
    return true;
  };
  return { check, test };
}

/** A name test from a coverage: declared names first, then patterns. */
function coveredBy(coverage: PropertyCoverage, cx: SchemaContext): (name: string) => boolean {
  if (coverage.all) return () => true;
  const { names } = coverage;
  const regexes = [...coverage.patterns].map((source) => compilePattern(cx, source, `${cx.info.location}/patternProperties/${escapePointerToken(source)}`));
  if (regexes.length === 0) return (name) => names.has(name);
  return (name) => {
    if (names.has(name)) return true;
    for (let i = 0; i < regexes.length; i++) if ((regexes[i] as RegExp).test(name)) return true;
    return false;
  };
}

const describeUnexpected = (subject: string, name: unknown): string => `${subject} is not allowed: unexpected property ${preview(name)}`;

/**
 * Checks every member that `isCovered` leaves out against `value` (additionalProperties and
 * unevaluatedProperties); `false` gets a message naming the unexpected property.
 */
function leftoverMembersCheck(
  keyword: string,
  sub: Compiled | undefined,
  at: string,
  isCovered: (name: string, ann: Annotations | null) => boolean,
): Check {
  return (data, ctx, ann) => {
    if (!isObject(data)) return true;
    let ok = true;
    for (const name of Object.keys(data)) {
      if (isCovered(name, ann)) continue;
      if (sub !== undefined && checkMember(sub, data, name, ctx)) continue;
      if (sub === undefined && ctx.record) {
        report(ctx, at, keyword, describeUnexpected, name, name);
      }
      if (!ctx.all) return false;
      ok = false;
    }
    if (ann !== null) ann.allProps = true;
    return ok;
  };
}

/** leftoverMembersCheck when what is covered is known at compile time, with its test. */
function staticLeftoverMembers(keyword: string, value: unknown, cx: SchemaContext, at: string, isCovered: (name: string) => boolean): Compiled {
  const sub = value === false ? undefined : compileSubschema(cx, value, `/${keyword}`);
  const verdict = sub === undefined ? null : verdictEntry(sub);
  const test: Test = (data) => {
    if (!isObject(data)) return true;
    const mayInherit = inheritsEnumerables(data);
    for (const name in data) {
      if (isCovered(name) || (mayInherit && !Object.hasOwn(data, name))) continue;
      if (verdict === null || !holds(verdict, data[name])) return false;
    }
    return true;
  };
  return { check: leftoverMembersCheck(keyword, sub, at, isCovered), test, shape: { kind: 'leftover', keyword, at, covered: isCovered, sub: sub ?? null } };
}

function compileAdditionalProperties(value: unknown, cx: SchemaContext, at: string): Compiled {
  const own = ownCoverage(cx.schema);
  own.all = false;
  return staticLeftoverMembers('additionalProperties', value, cx, at, coveredBy(own, cx));
}

function compileUnevaluatedProperties(value: unknown, cx: SchemaContext, at: string): Check | Compiled {
  const own = cx.vocabulary.has('applicator') ? ownCoverage(cx.schema) : { names: new Set<string>(), patterns: new Set<string>(), all: false };
  const reachable = reachableCoverage(cx.state, cx.schema, { except: 'unevaluatedProperties' });
  const patternOf = (source: string): RegExp => compilePattern(cx, source, `${cx.info.location}/patternProperties/${escapePointerToken(source)}`);
  if (reachable !== undefined && coversAll(own, reachable, patternOf)) {
    return staticLeftoverMembers('unevaluatedProperties', value, cx, at, coveredBy(own, cx));
  }
  const sub = value === false ? undefined : compileSubschema(cx, value, '/unevaluatedProperties');
  return leftoverMembersCheck('unevaluatedProperties', sub, at, (name, ann) => ann !== null && isPropEvaluated(ann, name));
}

function compilePropertyNames(value: unknown, cx: SchemaContext, at: string): Compiled {
  const sub = compileSubschema(cx, value, '/propertyNames');
  const verdict = verdictOf(cx.state, sub);
  const describe = (subject: string, name: unknown): string => `${subject} has an invalid property name ${preview(name)}`;
  const check: Check = (data, ctx) => {
    if (!isObject(data)) return true;
    let ok = true;
    for (const name of Object.keys(data)) {
      if (verdict(name, ctx)) continue;
      if (ctx.record) report(ctx, at, 'propertyNames', describe, name);
      if (!ctx.all) return false;
      ok = false;
    }
    return ok;
  };
  const test: Test = (data) => !isObject(data) || Object.keys(data).every(sub.test);
  return { check, test };
}

function requireStringList(value: unknown, at: string): string[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) throw compileError(at, 'must be an array of strings');
  return value;
}

const describeMissing = (subject: string, name: unknown): string => `${subject} is missing required property ${preview(name)}`;

function compileRequired(value: unknown, _cx: SchemaContext, at: string): Compiled {
  const names = requireStringList(value, at);
  const check: Check = (data, ctx) => {
    if (!isObject(data)) return true;
    let ok = true;
    for (const name of names) {
      if (Object.hasOwn(data, name)) continue;
      if (ctx.record) report(ctx, at, 'required', describeMissing, name);
      if (!ctx.all) return false;
      ok = false;
    }
    return ok;
  };
  const test: Test = (data) => {
    if (!isObject(data)) return true;
    for (let i = 0; i < names.length; i++) if (!Object.hasOwn(data, names[i] as string)) return false;
    return true;
  };
  return { check, test, shape: { kind: 'required', names, at } };
}

function compileDependentRequired(value: unknown, _cx: SchemaContext, at: string): Compiled {
  if (!isObject(value)) throw compileError(at, 'must be an object of string arrays');
  const entries = Object.keys(value).map((name) => [name, requireStringList(value[name], `${at}/${escapePointerToken(name)}`)] as const);
  const check: Check = (data, ctx) => {
    if (!isObject(data)) return true;
    let ok = true;
    for (const [trigger, names] of entries) {
      if (!Object.hasOwn(data, trigger)) continue;
      for (const name of names) {
        if (Object.hasOwn(data, name)) continue;
        if (ctx.record) report(ctx, at, 'dependentRequired', (subject) => `${subject} must have property ${preview(name)} when it has ${preview(trigger)}`, data);
        if (!ctx.all) return false;
        ok = false;
      }
    }
    return ok;
  };
  const test: Test = (data) => !isObject(data) || entries.every(([trigger, names]) => !Object.hasOwn(data, trigger) || names.every((name) => Object.hasOwn(data, name)));
  return { check, test };
}

function memberCount(keyword: string, phrase: string, holds: (count: number, limit: number) => boolean): KeywordDef['compile'] {
  return (value, _cx, at) => {
    const limit = requireNonNegativeInteger(value, at);
    const test: Test = (data) => !isObject(data) || holds(Object.keys(data).length, limit);
    return keywordFromTest(test, { at, keyword, describe: (subject, data) => `${subject} must have ${phrase} ${limit} properties, got ${Object.keys(data as object).length}` });
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
