// Names of Object.prototype members are data: a JSON body may use any of them as a key, at any
// depth, and a service must treat it as any other name (issue 12). These helpers build bodies
// that carry every such name, and send them through a route.

/** constructor, toString, valueOf, hasOwnProperty, __proto__, __defineGetter__, ... */
export const PROTOTYPE_NAMES: readonly string[] = Object.getOwnPropertyNames(Object.prototype);

/** An own data property, even for "__proto__" (plain assignment would set the prototype). */
function put(target: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
}

/** `value` with `{ [name]: { [name]: 1 } }` added to every object in it, itself included. */
export function withNameEverywhere(value: unknown, name: string): unknown {
  if (Array.isArray(value)) return value.map((item) => withNameEverywhere(item, name));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) put(out, key, withNameEverywhere(item, name));
  const inner: Record<string, unknown> = {};
  put(inner, name, 1);
  put(out, name, inner);
  return out;
}

/** `value` with every string in it replaced by `name` (a name used as a looked-up value). */
export function withNameAsEveryString(value: unknown, name: string): unknown {
  if (typeof value === 'string') return name;
  if (Array.isArray(value)) return value.map((item) => withNameAsEveryString(item, name));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) put(out, key, withNameAsEveryString(item, name));
  return out;
}

/** A body `{ [name]: 1 }` and `{ [name]: { [name]: {} } }`. */
export function bareNameBodies(name: string): unknown[] {
  const flat: Record<string, unknown> = {};
  put(flat, name, 1);
  const nested: Record<string, unknown> = {};
  const inner: Record<string, unknown> = {};
  put(inner, name, {});
  put(nested, name, inner);
  return [flat, nested];
}

/** Every variant of `base` for every prototype name: injected keys, names as values, bare bodies. */
export function prototypeNameBodies(base: unknown): { name: string; body: unknown }[] {
  return PROTOTYPE_NAMES.flatMap((name) => [withNameEverywhere(base, name), withNameAsEveryString(base, name), ...bareNameBodies(name)].map((body) => ({ name, body })));
}

/** A plausible body for a JSON Schema: required properties with their first enum, const or a sample of their type. */
export function sampleOf(schema: unknown): unknown {
  if (schema === true || schema === undefined) return {};
  if (schema === false || typeof schema !== 'object' || schema === null) return null;
  const s = schema as Record<string, unknown>;
  if ('const' in s) return s['const'];
  if (Array.isArray(s['enum'])) return s['enum'][0];
  for (const key of ['oneOf', 'anyOf', 'allOf'] as const) if (Array.isArray(s[key])) return sampleOf(s[key][0]);
  const type = Array.isArray(s['type']) ? s['type'][0] : s['type'];
  switch (type) {
    case 'string':
      return s['format'] === 'date-time' ? new Date().toISOString() : 'sample';
    case 'integer':
    case 'number':
      return typeof s['minimum'] === 'number' ? s['minimum'] : 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'null':
      return null;
    default: {
      const properties = (s['properties'] ?? {}) as Record<string, unknown>;
      const required = Array.isArray(s['required']) ? (s['required'] as string[]) : Object.keys(properties);
      const out: Record<string, unknown> = {};
      for (const name of required) put(out, name, sampleOf(properties[name]));
      return out;
    }
  }
}
