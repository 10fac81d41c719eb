// The one way compilation fails: an AirlockError 'schema_compile' naming the bad part's location.

import { AirlockError } from '../errors.ts';

/**
 * An error for the schema part at `location` (a JSON Pointer into the compiled schema, or
 * `<uri>#<pointer>` in another document).
 */
export function compileError(location: string, message: string): AirlockError {
  const where = location === '' ? 'the root' : `"${location}"`;
  return new AirlockError('schema_compile', `Invalid schema at ${where}: ${message}`, { details: [location] });
}
