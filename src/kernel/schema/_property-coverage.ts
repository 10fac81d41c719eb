// Which property names a subschema can mark evaluated, worked out from the schema alone. When
// everything the in-place subschemas of a schema can evaluate is covered by its own
// properties, patternProperties or additionalProperties, its unevaluatedProperties needs no
// annotations at run time: it is decided at compile time, like additionalProperties.

import type { CompileState } from './_compile.ts';
import { locateReference } from './_locate-reference.ts';
import { isObject } from './_schema-index.ts';
import { vocabularyOf } from './_vocabularies.ts';

/** Property names a schema may evaluate: by name, by pattern source, or all of them. */
export interface PropertyCoverage {
  names: Set<string>;
  patterns: Set<string>;
  all: boolean;
}

/** In-place keywords whose subschemas' annotations reach the schema that holds them. */
const IN_PLACE_LISTS = ['allOf', 'anyOf', 'oneOf'] as const;
const IN_PLACE_SINGLE = ['if', 'then', 'else'] as const;

function emptyCoverage(): PropertyCoverage {
  return { names: new Set(), patterns: new Set(), all: false };
}

/** What `node`'s own properties, patternProperties and additionalProperties evaluate. */
export function ownCoverage(node: Record<string, unknown>): PropertyCoverage {
  const coverage = emptyCoverage();
  const properties = node['properties'];
  if (isObject(properties)) for (const name of Object.keys(properties)) coverage.names.add(name);
  const patterns = node['patternProperties'];
  if (isObject(patterns)) for (const source of Object.keys(patterns)) coverage.patterns.add(source);
  if ('additionalProperties' in node) coverage.all = true;
  return coverage;
}

/**
 * Everything `node` and its in-place subschemas may evaluate, leaving out `node`'s keyword
 * `except`; undefined when the schema cannot tell ($dynamicRef, a cycle of references, a
 * keyword whose vocabulary or value is unusual).
 */
export function reachableCoverage(state: CompileState, node: unknown, options: { except: string; visiting?: Set<object> }): PropertyCoverage | undefined {
  const { except, visiting = new Set<object>() } = options;
  const coverage = emptyCoverage();
  if (typeof node === 'boolean') return coverage;
  if (!isObject(node) || visiting.has(node)) return undefined;
  const info = state.index.nodes.get(node);
  if (info === undefined) return undefined;
  visiting.add(node);
  const vocabulary = vocabularyOf(state.index, info.resource);
  const add = (from: PropertyCoverage | undefined): boolean => {
    if (from === undefined) return false;
    for (const name of from.names) coverage.names.add(name);
    for (const source of from.patterns) coverage.patterns.add(source);
    if (from.all) coverage.all = true;
    return true;
  };
  const child = (value: unknown): boolean => add(reachableCoverage(state, value, { except: '', visiting }));
  let known = true;
  if (vocabulary.has('applicator')) {
    known &&= add(ownCoverage(node));
    for (const key of IN_PLACE_LISTS) {
      const list = node[key];
      if (list !== undefined) known &&= Array.isArray(list) && list.every(child);
    }
    if ('if' in node) for (const key of IN_PLACE_SINGLE) if (key in node) known &&= child(node[key]);
    const dependent = node['dependentSchemas'];
    if (dependent !== undefined) known &&= isObject(dependent) && Object.values(dependent).every(child);
  }
  if (vocabulary.has('unevaluated') && except !== 'unevaluatedProperties' && 'unevaluatedProperties' in node) coverage.all = true;
  if ('$ref' in node) known &&= child(locateReference(state.index, info.base, node['$ref'], `${info.location}/$ref`).node);
  if ('$dynamicRef' in node) known = false;
  visiting.delete(node);
  return known ? coverage : undefined;
}

/** True when every name `inner` may evaluate is one `outer` evaluates too. */
export function coversAll(outer: PropertyCoverage, inner: PropertyCoverage, patternOf: (source: string) => RegExp): boolean {
  if (outer.all) return true;
  if (inner.all) return false;
  for (const source of inner.patterns) if (!outer.patterns.has(source)) return false;
  const regexes = [...outer.patterns].map(patternOf);
  for (const name of inner.names) if (!outer.names.has(name) && !regexes.some((regex) => regex.test(name))) return false;
  return true;
}
