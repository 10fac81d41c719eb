// The draft 2020-12 metaschema and its vocabulary metaschemas (json-schema.org), as data, so
// that schemas can `$ref` them and `$schema` can name them without any network. Registered under
// their official `$id`s before any user registry entry.

const DRAFT = 'https://json-schema.org/draft/2020-12';

function vocabularyMetaschema(name: string, title: string, body: Record<string, unknown>): Record<string, unknown> {
  return {
    $schema: `${DRAFT}/schema`,
    $id: `${DRAFT}/meta/${name}`,
    $vocabulary: { [`${DRAFT}/vocab/${name}`]: true },
    $dynamicAnchor: 'meta',
    title,
    type: ['object', 'boolean'],
    ...body,
  };
}

// Functions, not constants: each place needs its own object, because the compiler keys
// subschemas by identity and each document resolves `#meta` against its own base.
function meta(): Record<string, unknown> {
  return { $dynamicRef: '#meta' };
}

function metaMap(): Record<string, unknown> {
  return { type: 'object', additionalProperties: meta(), default: {} };
}

const CORE = vocabularyMetaschema('core', 'Core vocabulary meta-schema', {
  properties: {
    $id: { $ref: '#/$defs/uriReferenceString', $comment: 'Non-empty fragments not allowed.', pattern: '^[^#]*#?$' },
    $schema: { $ref: '#/$defs/uriString' },
    $ref: { $ref: '#/$defs/uriReferenceString' },
    $anchor: { $ref: '#/$defs/anchorString' },
    $dynamicRef: { $ref: '#/$defs/uriReferenceString' },
    $dynamicAnchor: { $ref: '#/$defs/anchorString' },
    $vocabulary: { type: 'object', propertyNames: { $ref: '#/$defs/uriString' }, additionalProperties: { type: 'boolean' } },
    $comment: { type: 'string' },
    $defs: { type: 'object', additionalProperties: meta() },
  },
  $defs: {
    anchorString: { type: 'string', pattern: '^[A-Za-z_][-A-Za-z0-9._]*$' },
    uriString: { type: 'string', format: 'uri' },
    uriReferenceString: { type: 'string', format: 'uri-reference' },
  },
});

const APPLICATOR = vocabularyMetaschema('applicator', 'Applicator vocabulary meta-schema', {
  properties: {
    prefixItems: { $ref: '#/$defs/schemaArray' },
    items: meta(),
    contains: meta(),
    additionalProperties: meta(),
    properties: metaMap(),
    patternProperties: { ...metaMap(), propertyNames: { format: 'regex' } },
    dependentSchemas: metaMap(),
    propertyNames: meta(),
    if: meta(),
    then: meta(),
    else: meta(),
    allOf: { $ref: '#/$defs/schemaArray' },
    anyOf: { $ref: '#/$defs/schemaArray' },
    oneOf: { $ref: '#/$defs/schemaArray' },
    not: meta(),
  },
  $defs: { schemaArray: { type: 'array', minItems: 1, items: meta() } },
});

const UNEVALUATED = vocabularyMetaschema('unevaluated', 'Unevaluated applicator vocabulary meta-schema', {
  properties: { unevaluatedItems: meta(), unevaluatedProperties: meta() },
});

const VALIDATION = vocabularyMetaschema('validation', 'Validation vocabulary meta-schema', {
  properties: {
    type: {
      anyOf: [
        { $ref: '#/$defs/simpleTypes' },
        { type: 'array', items: { $ref: '#/$defs/simpleTypes' }, minItems: 1, uniqueItems: true },
      ],
    },
    const: true,
    enum: { type: 'array', items: true },
    multipleOf: { type: 'number', exclusiveMinimum: 0 },
    maximum: { type: 'number' },
    exclusiveMaximum: { type: 'number' },
    minimum: { type: 'number' },
    exclusiveMinimum: { type: 'number' },
    maxLength: { $ref: '#/$defs/nonNegativeInteger' },
    minLength: { $ref: '#/$defs/nonNegativeIntegerDefault0' },
    pattern: { type: 'string', format: 'regex' },
    maxItems: { $ref: '#/$defs/nonNegativeInteger' },
    minItems: { $ref: '#/$defs/nonNegativeIntegerDefault0' },
    uniqueItems: { type: 'boolean', default: false },
    maxContains: { $ref: '#/$defs/nonNegativeInteger' },
    minContains: { $ref: '#/$defs/nonNegativeInteger', default: 1 },
    maxProperties: { $ref: '#/$defs/nonNegativeInteger' },
    minProperties: { $ref: '#/$defs/nonNegativeIntegerDefault0' },
    required: { $ref: '#/$defs/stringArray' },
    dependentRequired: { type: 'object', additionalProperties: { $ref: '#/$defs/stringArray' } },
  },
  $defs: {
    nonNegativeInteger: { type: 'integer', minimum: 0 },
    nonNegativeIntegerDefault0: { $ref: '#/$defs/nonNegativeInteger', default: 0 },
    simpleTypes: { enum: ['array', 'boolean', 'integer', 'null', 'number', 'object', 'string'] },
    stringArray: { type: 'array', items: { type: 'string' }, uniqueItems: true, default: [] },
  },
});

const META_DATA = vocabularyMetaschema('meta-data', 'Meta-data vocabulary meta-schema', {
  properties: {
    title: { type: 'string' },
    description: { type: 'string' },
    default: true,
    deprecated: { type: 'boolean', default: false },
    readOnly: { type: 'boolean', default: false },
    writeOnly: { type: 'boolean', default: false },
    examples: { type: 'array', items: true },
  },
});

const FORMAT_ANNOTATION = vocabularyMetaschema('format-annotation', 'Format vocabulary meta-schema for annotation results', {
  properties: { format: { type: 'string' } },
});

const FORMAT_ASSERTION = vocabularyMetaschema('format-assertion', 'Format vocabulary meta-schema for assertion results', {
  properties: { format: { type: 'string' } },
});

const CONTENT = vocabularyMetaschema('content', 'Content vocabulary meta-schema', {
  properties: { contentEncoding: { type: 'string' }, contentMediaType: { type: 'string' }, contentSchema: meta() },
});

const SCHEMA = {
  $schema: `${DRAFT}/schema`,
  $id: `${DRAFT}/schema`,
  $vocabulary: Object.fromEntries(
    ['core', 'applicator', 'unevaluated', 'validation', 'meta-data', 'format-annotation', 'content'].map((v) => [`${DRAFT}/vocab/${v}`, true]),
  ),
  $dynamicAnchor: 'meta',
  title: 'Core and Validation specifications meta-schema',
  allOf: ['core', 'applicator', 'unevaluated', 'validation', 'meta-data', 'format-annotation', 'content'].map((v) => ({ $ref: `meta/${v}` })),
  type: ['object', 'boolean'],
  $comment: 'This meta-schema also defines keywords that have appeared in previous drafts in order to prevent incompatible extensions as they remain in common use.',
  properties: {
    definitions: { $comment: '"definitions" has been replaced by "$defs".', ...metaMap(), deprecated: true },
    dependencies: {
      $comment: '"dependencies" has been split and replaced by "dependentSchemas" and "dependentRequired" in order to serve their differing semantics.',
      type: 'object',
      additionalProperties: { anyOf: [meta(), { $ref: 'meta/validation#/$defs/stringArray' }] },
      deprecated: true,
      default: {},
    },
    $recursiveAnchor: { $comment: '"$recursiveAnchor" has been replaced by "$dynamicAnchor".', $ref: 'meta/core#/$defs/anchorString', deprecated: true },
    $recursiveRef: { $comment: '"$recursiveRef" has been replaced by "$dynamicRef".', $ref: 'meta/core#/$defs/uriReferenceString', deprecated: true },
  },
};

/** Every draft 2020-12 metaschema document, by `$id`. */
export const METASCHEMAS: ReadonlyMap<string, unknown> = new Map(
  [SCHEMA, CORE, APPLICATOR, UNEVALUATED, VALIDATION, META_DATA, FORMAT_ANNOTATION, FORMAT_ASSERTION, CONTENT].map((doc) => [doc['$id'] as string, doc]),
);
