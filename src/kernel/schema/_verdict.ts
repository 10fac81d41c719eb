// A subschema's verdict, as the walks of objects and arrays ask for it: the Test type, a
// leaf-or-test pair that V8 inlines at the call, and whether an object's for-in may meet
// inherited names. Below both _fused-test.ts (tests) and _fused-check.ts (checks).

import type { ScalarLeaf } from './_scalar-leaf.ts';

/** A subschema's verdict alone: no errors, no annotations, no instance location to keep. */
export type Test = (data: unknown) => boolean;

/** A subschema's verdict: through its leaf when it has one (no closure call), else its test. */
export interface Verdict {
  test: Test;
  leaf: ScalarLeaf | null;
}

export function verdictEntry(sub: { test: Test; leaf?: ScalarLeaf }): Verdict {
  return { test: sub.test, leaf: sub.leaf ?? null };
}

/** The verdict of `verdict`'s subschema on `value` (a leaf's test is a closure chosen for it, see leafTest). */
export function holds(verdict: Verdict, value: unknown): boolean {
  return verdict.test(value);
}

/**
 * Whether Object.prototype has an enumerable property (it never should; prototype pollution
 * adds one). Asked once per validation by notePrototypeState(), not once per object.
 */
let pollutedObjectPrototype = false;

/** Looks at Object.prototype again; validate() calls it before each instance. */
export function notePrototypeState(): void {
  pollutedObjectPrototype = false;
  for (const _name in Object.prototype) pollutedObjectPrototype = true;
}

/**
 * Whether `for (const name in data)` may visit inherited names: not for an object made by
 * JSON.parse or a literal while Object.prototype is clean. Knowing this once per object spares
 * the loop an own-property lookup per member, which costs as much again as the rest of it.
 */
export function inheritsEnumerables(data: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(data);
  return prototype === Object.prototype ? pollutedObjectPrototype : prototype !== null;
}
