// Deterministic sample values for the parameters a sweep must fill in. The export's own
// examples come first; otherwise a value is derived from the parameter's schema alone, so
// the same export always yields the same values. A value that cannot be found or derived is
// reported as unresolved, never guessed.

import { createHash } from 'node:crypto';

export type Sample = { ok: true; value: string; source: string } | { ok: false; reason: string };

type Json = Record<string, unknown>;

/** Fixed values for string formats whose shape a server is likely to check. */
const FORMAT_SAMPLES: Record<string, string> = {
  date: '2024-01-01',
  'date-time': '2024-01-01T00:00:00Z',
  time: '00:00:00Z',
  email: 'sample@example.org',
  hostname: 'example.org',
  ipv4: '127.0.0.1',
  ipv6: '::1',
  uri: 'https://example.org/sample',
  'uri-reference': '/sample',
};

/**
 * The sample for one parameter object (its `$ref`s already resolved; `schema` may still need
 * `resolveSchema`). Tries, in order: `example`, the first of `examples`, the schema's `const`,
 * `example`, first `examples`, `default`, first `enum`, then a value derived from `type`.
 */
export function sampleValue(parameter: Json, resolveSchema: (schema: unknown) => Json | undefined): Sample {
  const name = String(parameter['name']);
  const fromParameter = firstExample(parameter);
  if (fromParameter) return scalar(name, fromParameter.value, fromParameter.source);
  if (parameter['schema'] === undefined) return { ok: false, reason: `Parameter "${name}" has no example and no schema` };
  const schema = resolveSchema(parameter['schema']);
  if (schema === undefined) return { ok: false, reason: `Parameter "${name}" has a schema that cannot be resolved` };
  if ('const' in schema) return scalar(name, schema['const'], 'schema.const');
  const fromSchema = firstExample(schema);
  if (fromSchema) return scalar(name, fromSchema.value, `schema.${fromSchema.source}`);
  if ('default' in schema) return scalar(name, schema['default'], 'schema.default');
  if (Array.isArray(schema['enum']) && schema['enum'].length > 0) return scalar(name, schema['enum'][0], 'schema.enum');
  return deriveFromType(name, schema);
}

function firstExample(object: Json): { value: unknown; source: string } | undefined {
  if (object['example'] !== undefined) return { value: object['example'], source: 'example' };
  const examples = object['examples'];
  if (Array.isArray(examples) && examples.length > 0) return { value: examples[0], source: 'examples' };
  if (examples !== null && typeof examples === 'object') {
    // An OpenAPI examples map: the first entry in document order that carries a value.
    for (const [key, entry] of Object.entries(examples)) {
      if (entry !== null && typeof entry === 'object' && 'value' in entry) return { value: (entry as Json)['value'], source: `examples.${key}` };
    }
  }
  return undefined;
}

function scalar(name: string, value: unknown, source: string): Sample {
  if (typeof value === 'string') return { ok: true, value, source };
  if (typeof value === 'number' && Number.isFinite(value)) return { ok: true, value: String(value), source };
  if (typeof value === 'boolean') return { ok: true, value: String(value), source };
  return { ok: false, reason: `Parameter "${name}" has a ${source} that is not a string, number or boolean` };
}

function deriveFromType(name: string, schema: Json): Sample {
  const declared = Array.isArray(schema['type']) ? schema['type'].filter((t) => t !== 'null') : [schema['type']];
  const type = declared[0];
  if (type === 'integer' || type === 'number') return deriveNumber(name, schema, type);
  if (type === 'boolean') return { ok: true, value: 'true', source: 'derived' };
  if (type === 'string' || type === undefined) return deriveString(name, schema);
  return { ok: false, reason: `Parameter "${name}" has type "${String(type)}": no sample can be derived for it` };
}

function deriveNumber(name: string, schema: Json, type: 'integer' | 'number'): Sample {
  const num = (key: string) => (typeof schema[key] === 'number' ? (schema[key] as number) : undefined);
  const step = num('multipleOf') ?? 1;
  const low = num('minimum') ?? (num('exclusiveMinimum') !== undefined ? num('exclusiveMinimum')! + step : undefined);
  const high = num('maximum') ?? (num('exclusiveMaximum') !== undefined ? num('exclusiveMaximum')! - step : undefined);
  // 1 is the friendliest guess for an identifier; the bounds move it when they must.
  let value = Math.max(1, low ?? 1);
  if (high !== undefined && value > high) value = low ?? high;
  value = Math.ceil(value / step) * step;
  if (type === 'integer') value = Math.ceil(value);
  if ((low !== undefined && value < low) || (high !== undefined && value > high)) {
    return { ok: false, reason: `Parameter "${name}" has bounds no ${type} sample satisfies` };
  }
  return { ok: true, value: String(value), source: 'derived' };
}

function deriveString(name: string, schema: Json): Sample {
  const format = typeof schema['format'] === 'string' ? schema['format'] : '';
  const formatted = format === 'uuid' ? uuidFor(name) : FORMAT_SAMPLES[format];
  const minLength = typeof schema['minLength'] === 'number' ? schema['minLength'] : 0;
  const maxLength = typeof schema['maxLength'] === 'number' ? schema['maxLength'] : Infinity;
  const value = formatted ?? 'sample'.padEnd(minLength, 'x').slice(0, maxLength);
  if (value === '' || value.length < minLength || value.length > maxLength) {
    return { ok: false, reason: `Parameter "${name}" has length bounds ${minLength}..${maxLength} that no sample meets` };
  }
  if (typeof schema['pattern'] === 'string') {
    let pattern: RegExp;
    try {
      pattern = new RegExp(schema['pattern'], 'u');
    } catch (error) {
      return { ok: false, reason: `Parameter "${name}" has a pattern that is not a valid regular expression: ${(error as Error).message}` };
    }
    if (!pattern.test(value)) {
      return { ok: false, reason: `Parameter "${name}" has pattern "${schema['pattern']}" and no example: no sample can be derived` };
    }
  }
  return { ok: true, value, source: 'derived' };
}

/** A UUID-shaped value (version nibble 8, RFC 9562 "custom") from a hash of the name. */
function uuidFor(name: string): string {
  const hex = createHash('sha256').update(`airlock-sweep:${name}`).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
