// Finds every schema resource ($id), anchor and subschema of a document before compilation, so
// that `$ref`s resolve to the right node whatever order they appear in. Registry documents
// are indexed when a reference first needs them.

import { compileError } from './_compile-error.ts';
import { escapePointerToken } from './_pointer.ts';
import { resolveUri, splitFragment } from './_uri.ts';
import type { Resource } from './_schema-types.ts';

export type { Resource } from './_schema-types.ts';

/** Where a subschema stands: its base URI, its resource and its location. */
export interface NodeInfo {
  base: string;
  resource: Resource;
  location: string;
}

export interface SchemaIndex {
  resources: Map<string, Resource>;
  nodes: Map<object, NodeInfo>;
  registry: Map<string, unknown>;
  documents: Map<unknown, Resource>;
}

/** The base URI of a compiled schema without `$id`: relative references resolve against it. */
export const ROOT_URI = 'urn:airlock:schema-root';

const ANCHOR = /^[A-Za-z_][-A-Za-z0-9._]*$/;

/** Keywords whose value is one subschema, an array of them, or an object of them. */
const SCHEMA_KEYWORDS = {
  single: ['items', 'contains', 'additionalProperties', 'propertyNames', 'if', 'then', 'else', 'not',
    'unevaluatedItems', 'unevaluatedProperties', 'contentSchema'],
  array: ['prefixItems', 'allOf', 'anyOf', 'oneOf'],
  map: ['properties', 'patternProperties', '$defs', 'dependentSchemas'],
} as const;

export function createIndex(registry: Map<string, unknown>): SchemaIndex {
  return { resources: new Map(), nodes: new Map(), registry, documents: new Map() };
}

/** Indexes a whole document retrieved from `uri`; `location` prefixes its pointers. */
export function indexDocument(index: SchemaIndex, doc: unknown, uri: string, location: string): Resource {
  const resource = createResource(uri, doc, location, null);
  index.documents.set(doc, resource);
  indexNode(index, doc, uri, resource, location);
  if (!index.resources.has(uri)) index.resources.set(uri, resource);
  return resource;
}

/** Indexes `node` and its subschemas (a no-op for nodes already indexed). */
export function indexNode(index: SchemaIndex, node: unknown, base: string, resource: Resource, location: string): void {
  if (!isObject(node) || index.nodes.has(node)) return;
  const id = node['$id'];
  if (id !== undefined) {
    if (typeof id !== 'string') throw compileError(`${location}/$id`, 'must be a string');
    const { uri, fragment } = splitFragment(resolveUri(base, id));
    if (fragment !== '') throw compileError(`${location}/$id`, `"${id}" must not have a fragment`);
    base = uri;
    resource = resource.root === node ? resource : createResource(uri, node, location, resource);
    resource.uri = uri;
    registerResource(index, resource, location);
  } else if (resource.root === node) {
    registerResource(index, resource, location);
  }
  for (const key of ['$anchor', '$dynamicAnchor'] as const) {
    const anchor = node[key];
    if (anchor === undefined) continue;
    if (typeof anchor !== 'string' || !ANCHOR.test(anchor)) throw compileError(`${location}/${key}`, `${JSON.stringify(anchor)} is not a valid anchor name`);
    const existing = resource.anchors.get(anchor);
    if (existing !== undefined && existing !== node) throw compileError(`${location}/${key}`, `anchor "${anchor}" is defined twice in ${describeResource(resource)}`);
    resource.anchors.set(anchor, node);
    if (key === '$dynamicAnchor') resource.dynamicAnchors.set(anchor, node);
  }
  index.nodes.set(node, { base, resource, location });
  forEachSubschema(node, (child, tokens) => indexNode(index, child, base, resource, location + tokens));
}

/** Calls `visit` with each subschema of `node` and the escaped pointer suffix that reaches it. */
function forEachSubschema(node: Record<string, unknown>, visit: (child: unknown, suffix: string) => void): void {
  for (const key of SCHEMA_KEYWORDS.single) if (key in node) visit(node[key], `/${key}`);
  for (const key of SCHEMA_KEYWORDS.array) {
    const list = node[key];
    if (Array.isArray(list)) list.forEach((child, i) => visit(child, `/${key}/${i}`));
  }
  for (const key of SCHEMA_KEYWORDS.map) {
    const map = node[key];
    if (!isObject(map)) continue;
    for (const name of Object.keys(map)) visit(map[name], `/${key}/${escapePointerToken(name)}`);
  }
}

/** The resource with this URI (no fragment), indexing its registry document on first use. */
export function findResource(index: SchemaIndex, uri: string): Resource | undefined {
  const known = index.resources.get(uri);
  if (known !== undefined) return known;
  const doc = index.registry.get(uri);
  if (doc === undefined) return undefined;
  // A document registered under two URIs (its key and its $id) is indexed once.
  const resource = index.documents.get(doc) ?? indexDocument(index, doc, uri, `${uri}#`);
  index.resources.set(uri, resource);
  return resource;
}

function createResource(uri: string, root: unknown, location: string, parent: Resource | null): Resource {
  return { uri, root, location, parent, anchors: new Map(), dynamicAnchors: new Map(), dynamicChecks: null, vocabulary: null };
}

function registerResource(index: SchemaIndex, resource: Resource, location: string): void {
  const existing = index.resources.get(resource.uri);
  if (existing !== undefined && existing !== resource && existing.root !== resource.root) {
    throw compileError(location, `$id "${resource.uri}" is already used by another schema`);
  }
  index.resources.set(resource.uri, resource);
}

/** A resource's name in messages. */
export function describeResource(resource: Resource): string {
  return resource.uri === ROOT_URI ? 'this schema' : `"${resource.uri}"`;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
