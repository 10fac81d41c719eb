// The check of an object schema's properties, required names, leftover keyword and
// `type: object`, in one walk over the instance's members, the walk its test makes (see
// _fused-test.ts).

import { addPropSet, type Annotations } from './_annotations.ts';
import { inheritsEnumerables, type Verdict } from './_verdict.ts';
import { preview, report, type Check, type ErrorLog, type RunContext } from './_run-context.ts';
import { isObject } from './_schema-index.ts';

/** One declared member: its subschema, and whether the `required` keyword names it. */
export interface MemberPart extends Verdict {
  check: Check;
  /** 1 when the member is required, else 0: added up, it counts the required members present. */
  required: number;
}

/** What an object schema's fused keywords know about its members, in schema order. */
export interface ObjectParts {
  names: readonly string[];
  members: readonly MemberPart[];
  positions: ReadonlyMap<string, number>;
  /** Every required name in the keyword's order, with its location; empty without `required`. */
  required: { names: readonly string[]; at: string };
  /** additionalProperties, or unevaluatedProperties decided at compile time. */
  leftover: { keyword: string; at: string; covered: (name: string) => boolean; sub: (Verdict & { check: Check }) | null } | undefined;
  /** The `type` keyword's check when it is `object` alone, else undefined (non-objects pass). */
  typeCheck: Check | undefined;
}

const describeMissing = (subject: string, name: unknown): string => `${subject} is missing required property ${preview(name)}`;
const describeUnexpected = (subject: string, name: unknown): string => `${subject} is not allowed: unexpected property ${preview(name)}`;

/**
 * One walk over the instance's members, each checked where it stands: a scalar leaf decided
 * inline and checked only when it fails, any other subschema checked at once (its check costs
 * what its test would when it passes, and a failing member is walked once, not twice). Errors
 * come as the walk finds them, in the instance's order, except that the missing required names
 * (found when the walk ends) are moved before this object's other errors.
 */
export function objectCheck(parts: ObjectParts): Check {
  const { names, members, positions, required, leftover, typeCheck } = parts;
  const nameSet: ReadonlySet<string> = new Set(names);
  let countedRequired = 0;
  for (const member of members) countedRequired += member.required;
  const otherRequired = required.names.length > countedRequired;
  const count = names.length;
  return (data, ctx, ann) => {
    if (!isObject(data)) return typeCheck === undefined || typeCheck(data, ctx, ann);
    if (ann !== null) noteEvaluated(ann, names.length > 0 ? nameSet : null, leftover !== undefined);
    const mayInherit = inheritsEnumerables(data);
    const mark = ctx.errors.length;
    let ok = true;
    let found = 0;
    let next = 0;
    for (const name in data) {
      let position: number | undefined;
      // Bounded, so that the compare only ever sees two property names (internalized strings,
      // which V8 then compares by identity) and never undefined.
      if (next < count && names[next] === name) position = next++;
      else {
        position = positions.get(name);
        if (position !== undefined) next = position + 1;
      }
      if (mayInherit && !Object.hasOwn(data, name)) continue;
      if (position === undefined) {
        if (leftover === undefined || leftover.covered(name)) continue;
        if (leftover.sub !== null) {
          if (memberPasses(leftover.sub, data[name], name, ctx)) continue;
        } else if (ctx.record) report(ctx, leftover.at, leftover.keyword, describeUnexpected, name, name);
      } else {
        const member = members[position] as MemberPart;
        found += member.required;
        if (memberPasses(member, data[name], name, ctx)) continue;
      }
      if (!ctx.all) return false;
      ok = false;
    }
    if (found === countedRequired && !otherRequired) return ok;
    const before = ctx.errors.length;
    for (const name of required.names) {
      if (Object.hasOwn(data, name)) continue;
      if (ctx.record) report(ctx, required.at, 'required', describeMissing, name);
      ok = false;
      if (!ctx.all) break;
    }
    if (before > mark) moveBefore(ctx.errors, before, mark);
    return ok;
  };
}

/**
 * A member's verdict, with its errors recorded where it stands when it fails. The caller reads
 * the value inside its for-in, where V8 loads it through the enum cache.
 */
function memberPasses(part: Verdict & { check: Check }, value: unknown, name: string, ctx: RunContext): boolean {
  if (part.leaf !== null && part.test(value)) return true;
  ctx.path.push(name);
  const ok = part.check(value, ctx, null);
  ctx.path.pop();
  return ok;
}

/** Moves the records from `from` to the end so that they start at `to` (both record boundaries; the list is short). */
function moveBefore(errors: ErrorLog, from: number, to: number): void {
  const moved = errors.splice(from);
  errors.splice(to, 0, ...moved);
}

/** What `properties` and a leftover keyword tell unevaluatedProperties further up. */
function noteEvaluated(ann: Annotations, names: ReadonlySet<string> | null, all: boolean): void {
  if (names !== null) addPropSet(ann, names);
  if (all) ann.allProps = true;
}
