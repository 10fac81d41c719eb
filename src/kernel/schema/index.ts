// Public API of the JSON Schema (draft 2020-12) validator. Everything else in this folder is
// private to it.

export { compileSchema } from './compile-schema.ts';
export type { CompileOptions, SchemaValidator, ValidationError, ValidationResult } from './types.ts';
