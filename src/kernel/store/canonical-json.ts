// RFC 8785 JSON Canonicalization Scheme (JCS): the one byte form of a JSON value that evidence
// hashes and signatures are computed over. Object keys sorted by UTF-16 code units, numbers in
// ECMAScript's shortest round-trip form, strings escaped as JSON.stringify does, no whitespace.
// Input must be plain JSON data (I-JSON): anything else is a programmer mistake and throws a TypeError.

/** A JSON value as JCS accepts it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * The canonical JSON text of `value` (RFC 8785).
 *
 * Throws a TypeError for what JSON cannot carry or I-JSON forbids: undefined, functions, symbols,
 * bigint, NaN and Infinity, strings with a lone surrogate, objects that are not plain (Date, Map,
 * class instances), and cycles.
 *
 * @example
 * canonicalJson({ b: [1e21, -0], a: 'x' }); // '{"a":"x","b":[1e+21,0]}'
 */
export function canonicalJson(value: unknown): string {
  return serialize(value, '$', new Set());
}

function serialize(value: unknown, path: string, ancestors: Set<object>): string {
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`Cannot canonicalize ${path}: ${value} is not a JSON number`);
      // Number#toString is ECMAScript's Number::toString, the form RFC 8785 section 3.2.2.3 requires; it prints -0 as "0".
      return String(value);
    case 'string':
      return serializeString(value, path);
    case 'object':
      if (value === null) return 'null';
      return serializeContainer(value, path, ancestors);
    default:
      throw new TypeError(`Cannot canonicalize ${path}: a ${typeof value} is not JSON`);
  }
}

function serializeString(value: string, path: string): string {
  if (!value.isWellFormed()) {
    throw new TypeError(`Cannot canonicalize ${path}: string has a lone surrogate`);
  }
  // JSON.stringify escapes exactly what RFC 8785 section 3.2.2.2 asks: quote, backslash, \b \t \n \f \r, other controls as \u00xx.
  return JSON.stringify(value);
}

function serializeContainer(value: object, path: string, ancestors: Set<object>): string {
  if (ancestors.has(value)) throw new TypeError(`Cannot canonicalize ${path}: value is cyclic`);
  ancestors.add(value);
  let text: string;
  if (Array.isArray(value)) {
    const items: string[] = [];
    // A for loop, not map(): map() skips the holes of a sparse array, which JSON cannot hold.
    for (let index = 0; index < value.length; index++) {
      if (!Object.hasOwn(value, index)) throw new TypeError(`Cannot canonicalize ${path}[${index}]: the array has a hole`);
      items.push(serialize(value[index], `${path}[${index}]`, ancestors));
    }
    text = `[${items.join(',')}]`;
  } else {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      throw new TypeError(`Cannot canonicalize ${path}: a ${value.constructor?.name ?? 'non-plain object'} is not plain JSON data`);
    }
    const record = value as Record<string, unknown>;
    // Default sort compares UTF-16 code units, the order RFC 8785 section 3.2.3 prescribes.
    const keys = Object.keys(record).sort();
    const members = keys.map((key) => `${serializeString(key, path)}:${serialize(record[key], `${path}.${key}`, ancestors)}`);
    text = `{${members.join(',')}}`;
  }
  ancestors.delete(value);
  return text;
}
