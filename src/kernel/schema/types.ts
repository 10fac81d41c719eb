// Public types of the JSON Schema validator: options, the compiled validator and its results.

/** One failed assertion, located in the instance and in the schema. */
export interface ValidationError {
  /** JSON Pointer to the offending value in the instance ("" is the instance itself). */
  instancePath: string;
  /**
   * Where the failing keyword stands: a JSON Pointer into the compiled schema, or
   * `<uri>#<pointer>` when it stands in another document (a registry entry, a metaschema).
   */
  schemaPath: string;
  /** The keyword that failed, e.g. "type", "required", "additionalProperties". */
  keyword: string;
  /** Plain English, naming the location: `Value at "/items/2/name" must be a string, got number`. */
  message: string;
}

export interface ValidationResult {
  valid: boolean;
  /**
   * Empty when valid; read-only, since every valid result shares one empty list. An invalid
   * result formats its errors when this is first read (a getter; JSON.stringify includes it).
   */
  readonly errors: readonly ValidationError[];
}

export interface CompileOptions {
  /**
   * Schema documents by URI, used to resolve `$ref`s to other documents (no network is ever
   * used). A document with an `$id` is found under that `$id` too.
   */
  registry?: ReadonlyMap<string, unknown> | Readonly<Record<string, unknown>>;
  /** "annotate" (default): `format` is never checked. "assert": the supported formats are. */
  formats?: 'annotate' | 'assert';
  /** Report every error (default) or stop at the first one. */
  allErrors?: boolean;
}

export interface SchemaValidator {
  /** Validates `instance`; never throws for bad input. */
  validate(instance: unknown): ValidationResult;
}
