// Where a `$ref` or `$dynamicRef` leads: the subschema it names, found by URI, JSON Pointer or
// anchor. The compiler compiles what this finds; the unevaluatedProperties analysis reads it.

import { compileError } from './_compile-error.ts';
import { childOf, escapePointerToken, parsePointer } from './_pointer.ts';
import { describeResource, findResource, indexNode, isObject, type NodeInfo, type SchemaIndex } from './_schema-index.ts';
import { resolveUri, splitFragment } from './_uri.ts';

export interface ReferenceTarget {
  /** The subschema: an indexed schema object, or a boolean schema. */
  node: Record<string, unknown> | boolean;
  info: NodeInfo;
  /** The reference's fragment, percent-decoded. */
  fragment: string;
}

/**
 * Finds the subschema that `ref` names, resolved against `base`, and indexes it; fails compilation
 * naming `at` when there is none.
 */
export function locateReference(index: SchemaIndex, base: string, ref: unknown, at: string): ReferenceTarget {
  if (typeof ref !== 'string') throw compileError(at, 'must be a URI reference string');
  const { uri, fragment: encoded } = splitFragment(resolveUri(base, ref));
  const resource = findResource(index, uri);
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
      info = (isObject(node) ? index.nodes.get(node) : undefined) ?? { ...info, location: `${info.location}/${escapePointerToken(token)}` };
    }
  } else if (fragment !== '') {
    const anchored = resource.anchors.get(fragment);
    if (anchored === undefined) throw compileError(at, `cannot resolve "${ref}": no anchor "${fragment}" in ${describeResource(resource)}`);
    node = anchored;
    info = index.nodes.get(anchored) as NodeInfo;
  }
  if (typeof node === 'boolean') return { node, info, fragment };
  if (!isObject(node)) throw compileError(at, `cannot resolve "${ref}": it points to a ${typeof node}, not a schema`);
  // A pointer may reach into a keyword the index does not walk (an unknown keyword).
  if (!index.nodes.has(node)) indexNode(index, node, info.base, info.resource, info.location);
  return { node, info: index.nodes.get(node) as NodeInfo, fragment };
}
