// The check of an object schema's properties, required names, leftover keyword and
// `type: object`, in one walk over the instance's members, the walk its test makes (see
// _fused-test.ts). A check runs only where the test failed: the walk finds which members fail
// and which required names are missing, and only those are checked again to say why.

import { addPropSet, type Annotations } from './_annotations.ts';
import { holds, inheritsEnumerables, type Verdict } from './_verdict.ts';
import { preview, report, type Check, type RunContext } from './_run-context.ts';
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
 * Errors come in one order, whatever the order of the keywords: the type, then the missing
 * required names (in the keyword's order), then the failing members (in the schema's order),
 * then the members left over (in the instance's order).
 */
export function objectCheck(parts: ObjectParts): Check {
  const { names, members, positions, required, leftover, typeCheck } = parts;
  const nameSet: ReadonlySet<string> = new Set(names);
  let countedRequired = 0;
  for (const member of members) countedRequired += member.required;
  const otherRequired = required.names.length > countedRequired;
  return (data, ctx, ann) => {
    if (!isObject(data)) return typeCheck === undefined || typeCheck(data, ctx, ann);
    if (ann !== null) noteEvaluated(ann, names.length > 0 ? nameSet : null, leftover !== undefined);
    const mayInherit = inheritsEnumerables(data);
    let found = 0;
    let next = 0;
    let failing: number[] | null = null;
    let unexpected: string[] | null = null;
    for (const name in data) {
      let position: number | undefined;
      if (names[next] === name) position = next++;
      else {
        position = positions.get(name);
        if (position !== undefined) next = position + 1;
      }
      if (mayInherit && !Object.hasOwn(data, name)) continue;
      if (position === undefined) {
        if (leftover === undefined || leftover.covered(name)) continue;
        if (leftover.sub === null || !holds(leftover.sub, data[name])) (unexpected ??= []).push(name);
        continue;
      }
      const member = members[position] as MemberPart;
      found += member.required;
      if (!holds(member, data[name])) (failing ??= []).push(position);
    }
    let ok = true;
    if (found !== countedRequired || otherRequired) {
      for (const name of required.names) {
        if (Object.hasOwn(data, name)) continue;
        if (ctx.record) report(ctx, required.at, 'required', describeMissing, name);
        if (!ctx.all) return false;
        ok = false;
      }
    }
    if (failing !== null) {
      sortPositions(failing);
      for (const position of failing) {
        const name = names[position] as string;
        if (checkMember((members[position] as MemberPart).check, data, name, ctx)) continue;
        if (!ctx.all) return false;
        ok = false;
      }
    }
    if (unexpected !== null && leftover !== undefined) {
      for (const name of unexpected) {
        if (leftover.sub !== null && checkMember(leftover.sub.check, data, name, ctx)) continue;
        if (leftover.sub === null && ctx.record) report(ctx, leftover.at, leftover.keyword, describeUnexpected, name, name);
        if (!ctx.all) return false;
        ok = false;
      }
    }
    return ok;
  };
}

/**
 * Sorts the failing positions, found in the instance's order, into the schema's: an insertion
 * sort, since the list is short and mostly in order already (sort() with a comparator cost more
 * than the rest of the check).
 */
function sortPositions(positions: number[]): void {
  for (let i = 1; i < positions.length; i++) {
    const position = positions[i] as number;
    let j = i - 1;
    while (j >= 0 && (positions[j] as number) > position) {
      positions[j + 1] = positions[j] as number;
      j--;
    }
    positions[j + 1] = position;
  }
}

/** Runs a member's check with the instance location moved onto it. */
function checkMember(check: Check, data: Record<string, unknown>, name: string, ctx: RunContext): boolean {
  ctx.path.push(name);
  const ok = check(data[name], ctx, null);
  ctx.path.pop();
  return ok;
}

/** What `properties` and a leftover keyword tell unevaluatedProperties further up. */
function noteEvaluated(ann: Annotations, names: ReadonlySet<string> | null, all: boolean): void {
  if (names !== null) addPropSet(ann, names);
  if (all) ann.allProps = true;
}
