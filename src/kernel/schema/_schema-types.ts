// The types the schema index, the run context and the vocabularies share: a schema resource
// holds compiled checks and its vocabulary, and a check runs in a context that keeps the
// resources entered. They refer to one another, so they live here, below the three files that
// use them, instead of in those files importing each other in a circle.

import type { Annotations } from './_annotations.ts';

export type VocabularyName =
  | 'core'
  | 'applicator'
  | 'unevaluated'
  | 'validation'
  | 'meta-data'
  | 'format-annotation'
  | 'format-assertion'
  | 'content';

export type Vocabulary = ReadonlySet<VocabularyName>;

/** A schema resource: a document root or a subschema with `$id`. */
export interface Resource {
  uri: string;
  root: unknown;
  /** Schema location of the root: "" or "/..." in the compiled schema, "<uri>#..." elsewhere. */
  location: string;
  parent: Resource | null;
  anchors: Map<string, object>;
  dynamicAnchors: Map<string, object>;
  /** Compiled `$dynamicAnchor` subschemas, filled in by the compiler. */
  dynamicChecks: Map<string, { check: Check; resource: Resource }> | null;
  vocabulary: Vocabulary | null;
}

/** One compiled schema or keyword: true when `data` passes. */
export type Check = (data: unknown, ctx: RunContext, ann: Annotations | null) => boolean;

/** A failure's message from its subject (`Value at "/a/0"`) and the value it is about. */
export type Describe = (subject: string, data: unknown) => string;

/** A failure as a check found it, read back from the ErrorLog when the errors are read (describeError). */
export interface FoundError {
  /** Tokens of the instance location when the failure was found. */
  path: (string | number)[];
  /** The member or item the failure is about, beyond `path` (unexpected properties and items). */
  extra: string | number | undefined;
  schemaPath: string;
  keyword: string;
  describe: Describe;
  data: unknown;
}

/**
 * The failures of one validation, one record after another in a flat list: schemaPath, keyword,
 * describe, data, extra, then the number of location tokens and the tokens themselves. A record
 * costs a few stores into one growing array, not two objects (the error and a copy of the
 * location); the list is read back as FoundErrors only when someone reads the errors
 * (foundErrors in _run-context.ts). An index into the list taken between records (its length)
 * marks a record boundary.
 */
export type ErrorLog = unknown[];

export interface RunContext {
  errors: ErrorLog;
  /** Tokens of the current instance location; pushed and popped as checks descend. */
  path: (string | number)[];
  /** Record errors (false inside anyOf branches, not, contains: only the verdict counts there). */
  record: boolean;
  /** Keep checking after a failure (allErrors and recording). */
  all: boolean;
  /** Dynamic scope: schema resources entered, outermost first (kept only when $dynamicRef needs it). */
  scope: Resource[];
}
