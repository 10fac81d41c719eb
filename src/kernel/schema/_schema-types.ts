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

/**
 * One compiled schema's single walk: true when `data` passes. Without a context it decides
 * alone (stopping at the first failure); with one it also records each failure where it finds
 * it, relative to where the walk stands: a failing member's records are then marked with the
 * member's name by its parent (locate() in _run-context.ts), so that a passing member costs
 * the same whether or not a context is given.
 */
export type Walk = (data: unknown, ctx?: RunContext) => boolean;

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

/** One failure as recorded while validating (see ErrorLog). */
export class ErrorRecord {
  readonly schemaPath: string;
  readonly keyword: string;
  readonly describe: Describe;
  readonly data: unknown;
  /** The member or item the failure is about, beyond the location (unexpected properties and items). */
  readonly extra: string | number | undefined;
  /** Tokens of the instance location where a check recorded it; null inside a walk (see LocationMark). */
  readonly path: readonly (string | number)[] | null;

  constructor(schemaPath: string, keyword: string, describe: Describe, data: unknown, extra: string | number | undefined, path: readonly (string | number)[] | null) {
    this.schemaPath = schemaPath;
    this.keyword = keyword;
    this.describe = describe;
    this.data = data;
    this.extra = extra;
    this.path = path;
  }
}

/** The `span` entries before this mark in an ErrorLog are about the member or item `token` below where they were recorded. */
export class LocationMark {
  readonly span: number;
  readonly token: string | number;

  constructor(span: number, token: string | number) {
    this.span = span;
    this.token = token;
  }
}

/**
 * The failures of one validation in the order found: records, and after the records of a failing
 * member or item its location mark. A walk records without knowing where it stands, and its
 * parent marks the records of a member that failed, so a member that passes costs nothing for
 * the location. A span counts back from its mark, so a block of entries moved whole (an object's
 * missing required names put before its members' errors) keeps its marks right. Read back as
 * FoundErrors only when someone reads the errors (foundErrors in _run-context.ts).
 */
export type ErrorLog = (ErrorRecord | LocationMark)[];

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
