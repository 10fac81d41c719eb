// Compiles schema objects into closures, once. Each subschema becomes one Check; `$ref`s reach
// their target through a Holder, so recursive schemas compile without looping. Keywords are
// looked up in a table handed in by the caller, which keeps this file free of keyword details.

import { createAnnotations, mergeAnnotations, type Annotations } from './_annotations.ts';
import { compileError } from './_compile-error.ts';
import { escapePointerToken } from './_pointer.ts';
import { checkAll, jsonType, report, subject, type Check, type RunContext } from './_run-context.ts';
import { indexNode, isObject, type NodeInfo, type Resource, type SchemaIndex } from './_schema-index.ts';
import { vocabularyOf, type Vocabulary, type VocabularyName } from './_vocabularies.ts';

/** A compiled subschema; `check` is replaced once compilation of the subschema completes. */
export interface Holder {
  check: Check;
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
 * keywords with nothing to check (annotations, or `then` without `if`).
 */
export type KeywordCompiler = (value: unknown, cx: SchemaContext, at: string) => Check | undefined;

export interface KeywordDef {
  vocabulary: VocabularyName;
  compile: KeywordCompiler;
  /** Runs after its siblings and reads their annotations (unevaluated*). */
  late?: boolean;
}

const TRUE_CHECK: Check = () => true;

function notReady(): boolean {
  throw new TypeError('A schema was used before its compilation finished');
}

/** Compiles the subschema `value` found at the parent's location plus `suffix` (escaped tokens). */
export function compileSubschema(cx: SchemaContext, value: unknown, suffix: string): Check {
  const location = cx.info.location + suffix;
  if (typeof value === 'boolean') return booleanCheck(value, location);
  if (!isObject(value)) throw compileError(location, `must be a schema (an object or a boolean), got ${jsonType(value)}`);
  const { index } = cx.state;
  let info = index.nodes.get(value);
  if (info === undefined) {
    indexNode(index, value, cx.info.base, cx.info.resource, location);
    info = index.nodes.get(value) as NodeInfo;
  }
  const holder = compileNode(cx.state, value, info);
  return holder.check === notReady ? (data, ctx, ann) => holder.check(data, ctx, ann) : holder.check;
}

/** Compiles a schema object once; later calls return the same holder. */
export function compileNode(state: CompileState, node: Record<string, unknown>, info: NodeInfo): Holder {
  const cached = state.holders.get(node);
  if (cached !== undefined) return cached;
  const holder: Holder = { check: notReady, resource: info.resource };
  state.holders.set(node, holder);
  compileDynamicAnchors(state, info.resource);
  const vocabulary = vocabularyOf(state.index, info.resource);
  const cx: SchemaContext = { state, schema: node, info, vocabulary };
  const early: Check[] = [];
  const late: Check[] = [];
  for (const key of Object.keys(node)) {
    const def = state.keywords.get(key);
    if (def === undefined || !vocabulary.has(def.vocabulary)) continue;
    const check = def.compile(node[key], cx, `${info.location}/${escapePointerToken(key)}`);
    if (check !== undefined) (def.late === true ? late : early).push(check);
  }
  const check = combineChecks(early, late);
  holder.check = info.resource.root === node ? scopedCheck(state.flags, info.resource, check) : check;
  return holder;
}

export function booleanCheck(value: boolean, location: string): Check {
  if (value) return TRUE_CHECK;
  return (_data, ctx) => {
    const which = location === '' ? 'the schema' : `the schema at "${location}"`;
    if (ctx.record) report(ctx, location, 'false', `${subject(ctx)} is not allowed: ${which} is false`);
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
  if (early.length === 0) return TRUE_CHECK;
  if (early.length === 1) return early[0] as Check;
  return (data, ctx, ann) => checkAll(early, data, ctx, ann);
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
