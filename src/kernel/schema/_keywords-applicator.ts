// In-place applicators: allOf, anyOf, oneOf, not, if/then/else, dependentSchemas. They apply
// subschemas to the same instance and pass on the annotations of the subschemas that passed.

import { createAnnotations, mergeAnnotations, type Annotations } from './_annotations.ts';
import { compileError } from './_compile-error.ts';
import { compileSubschema, type KeywordDef, type SchemaContext } from './_compile.ts';
import { escapePointerToken } from './_pointer.ts';
import { checkAll, passes, report, subject, type Check, type RunContext } from './_run-context.ts';
import { isObject } from './_schema-index.ts';

function compileSchemaList(value: unknown, cx: SchemaContext, at: string, keyword: string): Check[] {
  if (!Array.isArray(value) || value.length === 0) throw compileError(at, 'must be a non-empty array of schemas');
  return value.map((item, i) => compileSubschema(cx, item, `/${keyword}/${i}`));
}

/** Runs one branch for its verdict; its annotations reach `ann` only when it passes. */
function branchPasses(check: Check, data: unknown, ctx: RunContext, ann: Annotations | null): boolean {
  if (ann === null) return passes(check, data, ctx, null);
  const local = createAnnotations();
  const ok = passes(check, data, ctx, local);
  if (ok) mergeAnnotations(ann, local);
  return ok;
}

function compileAllOf(value: unknown, cx: SchemaContext, at: string): Check {
  const checks = compileSchemaList(value, cx, at, 'allOf');
  return (data, ctx, ann) => checkAll(checks, data, ctx, ann);
}

function compileAnyOf(value: unknown, cx: SchemaContext, at: string): Check {
  const checks = compileSchemaList(value, cx, at, 'anyOf');
  return (data, ctx, ann) => {
    let ok = false;
    for (const check of checks) {
      if (branchPasses(check, data, ctx, ann)) {
        ok = true;
        // Every passing branch contributes annotations, so keep going only when they are wanted.
        if (ann === null) break;
      }
    }
    if (!ok && ctx.record) report(ctx, at, 'anyOf', `${subject(ctx)} must match at least one schema in anyOf`);
    return ok;
  };
}

function compileOneOf(value: unknown, cx: SchemaContext, at: string): Check {
  const checks = compileSchemaList(value, cx, at, 'oneOf');
  return (data, ctx, ann) => {
    const matched: number[] = [];
    const local = ann === null ? null : createAnnotations();
    for (let i = 0; i < checks.length; i++) {
      if (branchPasses(checks[i] as Check, data, ctx, local)) {
        matched.push(i);
        if (matched.length > 1 && local === null) break;
      }
    }
    if (matched.length === 1) {
      if (ann !== null && local !== null) mergeAnnotations(ann, local);
      return true;
    }
    if (ctx.record) {
      const detail = matched.length === 0 ? 'matched none' : `matched ${matched.length} (${matched.join(', ')})`;
      report(ctx, at, 'oneOf', `${subject(ctx)} must match exactly one schema in oneOf: ${detail}`);
    }
    return false;
  };
}

function compileNot(value: unknown, cx: SchemaContext, at: string): Check {
  const check = compileSubschema(cx, value, '/not');
  return (data, ctx) => {
    if (!passes(check, data, ctx, null)) return true;
    if (ctx.record) report(ctx, at, 'not', `${subject(ctx)} must not match the schema in "not"`);
    return false;
  };
}

function compileIf(value: unknown, cx: SchemaContext): Check | undefined {
  const { schema } = cx;
  const hasThen = 'then' in schema;
  const hasElse = 'else' in schema;
  const condition = compileSubschema(cx, value, '/if');
  const thenCheck = hasThen ? compileSubschema(cx, schema['then'], '/then') : undefined;
  const elseCheck = hasElse ? compileSubschema(cx, schema['else'], '/else') : undefined;
  return (data, ctx, ann) => {
    const branch = branchPasses(condition, data, ctx, ann) ? thenCheck : elseCheck;
    return branch === undefined ? true : branch(data, ctx, ann);
  };
}

/** then and else alone do nothing, but must still be schemas. */
function compileThenElse(keyword: 'then' | 'else'): KeywordDef['compile'] {
  return (value, cx) => {
    if (!('if' in cx.schema)) compileSubschema(cx, value, `/${keyword}`);
    return undefined;
  };
}

function compileDependentSchemas(value: unknown, cx: SchemaContext, at: string): Check {
  if (!isObject(value)) throw compileError(at, 'must be an object of schemas');
  const entries = Object.keys(value).map((name) => [name, compileSubschema(cx, value[name], `/dependentSchemas/${escapePointerToken(name)}`)] as const);
  return (data, ctx, ann) => {
    if (!isObject(data)) return true;
    let ok = true;
    for (const [name, check] of entries) {
      if (!Object.hasOwn(data, name) || check(data, ctx, ann)) continue;
      if (!ctx.all) return false;
      ok = false;
    }
    return ok;
  };
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
