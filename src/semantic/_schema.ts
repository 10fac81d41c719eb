// The kernel's JSON Schema validator, adapted to the shapes the semantic modules need: a
// validator for data checks, and the body check the HTTP service compiles request schemas with.

import { compileSchema } from '../kernel/index.ts';
import type { JsonSchema, SchemaCompiler, ValidationError } from '../kernel/index.ts';

export { compileSchema };

/** The service's `compileSchema` option: each route's request schema compiled once. */
export const compileBodySchema: SchemaCompiler = (schema: JsonSchema) => {
  const { validate } = compileSchema(schema);
  return (value: unknown) => {
    const result = validate(value);
    if (result.valid) return result;
    return { valid: false, errors: result.errors.map(explainRefused) };
  };
};

// In semantic request schemas a property whose schema is `false` is an input the server derives
// itself (principal, tenant, traffic...): say so instead of "the schema ... is false".
function explainRefused(error: ValidationError): ValidationError {
  if (error.keyword !== 'false' || !/\/properties\/[^/]+$/.test(error.schemaPath)) return error;
  const field = error.instancePath.slice(1).replace(/~1/g, '/').replace(/~0/g, '~');
  return { ...error, message: `Value at "${error.instancePath}" is refused: this endpoint accepts no "${field}" input, it derives what it needs server-side` };
}
