// Which keywords a schema resource understands, from the `$vocabulary` of its `$schema`
// (draft 2020-12 §8.1.2). Keywords of vocabularies a dialect leaves out are ignored, as unknown
// keywords are.

import { compileError } from './_compile-error.ts';
import { findResource, isObject, type SchemaIndex } from './_schema-index.ts';
import type { Resource, Vocabulary, VocabularyName } from './_schema-types.ts';
import { splitFragment } from './_uri.ts';

export type { Vocabulary, VocabularyName } from './_schema-types.ts';

export const METASCHEMA_URI = 'https://json-schema.org/draft/2020-12/schema';
const VOCABULARY_PREFIX = 'https://json-schema.org/draft/2020-12/vocab/';
const KNOWN: ReadonlySet<string> = new Set<VocabularyName>([
  'core', 'applicator', 'unevaluated', 'validation', 'meta-data', 'format-annotation', 'format-assertion', 'content',
]);

/** The vocabularies of the 2020-12 metaschema itself. */
export const DEFAULT_VOCABULARY: Vocabulary = new Set<VocabularyName>([
  'core', 'applicator', 'unevaluated', 'validation', 'meta-data', 'format-annotation', 'content',
]);

/** The vocabulary of `resource`: from its own `$schema`, else from the resource enclosing it. */
export function vocabularyOf(index: SchemaIndex, resource: Resource): Vocabulary {
  if (resource.vocabulary !== null) return resource.vocabulary;
  const declared = isObject(resource.root) ? resource.root['$schema'] : undefined;
  let vocabulary: Vocabulary;
  if (declared !== undefined) vocabulary = dialectVocabulary(index, declared, `${resource.location}/$schema`);
  else vocabulary = resource.parent === null ? DEFAULT_VOCABULARY : vocabularyOf(index, resource.parent);
  resource.vocabulary = vocabulary;
  return vocabulary;
}

function dialectVocabulary(index: SchemaIndex, declared: unknown, location: string): Vocabulary {
  if (typeof declared !== 'string') throw compileError(location, 'must be a URI string');
  const { uri, fragment } = splitFragment(declared);
  if (fragment !== '') throw compileError(location, `"${declared}" must not have a fragment`);
  if (uri === METASCHEMA_URI) return DEFAULT_VOCABULARY;
  const meta = findResource(index, uri);
  if (meta === undefined) {
    throw compileError(location, `unknown $schema "${declared}": only draft 2020-12 and metaschemas in the registry are supported`);
  }
  const declaredVocabularies = isObject(meta.root) ? meta.root['$vocabulary'] : undefined;
  // A metaschema without $vocabulary describes the default dialect.
  if (declaredVocabularies === undefined) return DEFAULT_VOCABULARY;
  if (!isObject(declaredVocabularies)) throw compileError(`${meta.location}/$vocabulary`, 'must be an object');
  const vocabulary = new Set<VocabularyName>(['core']);
  for (const [vocabularyUri, required] of Object.entries(declaredVocabularies)) {
    const name = vocabularyUri.startsWith(VOCABULARY_PREFIX) ? vocabularyUri.slice(VOCABULARY_PREFIX.length) : '';
    if (KNOWN.has(name)) vocabulary.add(name as VocabularyName);
    else if (required === true) {
      throw compileError(`${meta.location}/$vocabulary`, `required vocabulary "${vocabularyUri}" is not supported`);
    }
  }
  return vocabulary;
}
