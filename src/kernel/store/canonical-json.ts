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
  // A string (an evidence column, a key) needs no walk at all.
  if (typeof value === 'string' && value.isWellFormed()) return JSON.stringify(value);
  return serialize(value, { segments: [], ancestors: [] });
}

/**
 * The canonical JSON text of an object whose member values are already canonical JSON texts:
 * what canonicalJson() returns for the object those texts denote, without serializing them again.
 * The evidence store hashes rows this way around a payload it has already canonicalized.
 */
export function canonicalObjectOf(members: Readonly<Record<string, string>>): string {
  const root: Walk = { segments: [], ancestors: [] };
  let text = '{';
  for (const key of Object.keys(members).sort()) {
    text += `${text.length === 1 ? '' : ','}${serializeString(key, root)}:${members[key]!}`;
  }
  return `${text}}`;
}

/**
 * Where the serializer is, kept as segments and turned into "$.a[2].b" text only for an error
 * message: building the text for every member would cost more than serializing the member.
 */
interface Walk {
  segments: (string | number)[];
  /** The containers being serialized, outermost first: a short stack, cheaper to keep than a Set. */
  ancestors: object[];
}

function pathOf(walk: Walk): string {
  return `$${walk.segments.map((s) => (typeof s === 'number' ? `[${s}]` : `.${s}`)).join('')}`;
}

function serialize(value: unknown, walk: Walk): string {
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`Cannot canonicalize ${pathOf(walk)}: ${value} is not a JSON number`);
      // Number#toString is ECMAScript's Number::toString, the form RFC 8785 section 3.2.2.3 requires; it prints -0 as "0".
      return String(value);
    case 'string':
      return serializeString(value, walk);
    case 'object':
      if (value === null) return 'null';
      return serializeContainer(value, walk);
    default:
      throw new TypeError(`Cannot canonicalize ${pathOf(walk)}: a ${typeof value} is not JSON`);
  }
}

function serializeString(value: string, walk: Walk): string {
  if (!value.isWellFormed()) {
    throw new TypeError(`Cannot canonicalize ${pathOf(walk)}: string has a lone surrogate`);
  }
  // JSON.stringify escapes exactly what RFC 8785 section 3.2.2.2 asks: quote, backslash, \b \t \n \f \r, other controls as \u00xx.
  return JSON.stringify(value);
}

function serializeContainer(value: object, walk: Walk): string {
  if (walk.ancestors.includes(value)) throw new TypeError(`Cannot canonicalize ${pathOf(walk)}: value is cyclic`);
  walk.ancestors.push(value);
  let text: string;
  if (Array.isArray(value)) {
    text = '[';
    // A for loop, not map(): map() skips the holes of a sparse array, which JSON cannot hold.
    for (let index = 0; index < value.length; index++) {
      walk.segments.push(index);
      if (!Object.hasOwn(value, index)) throw new TypeError(`Cannot canonicalize ${pathOf(walk)}: the array has a hole`);
      text += `${index === 0 ? '' : ','}${serialize(value[index], walk)}`;
      walk.segments.pop();
    }
    text += ']';
  } else {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      throw new TypeError(`Cannot canonicalize ${pathOf(walk)}: a ${value.constructor?.name ?? 'non-plain object'} is not plain JSON data`);
    }
    const record = value as Record<string, unknown>;
    // Default sort compares UTF-16 code units, the order RFC 8785 section 3.2.3 prescribes.
    const keys = Object.keys(record).sort();
    text = '{';
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index]!;
      const name = serializeString(key, walk);
      walk.segments.push(key);
      text += `${index === 0 ? '' : ','}${name}:${serialize(record[key], walk)}`;
      walk.segments.pop();
    }
    text += '}';
  }
  walk.ancestors.pop();
  return text;
}
