// Equality of JSON values as JSON Schema defines it for enum, const and uniqueItems: numbers by
// value (1.0 equals 1), objects regardless of member order, arrays element by element.

/** True when two JSON values are equal. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const aKeys = Object.keys(a);
  if (aKeys.length !== Object.keys(b).length) return false;
  for (const key of aKeys) {
    if (!Object.hasOwn(b, key)) return false;
    if (!deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}

/**
 * A string equal for two values exactly when deepEqual says they are equal: members sorted by
 * key, numbers in their shortest form. Unlike the store's canonicalJson it never throws, since
 * instances are untrusted and may hold lone surrogates.
 */
export function equalityKey(value: unknown): string {
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + equalityKey(value[i]);
    return `${out}]`;
  }
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).sort();
    let out = '{';
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      out += `${i === 0 ? '' : ','}${JSON.stringify(key)}:${equalityKey(record[key])}`;
    }
    return `${out}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** True for values that `===` compares correctly (everything but objects and arrays). */
export function isScalar(value: unknown): boolean {
  return value === null || typeof value !== 'object';
}
