// Core vocabulary keywords that act: $ref, $dynamicRef and $defs (compiled eagerly so that a
// broken definition is reported at compile time even when nothing references it yet).

import { compileError } from './_compile-error.ts';
import { booleanCheck, compileNode, compileSubschema, runInResource, type CompileState, type Holder, type KeywordDef, type SchemaContext } from './_compile.ts';
import { childOf, escapePointerToken, parsePointer } from './_pointer.ts';
import type { Check } from './_run-context.ts';
import { describeResource, findResource, indexNode, isObject, type NodeInfo } from './_schema-index.ts';
import { resolveUri, splitFragment } from './_uri.ts';

interface Target {
  holder: Holder;
  node: unknown;
  /** The reference's fragment, percent-decoded. */
  fragment: string;
}

/** Resolves `ref` against `base` to a compiled subschema, or fails compilation naming `at`. */
function resolveReference(state: CompileState, base: string, ref: unknown, at: string): Target {
  if (typeof ref !== 'string') throw compileError(at, 'must be a URI reference string');
  const { uri, fragment: encoded } = splitFragment(resolveUri(base, ref));
  const resource = findResource(state.index, uri);
  if (resource === undefined) throw compileError(at, `cannot resolve "${ref}": no schema "${uri}" is known (add it to the registry)`);
  let fragment: string;
  try {
    fragment = decodeURIComponent(encoded);
  } catch (cause) {
    throw compileError(at, `cannot resolve "${ref}": bad percent-encoding in its fragment (${String(cause)})`);
  }
  let node: unknown = resource.root;
  let info: NodeInfo = { base: resource.uri, resource, location: resource.location };
  if (fragment.startsWith('/')) {
    const tokens = parsePointer(fragment);
    if (tokens === undefined) throw compileError(at, `cannot resolve "${ref}": "${fragment}" is not a JSON Pointer`);
    for (const token of tokens) {
      const child = childOf(node, token);
      if (!child.found) throw compileError(at, `cannot resolve "${ref}": nothing at "${fragment}" in ${describeResource(resource)}`);
      node = child.value;
      info = (isObject(node) ? state.index.nodes.get(node) : undefined) ?? { ...info, location: `${info.location}/${escapePointerToken(token)}` };
    }
  } else if (fragment !== '') {
    const anchored = resource.anchors.get(fragment);
    if (anchored === undefined) throw compileError(at, `cannot resolve "${ref}": no anchor "${fragment}" in ${describeResource(resource)}`);
    node = anchored;
    info = state.index.nodes.get(anchored) as NodeInfo;
  }
  if (typeof node === 'boolean') return { holder: { check: booleanCheck(node, info.location), resource: info.resource }, node, fragment };
  if (!isObject(node)) throw compileError(at, `cannot resolve "${ref}": it points to a ${typeof node}, not a schema`);
  // A pointer may reach into a keyword the index does not walk (an unknown keyword).
  if (!state.index.nodes.has(node)) indexNode(state.index, node, info.base, info.resource, info.location);
  return { holder: compileNode(state, node, state.index.nodes.get(node) as NodeInfo), node, fragment };
}

function compileRef(value: unknown, cx: SchemaContext, at: string): Check {
  const { holder } = resolveReference(cx.state, cx.info.base, value, at);
  const flags = cx.state.flags;
  return (data, ctx, ann) => runInResource(flags, holder.resource, holder.check, data, ctx, ann);
}

/**
 * $dynamicRef (2020-12 §8.2.3.2): resolved like $ref, unless its target carries a matching
 * $dynamicAnchor; then the outermost resource in the dynamic scope with that anchor wins.
 */
function compileDynamicRef(value: unknown, cx: SchemaContext, at: string): Check {
  const { holder, node, fragment } = resolveReference(cx.state, cx.info.base, value, at);
  const flags = cx.state.flags;
  const isDynamic = fragment !== '' && !fragment.startsWith('/') && isObject(node) && node['$dynamicAnchor'] === fragment;
  if (!isDynamic) return (data, ctx, ann) => runInResource(flags, holder.resource, holder.check, data, ctx, ann);
  flags.dynamic = true;
  return (data, ctx, ann) => {
    let target = holder;
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
