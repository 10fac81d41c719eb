// compileSchema(): turns a draft 2020-12 JSON Schema into a validator made of plain closures.
// Everything that can be wrong with the schema is found here, before any instance is seen.

import { compileError } from './_compile-error.ts';
import { booleanCheck, booleanTest, compileNode, readyOrLater, type CompileState } from './_compile.ts';
import { notePrototypeState, type Compiled } from './_fused-test.ts';
import { KEYWORDS } from './_keywords.ts';
import { METASCHEMAS } from './_metaschemas.ts';
import { describeError, foundErrors, jsonType, type ErrorLog, type RunContext } from './_run-context.ts';
import { createIndex, indexDocument, isObject, ROOT_URI, type NodeInfo } from './_schema-index.ts';
import { resolveUri, splitFragment } from './_uri.ts';
import type { CompileOptions, SchemaValidator, ValidationError, ValidationResult } from './types.ts';

/**
 * Compiles `schema` once; throws AirlockError 'schema_compile' naming the bad part's location
 * when the schema is invalid (an unresolvable `$ref`, a non-schema where one is required, a
 * bad regular expression, a format that cannot be asserted).
 *
 * @example
 * const { validate } = compileSchema({ type: 'object', required: ['id'] });
 * validate({}).errors[0]?.message; // 'Value at the root is missing required property "id"'
 */
export function compileSchema(schema: unknown, options: CompileOptions = {}): SchemaValidator {
  return compileValidator(schema, { ...options, tests: true });
}

/**
 * compileSchema() with or without tests. Without, every validation runs the checks alone: what
 * a schema whose $dynamicRef resolves dynamically gets, and what the conformance test compares
 * the tests against (test/kernel/schema-suite.test.ts).
 */
export function compileValidator(schema: unknown, options: CompileOptions & { tests: boolean }): SchemaValidator {
  const formats = options.formats ?? 'annotate';
  if (formats !== 'annotate' && formats !== 'assert') throw new TypeError(`Option formats must be "annotate" or "assert", got ${JSON.stringify(formats)}`);
  const registry = buildRegistry(options.registry);
  const all = options.allErrors ?? true;
  // A test cannot follow a $dynamicRef that resolves dynamically: such schemas compile again
  // without tests, and every validation runs the checks.
  let root = compileRoot(schema, registry, formats, options.tests);
  if (root.dynamic && options.tests) root = compileRoot(schema, registry, formats, false);
  const { check, test } = root.compiled;
  const { calls } = root;
  // Validation is synchronous and never re-entered, so one context serves every call.
  const ctx: RunContext = { errors: [], path: [], record: true, all, scope: [] };
  return {
    validate(instance: unknown) {
      calls.count++;
      notePrototypeState();
      // The test decides a valid instance fastest (no instance path, no context); an invalid
      // one is checked once from the root, each failing subtree walked once.
      if (test(instance)) return VALID;
      // Both are empty after every call that returned; setting length costs even then.
      if (ctx.path.length !== 0) ctx.path.length = 0;
      if (ctx.scope.length !== 0) ctx.scope.length = 0;
      ctx.record = true;
      ctx.all = all;
      if (check(instance, ctx, null)) {
        if (ctx.errors.length !== 0) ctx.errors = [];
        return VALID;
      }
      const found = ctx.errors;
      ctx.errors = [];
      return new InvalidResult(found);
    },
  };
}

/**
 * The answer for an invalid instance. Its errors are formatted (pointers joined, messages
 * written) when first read, not while validating: a caller that only wants the verdict pays
 * for none of it. A class, not a literal with a getter: V8 makes an object literal with an
 * accessor in microseconds, a class instance in tens of nanoseconds. `errors` lives on the
 * prototype, so toJSON() puts it back into JSON.stringify's output.
 */
class InvalidResult implements ValidationResult {
  readonly valid: boolean = false;
  readonly #found: ErrorLog;
  #errors: readonly ValidationError[] | undefined;

  constructor(found: ErrorLog) {
    this.#found = found;
  }

  get errors(): readonly ValidationError[] {
    this.#errors ??= foundErrors(this.#found).map(describeError);
    return this.#errors;
  }

  toJSON(): { valid: boolean; errors: readonly ValidationError[] } {
    return { valid: this.valid, errors: this.errors };
  }
}

/** The answer for every valid instance: nothing to allocate on the common path. */
const VALID: ValidationResult = Object.freeze({ valid: true, errors: Object.freeze([]) });

function compileRoot(schema: unknown, registry: Map<string, unknown>, formats: 'annotate' | 'assert', tests: boolean): { compiled: Compiled; dynamic: boolean; calls: { count: number } } {
  const calls = { count: 0 };
  const index = createIndex(registry);
  indexDocument(index, schema, ROOT_URI, '');
  const state: CompileState = {
    index,
    keywords: KEYWORDS,
    holders: new Map(),
    flags: { dynamic: false },
    formats,
    patterns: new Map(),
    tests,
    verdict: { errors: [], path: [], record: false, all: false, scope: [] },
    calls,
  };
  let compiled: Compiled;
  if (typeof schema === 'boolean') compiled = { check: booleanCheck(schema, ''), test: booleanTest(state, schema) };
  else if (isObject(schema)) compiled = readyOrLater(compileNode(state, schema, index.nodes.get(schema) as NodeInfo));
  else throw compileError('', `must be a schema (an object or a boolean), got ${jsonType(schema)}`);
  return { compiled, dynamic: state.flags.dynamic, calls };
}

/** The metaschemas, then the caller's documents by key and by root `$id`. */
function buildRegistry(registry: CompileOptions['registry']): Map<string, unknown> {
  const documents = new Map(METASCHEMAS);
  const entries = registry instanceof Map ? [...registry.entries()] : Object.entries(registry ?? {});
  for (const [key, doc] of entries) {
    const { uri, fragment } = splitFragment(String(key));
    if (fragment !== '') throw new TypeError(`Registry URI "${key}" must not have a fragment`);
    documents.set(uri, doc);
    const id = isObject(doc) ? doc['$id'] : undefined;
    if (typeof id !== 'string') continue;
    const canonical = splitFragment(resolveUri(uri, id)).uri;
    if (!documents.has(canonical)) documents.set(canonical, doc);
  }
  return documents;
}
