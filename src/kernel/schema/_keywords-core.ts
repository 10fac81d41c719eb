// Core vocabulary keywords that act: $ref, $dynamicRef and $defs (compiled eagerly so that a
// broken definition is reported at compile time even when nothing references it yet).

import { compileError } from './_compile-error.ts';
import { booleanCheck, booleanTest, compileNode, compileSubschema, readyOrLater, runInResource, type CompileState, type Holder, type KeywordDef, type SchemaContext } from './_compile.ts';
import type { Compiled } from './_fused-test.ts';
import { locateReference } from './_locate-reference.ts';
import { escapePointerToken } from './_pointer.ts';
import type { Check } from './_run-context.ts';
import { isObject } from './_schema-index.ts';

interface Target {
  holder: Holder;
  node: unknown;
  /** The reference's fragment, percent-decoded. */
  fragment: string;
}

/** Resolves `ref` against `base` to a compiled subschema, or fails compilation naming `at`. */
function resolveReference(state: CompileState, base: string, ref: unknown, at: string): Target {
  const { node, info, fragment } = locateReference(state.index, base, ref, at);
  if (typeof node === 'boolean') return { holder: { check: booleanCheck(node, info.location), test: booleanTest(state, node), resource: info.resource }, node, fragment };
  return { holder: compileNode(state, node, info), node, fragment };
}

/** A reference's check and test: the check enters the target's resource for the dynamic scope. */
function referenceTo(state: CompileState, holder: Holder): Compiled {
  const { flags } = state;
  const ready = readyOrLater(holder);
  const { test, leaf } = ready;
  // With tests on, no dynamic scope is kept (see compileNode).
  const check: Check = state.tests ? ready.check : (data, ctx, ann) => runInResource(flags, holder.resource, holder.check, data, ctx, ann);
  return leaf === undefined ? { check, test } : { check, test, leaf };
}

function compileRef(value: unknown, cx: SchemaContext, at: string): Compiled {
  return referenceTo(cx.state, resolveReference(cx.state, cx.info.base, value, at).holder);
}

/**
 * $dynamicRef (2020-12 §8.2.3.2): resolved like $ref, unless its target carries a matching
 * $dynamicAnchor; then the outermost resource in the dynamic scope with that anchor wins.
 */
function compileDynamicRef(value: unknown, cx: SchemaContext, at: string): Check | Compiled {
  const { holder, node, fragment } = resolveReference(cx.state, cx.info.base, value, at);
  const flags = cx.state.flags;
  const isDynamic = fragment !== '' && !fragment.startsWith('/') && isObject(node) && node['$dynamicAnchor'] === fragment;
  if (!isDynamic) return referenceTo(cx.state, holder);
  // No test can see the dynamic scope: compileSchema compiles again without tests.
  flags.dynamic = true;
  return (data, ctx, ann) => {
    let target: Pick<Holder, 'check' | 'resource'> = holder;
    for (const resource of ctx.scope) {
      const found = resource.dynamicChecks?.get(fragment);
      if (found !== undefined) {
        target = found;
        break;
      }
    }
    return runInResource(flags, target.resource, target.check, data, ctx, ann);
  };
}

function compileDefs(value: unknown, cx: SchemaContext, at: string): undefined {
  if (!isObject(value)) throw compileError(at, 'must be an object of schemas');
  for (const name of Object.keys(value)) compileSubschema(cx, value[name], `/$defs/${escapePointerToken(name)}`);
  return undefined;
}

export const CORE_KEYWORDS: Record<string, KeywordDef> = {
  $ref: { vocabulary: 'core', compile: compileRef },
  $dynamicRef: { vocabulary: 'core', compile: compileDynamicRef },
  $defs: { vocabulary: 'core', compile: compileDefs },
};
