// In-place applicators: allOf, anyOf, oneOf, not, if/then/else, dependentSchemas. They apply
// subschemas to the same instance and pass on the annotations of the subschemas that passed.

import { createAnnotations, mergeAnnotations, type Annotations } from './_annotations.ts';
import { compileError } from './_compile-error.ts';
import { compileSubschema, verdictOf, type CompileState, type KeywordDef, type SchemaContext } from './_compile.ts';
import { combineTests, type Compiled, type Test } from './_fused-test.ts';
import { escapePointerToken } from './_pointer.ts';
import { passes, report, type Check, type RunContext } from './_run-context.ts';
import { isObject } from './_schema-index.ts';

function compileSchemaList(value: unknown, cx: SchemaContext, at: string, keyword: string): Compiled[] {
  if (!Array.isArray(value) || value.length === 0) throw compileError(at, 'must be a non-empty array of schemas');
  return value.map((item, i) => compileSubschema(cx, item, `/${keyword}/${i}`));
}

/** A branch's verdict inside a check; its annotations reach `ann` only when it passes. */
type Branch = (data: unknown, ctx: RunContext, ann: Annotations | null) => boolean;

function branchOf(state: CompileState, sub: Compiled): Branch {
  const verdict = verdictOf(state, sub);
  const { check } = sub;
  return (data, ctx, ann) => {
    if (ann === null) return verdict(data, ctx);
    const local = createAnnotations();
    const ok = passes(check, data, ctx, local);
    if (ok) mergeAnnotations(ann, local);
    return ok;
  };
}

/**
 * A check that lets the subschema's test answer first when no annotations are wanted: in an
 * instance that fails elsewhere, the subschemas that pass cost a test, not a check.
 */
function skippingCheck(sub: Compiled): Check {
  const { check, test } = sub;
  return (data, ctx, ann) => (ann === null && test(data)) || check(data, ctx, ann);
}

const describeAnyOf = (subject: string): string => `${subject} must match at least one schema in anyOf`;
const describeNot = (subject: string): string => `${subject} must not match the schema in "not"`;
const describeOneOf = (subject: string, indexes: unknown): string => {
  const matched = indexes as number[];
  const detail = matched.length === 0 ? 'matched none' : `matched ${matched.length} (${matched.join(', ')})`;
  return `${subject} must match exactly one schema in oneOf: ${detail}`;
};

function compileAllOf(value: unknown, cx: SchemaContext, at: string): Compiled {
  const subs = compileSchemaList(value, cx, at, 'allOf');
  const checks = subs.map(skippingCheck);
  const check: Check = (data, ctx, ann) => {
    let ok = true;
    for (const sub of checks) {
      if (sub(data, ctx, ann)) continue;
      if (!ctx.all) return false;
      ok = false;
    }
    return ok;
  };
  return { check, test: combineTests(subs.map((sub) => sub.test)) };
}

function compileAnyOf(value: unknown, cx: SchemaContext, at: string): Compiled {
  const subs = compileSchemaList(value, cx, at, 'anyOf');
  const branches = subs.map((sub) => branchOf(cx.state, sub));
  const tests = subs.map((sub) => sub.test);
  const check: Check = (data, ctx, ann) => {
    let ok = false;
    for (const branch of branches) {
      if (branch(data, ctx, ann)) {
        ok = true;
        // Every passing branch contributes annotations, so keep going only when they are wanted.
        if (ann === null) break;
      }
    }
    if (!ok && ctx.record) report(ctx, at, 'anyOf', describeAnyOf, data);
    return ok;
  };
  const test: Test = (data) => {
    for (let i = 0; i < tests.length; i++) if ((tests[i] as Test)(data)) return true;
    return false;
  };
  return { check, test };
}

function compileOneOf(value: unknown, cx: SchemaContext, at: string): Compiled {
  const subs = compileSchemaList(value, cx, at, 'oneOf');
  const branches = subs.map((sub) => branchOf(cx.state, sub));
  const tests = subs.map((sub) => sub.test);
  const check: Check = (data, ctx, ann) => {
    // The list of matches is made only when there are two: a valid instance allocates nothing.
    let count = 0;
    let first = -1;
    let matched: number[] | null = null;
    const local = ann === null ? null : createAnnotations();
    for (let i = 0; i < branches.length; i++) {
      if (!(branches[i] as Branch)(data, ctx, local)) continue;
      if (count++ === 0) first = i;
      else (matched ??= [first]).push(i);
      if (count > 1 && local === null) break;
    }
    if (count === 1) {
      if (ann !== null && local !== null) mergeAnnotations(ann, local);
      return true;
    }
    if (ctx.record) report(ctx, at, 'oneOf', describeOneOf, matched ?? []);
    return false;
  };
  const test: Test = (data) => {
    let count = 0;
    for (let i = 0; i < tests.length; i++) if ((tests[i] as Test)(data) && ++count > 1) return false;
    return count === 1;
  };
  return { check, test };
}

function compileNot(value: unknown, cx: SchemaContext, at: string): Compiled {
  const sub = compileSubschema(cx, value, '/not');
  const verdict = verdictOf(cx.state, sub);
  const check: Check = (data, ctx) => {
    if (!verdict(data, ctx)) return true;
    if (ctx.record) report(ctx, at, 'not', describeNot, data);
    return false;
  };
  const { test } = sub;
  return { check, test: (data) => !test(data) };
}

function compileIf(value: unknown, cx: SchemaContext): Compiled {
  const { schema } = cx;
  const condition = compileSubschema(cx, value, '/if');
  const thenSub = 'then' in schema ? compileSubschema(cx, schema['then'], '/then') : undefined;
  const elseSub = 'else' in schema ? compileSubschema(cx, schema['else'], '/else') : undefined;
  const conditionHolds = branchOf(cx.state, condition);
  const thenCheck = thenSub === undefined ? undefined : skippingCheck(thenSub);
  const elseCheck = elseSub === undefined ? undefined : skippingCheck(elseSub);
  const check: Check = (data, ctx, ann) => {
    const branch = conditionHolds(data, ctx, ann) ? thenCheck : elseCheck;
    return branch === undefined ? true : branch(data, ctx, ann);
  };
  const ifTest = condition.test;
  const thenTest = thenSub?.test;
  const elseTest = elseSub?.test;
  const test: Test = (data) => {
    const branch = ifTest(data) ? thenTest : elseTest;
    return branch === undefined || branch(data);
  };
  return { check, test };
}

/** then and else alone do nothing, but must still be schemas. */
function compileThenElse(keyword: 'then' | 'else'): KeywordDef['compile'] {
  return (value, cx) => {
    if (!('if' in cx.schema)) compileSubschema(cx, value, `/${keyword}`);
    return undefined;
  };
}

function compileDependentSchemas(value: unknown, cx: SchemaContext, at: string): Compiled {
  if (!isObject(value)) throw compileError(at, 'must be an object of schemas');
  const entries = Object.keys(value).map((name) => {
    const sub = compileSubschema(cx, value[name], `/dependentSchemas/${escapePointerToken(name)}`);
    return { name, check: skippingCheck(sub), test: sub.test };
  });
  const check: Check = (data, ctx, ann) => {
    if (!isObject(data)) return true;
    let ok = true;
    for (const entry of entries) {
      if (!Object.hasOwn(data, entry.name) || entry.check(data, ctx, ann)) continue;
      if (!ctx.all) return false;
      ok = false;
    }
    return ok;
  };
  const test: Test = (data) => {
    if (!isObject(data)) return true;
    for (const entry of entries) if (Object.hasOwn(data, entry.name) && !entry.test(data)) return false;
    return true;
  };
  return { check, test };
}

export const APPLICATOR_KEYWORDS: Record<string, KeywordDef> = {
  allOf: { vocabulary: 'applicator', compile: compileAllOf },
  anyOf: { vocabulary: 'applicator', compile: compileAnyOf },
  oneOf: { vocabulary: 'applicator', compile: compileOneOf },
  not: { vocabulary: 'applicator', compile: compileNot },
  if: { vocabulary: 'applicator', compile: compileIf },
  then: { vocabulary: 'applicator', compile: compileThenElse('then') },
  else: { vocabulary: 'applicator', compile: compileThenElse('else') },
  dependentSchemas: { vocabulary: 'applicator', compile: compileDependentSchemas },
};
