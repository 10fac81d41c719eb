// Compiles schema objects into closures, once. Each subschema becomes a Check (errors and
// annotations) and a Test (the verdict alone, see _fused-test.ts); `$ref`s reach their target
// through a Holder, so recursive schemas compile without looping. Keywords are looked up in a
// table handed in by the caller, which keeps this file free of keyword details.

import { createAnnotations, mergeAnnotations, type Annotations } from './_annotations.ts';
import { compileError } from './_compile-error.ts';
import { fuseChecks, fuseTests, TRUE_TEST, type Compiled } from './_fused-test.ts';
import { escapePointerToken } from './_pointer.ts';
import { checkAll, jsonType, passes, report, type Check, type RunContext } from './_run-context.ts';
import { indexNode, isObject, type NodeInfo, type Resource, type SchemaIndex } from './_schema-index.ts';
import type { Test } from './_verdict.ts';
import { vocabularyOf, type Vocabulary, type VocabularyName } from './_vocabularies.ts';

/** A compiled subschema; `check` and `test` are replaced once compilation of the subschema completes. */
export interface Holder extends Compiled {
  resource: Resource;
}

export interface CompileState {
  index: SchemaIndex;
  keywords: ReadonlyMap<string, KeywordDef>;
  holders: Map<object, Holder>;
  /** Set when some $dynamicRef resolves dynamically: only then is the dynamic scope tracked. */
  flags: { dynamic: boolean };
  formats: 'annotate' | 'assert';
  /** Compiled regular expressions by source: patternProperties and additionalProperties share them. */
  patterns: Map<string, RegExp>;
  /**
   * Whether tests are built. A test cannot see the dynamic scope, so a schema whose $dynamicRef
   * resolves dynamically is compiled again without them (compileSchema); every test is NEVER then.
   */
  tests: boolean;
  /** Where a keyword without a test of its own runs its check for a verdict: records nothing. */
  verdict: RunContext;
  /** Counts validate() calls, so that a check may reuse what its test found in the same call. */
  calls: { count: number };
}

/** What a keyword compiler sees: the schema object holding the keyword, and where it stands. */
export interface SchemaContext {
  state: CompileState;
  schema: Record<string, unknown>;
  info: NodeInfo;
  vocabulary: Vocabulary;
}

/**
 * Compiles one keyword's value; `at` is the keyword's schema location. Returns undefined for
 * keywords with nothing to check (annotations, or `then` without `if`); a plain Check when the
 * keyword has no test of its own (its check then runs for the verdict too).
 */
export type KeywordCompiler = (value: unknown, cx: SchemaContext, at: string) => Check | Compiled | undefined;

export interface KeywordDef {
  vocabulary: VocabularyName;
  compile: KeywordCompiler;
  /**
   * Runs after its siblings and reads their annotations (unevaluated*). A late keyword whose
   * compiler returns a Compiled found at compile time that it needs none, and runs as the others do.
   */
  late?: boolean;
}

const TRUE_CHECK: Check = () => true;
const FALSE_TEST: Test = () => false;
/** The test of every subschema when tests are off: "cannot tell", so the check always runs. */
const NEVER: Test = () => false;

function notReady(): boolean {
  throw new TypeError('A schema was used before its compilation finished');
}

/** Compiles the subschema `value` found at the parent's location plus `suffix` (escaped tokens). */
export function compileSubschema(cx: SchemaContext, value: unknown, suffix: string): Compiled {
  const location = cx.info.location + suffix;
  if (typeof value === 'boolean') return { check: booleanCheck(value, location), test: booleanTest(cx.state, value) };
  if (!isObject(value)) throw compileError(location, `must be a schema (an object or a boolean), got ${jsonType(value)}`);
  const { index } = cx.state;
  let info = index.nodes.get(value);
  if (info === undefined) {
    indexNode(index, value, cx.info.base, cx.info.resource, location);
    info = index.nodes.get(value) as NodeInfo;
  }
  return readyOrLater(compileNode(cx.state, value, info));
}

/** The holder's check and test, or, while it is still compiling (a recursive schema), calls through it. */
export function readyOrLater(holder: Holder): Compiled {
  if (holder.check !== notReady) return holder.leaf === undefined ? { check: holder.check, test: holder.test } : { check: holder.check, test: holder.test, leaf: holder.leaf };
  return { check: (data, ctx, ann) => holder.check(data, ctx, ann), test: (data) => holder.test(data) };
}

/**
 * A subschema's verdict inside a check: its test, or with tests off its check run without
 * recording (which keeps the dynamic scope of `ctx`).
 */
export function verdictOf(state: CompileState, sub: Compiled): (data: unknown, ctx: RunContext) => boolean {
  if (state.tests) return sub.test;
  const { check } = sub;
  return (data, ctx) => passes(check, data, ctx, null);
}

/** Compiles a schema object once; later calls return the same holder. */
export function compileNode(state: CompileState, node: Record<string, unknown>, info: NodeInfo): Holder {
  const cached = state.holders.get(node);
  if (cached !== undefined) return cached;
  const holder: Holder = { check: notReady, test: notReady, resource: info.resource };
  state.holders.set(node, holder);
  compileDynamicAnchors(state, info.resource);
  const vocabulary = vocabularyOf(state.index, info.resource);
  const cx: SchemaContext = { state, schema: node, info, vocabulary };
  const early: Compiled[] = [];
  const decided: Compiled[] = [];
  const late: Check[] = [];
  for (const key of Object.keys(node)) {
    const def = state.keywords.get(key);
    if (def === undefined || !vocabulary.has(def.vocabulary)) continue;
    const compiled = def.compile(node[key], cx, `${info.location}/${escapePointerToken(key)}`);
    if (compiled === undefined) continue;
    if (typeof compiled !== 'function') (def.late === true ? decided : early).push(compiled);
    else if (def.late === true) late.push(compiled);
    else early.push({ check: compiled, test: (data) => compiled(data, state.verdict, null) });
  }
  // Keywords decided at compile time still run after the others, so errors come in one order.
  const checks = [...early, ...decided];
  const check = combineChecks(fuseChecks(checks), late);
  // With tests on no $dynamicRef resolves dynamically (else compileSchema compiles again without
  // tests), so the dynamic scope need not be kept.
  holder.check = info.resource.root === node && !state.tests ? scopedCheck(state.flags, info.resource, check) : check;
  if (!state.tests) holder.test = NEVER;
  else if (late.length > 0) holder.test = (data) => check(data, state.verdict, null);
  else {
    const fused = fuseTests(checks);
    holder.test = fused.test;
    if (fused.leaf !== undefined) holder.leaf = fused.leaf;
  }
  return holder;
}

/** The test of the boolean schema `value` (NEVER when tests are off). */
export function booleanTest(state: { tests: boolean }, value: boolean): Test {
  if (!state.tests) return NEVER;
  return value ? TRUE_TEST : FALSE_TEST;
}

export function booleanCheck(value: boolean, location: string): Check {
  if (value) return TRUE_CHECK;
  const which = location === '' ? 'the schema' : `the schema at "${location}"`;
  const describe = (subject: string): string => `${subject} is not allowed: ${which} is false`;
  return (data, ctx) => {
    if (ctx.record) report(ctx, location, 'false', describe, data);
    return false;
  };
}

/** Runs `check` with `resource` on the dynamic scope, when the scope is tracked at all. */
export function runInResource(
  flags: { dynamic: boolean },
  resource: Resource,
  check: Check,
  data: unknown,
  ctx: RunContext,
  ann: Annotations | null,
): boolean {
  if (!flags.dynamic || ctx.scope[ctx.scope.length - 1] === resource) return check(data, ctx, ann);
  ctx.scope.push(resource);
  const ok = check(data, ctx, ann);
  ctx.scope.pop();
  return ok;
}

function scopedCheck(flags: { dynamic: boolean }, resource: Resource, check: Check): Check {
  return (data, ctx, ann) => runInResource(flags, resource, check, data, ctx, ann);
}

function combineChecks(early: Check[], late: Check[]): Check {
  if (late.length > 0) {
    // unevaluated* see only what this schema and its in-place subschemas evaluated.
    const checks = [...early, ...late];
    return (data, ctx, ann) => {
      const local = createAnnotations();
      const ok = checkAll(checks, data, ctx, local);
      if (ok && ann !== null) mergeAnnotations(ann, local);
      return ok;
    };
  }
  return allChecks(early);
}

/** Every check in turn, stopping at the first failure unless `ctx.all`; short lists unrolled. */
function allChecks(checks: readonly Check[]): Check {
  const [a, b, c] = checks;
  if (a === undefined) return TRUE_CHECK;
  if (b === undefined) return a;
  if (c === undefined) {
    return (data, ctx, ann) => {
      const first = a(data, ctx, ann);
      if (!first && !ctx.all) return false;
      return b(data, ctx, ann) && first;
    };
  }
  return (data, ctx, ann) => checkAll(checks, data, ctx, ann);
}

/** Compiles the `$dynamicAnchor` subschemas of a resource, which a $dynamicRef may jump to. */
function compileDynamicAnchors(state: CompileState, resource: Resource): void {
  if (resource.dynamicChecks !== null) return;
  resource.dynamicChecks = new Map();
  for (const [name, node] of resource.dynamicAnchors) {
    const info = state.index.nodes.get(node) as NodeInfo;
    resource.dynamicChecks.set(name, compileNode(state, node as Record<string, unknown>, info));
  }
}
