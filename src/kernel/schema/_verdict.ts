// A subschema's verdict, as the walks of objects and arrays ask for it: the Test type, a
// member's step (its walk, or a leaf's closure and the checks that say why it failed), and
// whether an object's for-in may meet inherited names. Below both _fused-test.ts (walks) and
// _fused-check.ts (checks).

import type { ScalarLeaf } from './_scalar-leaf.ts';
import { locate } from './_run-context.ts';
import type { Check, RunContext, Walk } from './_schema-types.ts';

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

/** A compiled subschema as a walk reaches it (see Compiled in _fused-test.ts). */
interface Walked {
  check: Check;
  test: Test;
  walk?: Walk;
  leaf?: ScalarLeaf;
}

/**
 * The walk of `sub`: its own, or for a keyword without one its test, and on failure its check
 * (which then records where the walk stands: the path of a walk's context is always empty).
 */
export function walkOf(sub: Walked): Walk {
  if (sub.walk !== undefined) return sub.walk;
  const { test, check } = sub;
  return (data, ctx) => test(data) || (ctx !== undefined && check(data, ctx, null));
}

/**
 * A member or item as a parent's walk calls it: `pass` decides, and records when it is the
 * subschema's walk; a scalar leaf's `pass` is its test alone (the leaf closure, one call), so
 * when it fails the parent runs its keywords' checks to record why (`check`: the leaf's check
 * is its keywords' checks in turn, without deciding the leaf again first).
 */
export interface Step {
  pass: Walk;
  check: Check | null;
}

export function stepOf(sub: Walked): Step {
  return sub.leaf === undefined ? { pass: walkOf(sub), check: null } : { pass: sub.test, check: sub.check };
}

/** After `step` failed on `value` with a context: its errors recorded, and marked as about `token` (those from `from` on). */
export function stepFailed(step: Step, value: unknown, token: string | number, ctx: RunContext, from: number): void {
  if (step.check !== null) step.check(value, ctx, null);
  locate(ctx, from, token);
}

/** The verdict of `verdict`'s subschema on `value` (a leaf's test is a closure chosen for it, see leafTest). */
export function holds(verdict: Verdict, value: unknown): boolean {
  return verdict.test(value);
}

/**
 * The schema position of member `name`, met in a walk whose previous declared member was at
 * `next - 1`. Instances mostly list their members in the schema's order (one serializer wrote
 * them), so the name is first compared with the one after the last met, an identity compare of
 * two internalized strings, and looked up only when that guess misses. The compare is bounded,
 * so that it only ever sees two property names, never undefined. The caller's next is then
 * the position plus one.
 */
export function positionOf(names: readonly string[], positions: ReadonlyMap<string, number>, next: number, name: string): number | undefined {
  return next < names.length && names[next] === name ? next : positions.get(name);
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
