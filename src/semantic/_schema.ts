// The kernel's JSON Schema validator, adapted to the shapes the semantic modules need: a
// validator for data checks, and the body check the HTTP service compiles request schemas with.

import { compileSchema } from '../kernel/schema/index.ts';
import type { JsonSchema, SchemaCompiler } from '../kernel/index.ts';

export { compileSchema };

/** The service's `compileSchema` option: each route's request schema compiled once. */
export const compileBodySchema: SchemaCompiler = (schema: JsonSchema) => {
  const { validate } = compileSchema(schema);
  return (value: unknown) => validate(value);
};
