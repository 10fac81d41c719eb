// A subschema that only constrains one value by its type, pattern, length, bounds, divisor,
// format or a list of scalar values, kept as data. Such leaves are most of a real schema
// (every field of a form is one), and a parent's test decides them by reading this record in
// leafHolds(), one function that V8 inlines, instead of calling a closure per keyword: a call
// through a site that sees hundreds of different closures is what validation mostly costs.

import { codePointLength } from './_numbers.ts';

/** Bits of `ScalarLeaf.types`. */
const TYPE_BITS: Readonly<Record<string, number>> = { null: 1, boolean: 2, object: 4, array: 8, string: 16, number: 32, integer: 64 };
const ANY_TYPE = 127;

/** One scalar keyword of a subschema, as data; `type` is one of the seven JSON Schema type names. */
export type LeafShape =
  | { kind: 'type'; types: readonly string[] }
  | { kind: 'pattern'; regex: RegExp }
  | { kind: 'minLength' | 'maxLength' | 'minimum' | 'maximum' | 'exclusiveMinimum' | 'exclusiveMaximum' | 'minItems' | 'maxItems'; limit: number }
  | { kind: 'multipleOf'; holds: (value: number) => boolean }
  | { kind: 'format'; holds: (text: string) => boolean }
  /** enum, or const, when every value is a scalar (compared with ===, as a Set does). */
  | { kind: 'values'; values: ReadonlySet<unknown> };

/** Every field is always present, so that leafHolds() reads one object layout. */
export interface ScalarLeaf {
  types: number;
  pattern: RegExp | null;
  minLength: number;
  maxLength: number;
  minimum: number | null;
  maximum: number | null;
  exclusiveMinimum: number | null;
  exclusiveMaximum: number | null;
  multipleOf: ((value: number) => boolean) | null;
  format: ((text: string) => boolean) | null;
  values: ReadonlySet<unknown> | null;
  /** An array's length bounds: an array field's count limits are read beside its type. */
  minItems: number;
  maxItems: number;
}

export const LEAF_KINDS: ReadonlySet<string> = new Set([
  'type', 'pattern', 'minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'format', 'values', 'minItems', 'maxItems',
]);

/** The leaf of a subschema whose keywords are exactly `shapes` (one per keyword). */
export function leafOf(shapes: readonly LeafShape[]): ScalarLeaf {
  const leaf: ScalarLeaf = {
    types: ANY_TYPE, pattern: null, minLength: 0, maxLength: Infinity, minimum: null, maximum: null,
    exclusiveMinimum: null, exclusiveMaximum: null, multipleOf: null, format: null, values: null, minItems: 0, maxItems: Infinity,
  };
  for (const shape of shapes) {
    switch (shape.kind) {
      case 'type':
        leaf.types = shape.types.reduce((bits, type) => bits | (TYPE_BITS[type] ?? 0), 0);
        break;
      case 'pattern':
        leaf.pattern = shape.regex;
        break;
      case 'multipleOf':
        leaf.multipleOf = shape.holds;
        break;
      case 'format':
        leaf.format = shape.holds;
        break;
      case 'values':
        leaf.values = shape.values;
        break;
      default:
        leaf[shape.kind] = shape.limit;
    }
  }
  return leaf;
}

/** The verdict of the subschema that `leaf` stands for on `value`. */
export function leafHolds(leaf: ScalarLeaf, value: unknown): boolean {
  switch (typeof value) {
    case 'string':
      if ((leaf.types & 16) === 0) return false;
      // Code points never outnumber UTF-16 units: most strings need no count.
      if (value.length > leaf.maxLength && codePointLength(value) > leaf.maxLength) return false;
      if (value.length < 2 * leaf.minLength && codePointLength(value) < leaf.minLength) return false;
      if (leaf.pattern !== null && !leaf.pattern.test(value)) return false;
      if (leaf.format !== null && !leaf.format(value)) return false;
      break;
    case 'number':
      if ((leaf.types & 32) === 0 && ((leaf.types & 64) === 0 || !Number.isInteger(value))) return false;
      if (leaf.minimum !== null && !(value >= leaf.minimum)) return false;
      if (leaf.maximum !== null && !(value <= leaf.maximum)) return false;
      if (leaf.exclusiveMinimum !== null && !(value > leaf.exclusiveMinimum)) return false;
      if (leaf.exclusiveMaximum !== null && !(value < leaf.exclusiveMaximum)) return false;
      if (leaf.multipleOf !== null && !leaf.multipleOf(value)) return false;
      break;
    case 'boolean':
      if ((leaf.types & 2) === 0) return false;
      break;
    default:
      if (Array.isArray(value)) {
        if ((leaf.types & 8) === 0 || value.length < leaf.minItems || value.length > leaf.maxItems) return false;
      } else if (leaf.types !== ANY_TYPE && (leaf.types & (value === null ? 1 : typeof value === 'object' ? 4 : 0)) === 0) return false;
  }
  return leaf.values === null || leaf.values.has(value);
}

const STRING_ONLY = 16;
const INTEGER_ONLY = 64;
const NUMBER_ONLY = 32;
const ARRAY_ONLY = 8;

/**
 * The test of `leaf` as one closure chosen for what the leaf holds: the common shapes of a form
 * field (a string with a pattern or a length, an integer or a number in bounds, a list of values)
 * get a closure that checks only that, with the type check inlined; anything else reads the
 * record through leafHolds(). Chosen once, at compile time.
 */
export function leafTest(leaf: ScalarLeaf): (value: unknown) => boolean {
  const { types, pattern, minLength, maxLength, minimum, maximum, values } = leaf;
  const numeric = minimum !== null || maximum !== null || leaf.exclusiveMinimum !== null || leaf.exclusiveMaximum !== null || leaf.multipleOf !== null;
  if (types === STRING_ONLY && values === null && leaf.format === null) {
    // Numeric keywords never apply to a string.
    const lengths = minLength > 0 || maxLength !== Infinity;
    if (pattern === null) return lengths ? (value) => typeof value === 'string' && lengthWithin(value, minLength, maxLength) : (value) => typeof value === 'string';
    if (!lengths) return (value) => typeof value === 'string' && pattern.test(value);
    return (value) => typeof value === 'string' && lengthWithin(value, minLength, maxLength) && pattern.test(value);
  }
  if (types === ARRAY_ONLY && values === null) {
    const { minItems, maxItems } = leaf;
    return (value) => Array.isArray(value) && value.length >= minItems && value.length <= maxItems;
  }
  if (types === ANY_TYPE && values !== null && pattern === null && leaf.format === null && !numeric && minLength === 0 && maxLength === Infinity) {
    return (value) => values.has(value);
  }
  if ((types === INTEGER_ONLY || types === NUMBER_ONLY) && values === null && leaf.exclusiveMinimum === null && leaf.exclusiveMaximum === null) {
    const low = minimum ?? -Infinity;
    const high = maximum ?? Infinity;
    const { multipleOf } = leaf;
    if (types === INTEGER_ONLY && multipleOf === null) return (value) => typeof value === 'number' && Number.isInteger(value) && value >= low && value <= high;
    if (types === NUMBER_ONLY && multipleOf === null) return (value) => typeof value === 'number' && value >= low && value <= high;
    if (types === NUMBER_ONLY && multipleOf !== null) return (value) => typeof value === 'number' && value >= low && value <= high && multipleOf(value);
  }
  return (value) => leafHolds(leaf, value);
}

/** minLength and maxLength in code points; most strings need no count (see leafHolds). */
function lengthWithin(text: string, min: number, max: number): boolean {
  if (text.length > max && codePointLength(text) > max) return false;
  return !(text.length < 2 * min && codePointLength(text) < min);
}
