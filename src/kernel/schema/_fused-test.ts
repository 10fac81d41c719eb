// A schema object's walk (see Walk), made of its keywords' walks. Keywords are answered together
// where they can be: a value's scalar keywords as one ScalarLeaf (one closure decides them; their
// checks say why only when it fails), an object's properties, required names and leftover
// members in one pass over its members. One walk both decides an instance and, given a context,
// records its errors, so a failing instance is walked once; fewer closure calls between an
// instance and its verdict is most of what validation costs.

import { describeMissing, describeUnexpected, moveBefore, objectCheck } from './_fused-check.ts';
import { inheritsEnumerables, positionOf, stepFailed, stepOf, verdictEntry, walkOf, type Step, type Test } from './_verdict.ts';
import { checkAll, report, type Check, type RunContext, type Walk } from './_run-context.ts';
import { LEAF_KINDS, leafOf, leafTest, type LeafShape, type ScalarLeaf } from './_scalar-leaf.ts';
import { isObject } from './_schema-index.ts';

export { holds, inheritsEnumerables, notePrototypeState, stepFailed, stepOf, verdictEntry, walkOf, type Step, type Test, type Verdict } from './_verdict.ts';

/** What a keyword's test does, told to the node so it can answer several keywords at once. */
export type KeywordShape =
  | LeafShape
  /** `properties`: each declared member's compiled subschema. */
  | { kind: 'members'; subs: ReadonlyMap<string, Compiled> }
  /**
   * additionalProperties, or unevaluatedProperties decided at compile time: members not
   * covered must pass `sub` (none may be there when null).
   */
  | { kind: 'leftover'; keyword: string; at: string; covered: (name: string) => boolean; sub: Compiled | null }
  | { kind: 'required'; names: readonly string[]; at: string };

/**
 * A compiled subschema or keyword. `walk` decides and records (see Walk): validate() runs it
 * once per instance. `test` decides alone, for a verdict inside another keyword (oneOf's
 * branches, if); for a schema object it is its walk, or a leaf's closure. `check` records errors
 * and annotations with the instance location kept in its context: what unevaluated* keywords
 * that read annotations, $dynamicRef and a keyword without a walk of its own run on failure.
 * All three agree on the verdict.
 */
export interface Compiled {
  check: Check;
  test: Test;
  /** Absent for a keyword whose walk is its test, then its check on failure (walkOf). */
  walk?: Walk;
  /** What this keyword does, for the node (keywords only). */
  shape?: KeywordShape;
  /** The subschema as a scalar leaf, when it is one (subschemas only). */
  leaf?: ScalarLeaf;
}

export const TRUE_TEST: Test = () => true;

type Shaped<K extends KeywordShape['kind']> = Extract<KeywordShape, { kind: K }>;

function shapesOf<K extends KeywordShape['kind']>(keywords: readonly Pick<Compiled, 'shape'>[], kind: K): Shaped<K>[] {
  return keywords.flatMap((keyword) => (keyword.shape?.kind === kind ? [keyword.shape as Shaped<K>] : []));
}

/** Every walk of `walks` in turn, stopping at the first failure unless recording every error; short lists unrolled. */
export function allWalks(walks: readonly Walk[]): Walk {
  const [a, b, c] = walks;
  if (a === undefined) return TRUE_TEST;
  if (b === undefined) return a;
  if (c === undefined) {
    return (data, ctx) => {
      if (a(data, ctx)) return b(data, ctx);
      if (ctx !== undefined && ctx.all) b(data, ctx);
      return false;
    };
  }
  return (data, ctx) => {
    let ok = true;
    for (let i = 0; i < walks.length; i++) {
      if ((walks[i] as Walk)(data, ctx)) continue;
      if (ctx === undefined || !ctx.all) return false;
      ok = false;
    }
    return ok;
  };
}

/** A leaf's walk: its closure decides, and only when it fails do its keywords' checks say why. */
function leafWalk(test: Test, checks: readonly Check[]): Walk {
  return (data, ctx) => test(data) || (ctx !== undefined && checkAll(checks, data, ctx, null));
}

function isScalarKeyword(keyword: Pick<Compiled, 'shape'>): boolean {
  return keyword.shape !== undefined && LEAF_KINDS.has(keyword.shape.kind);
}

/**
 * The walk and test of a schema object whose keywords compiled to `keywords`, and its leaf when
 * every keyword is a scalar one (or its one keyword, a `$ref` say, stands for a leaf). Keywords
 * answered together stand where the first of them stands; errors come in that order, the
 * order of fuseChecks.
 */
export function fuseWalks(keywords: readonly Compiled[]): { walk: Walk; test: Test; leaf?: ScalarLeaf } {
  const [only] = keywords;
  if (keywords.length === 1 && only?.leaf !== undefined) return { walk: walkOf(only), test: only.test, leaf: only.leaf };
  const object = objectKeywords(keywords);
  const scalar = keywords.filter((keyword) => object?.answers.includes(keyword) !== true && isScalarKeyword(keyword));
  if (scalar.length > 0 && scalar.length === keywords.length) {
    const leaf = leafOf(scalar.map((keyword) => keyword.shape as LeafShape));
    const test = leafTest(leaf);
    return { walk: leafWalk(test, keywords.map((keyword) => keyword.check)), test, leaf };
  }
  const groups: { answers: ReadonlySet<Compiled>; walk: Walk }[] = [];
  if (object !== undefined) groups.push({ answers: new Set(object.answers), walk: object.walk });
  if (scalar.length > 1) {
    const test = leafTest(leafOf(scalar.map((keyword) => keyword.shape as LeafShape)));
    groups.push({ answers: new Set(scalar), walk: leafWalk(test, scalar.map((keyword) => keyword.check)) });
  }
  const walks: Walk[] = [];
  const placed = new Set<Walk>();
  for (const keyword of keywords) {
    const group = groups.find((candidate) => candidate.answers.has(keyword));
    if (group === undefined) walks.push(walkOf(keyword));
    else if (!placed.has(group.walk)) {
      walks.push(group.walk);
      placed.add(group.walk);
    }
  }
  const walk = allWalks(walks);
  return { walk, test: keywords.length === 1 && only !== undefined ? only.test : walk };
}

/**
 * The checks of a schema object whose keywords compiled to `keywords`: those of properties,
 * required, one leftover keyword and `type: object` become one (objectCheck), which stands
 * where the first of them stood.
 */
export function fuseChecks(keywords: readonly Compiled[]): Check[] {
  const object = objectKeywords(keywords);
  const groups: { answers: ReadonlySet<Compiled>; check: Check }[] = [];
  if (object !== undefined) groups.push({ answers: new Set(object.answers), check: object.check });
  const scalar = keywords.filter((keyword) => object?.answers.includes(keyword) !== true && keyword.shape !== undefined && LEAF_KINDS.has(keyword.shape.kind));
  // Scalar keywords beside others: one leaf test, and their own checks only when it fails.
  if (scalar.length > 1 && scalar.length < keywords.length) {
    const test = leafTest(leafOf(scalar.map((keyword) => keyword.shape as LeafShape)));
    const each = scalar.map((keyword) => keyword.check);
    groups.push({ answers: new Set(scalar), check: (data, ctx, ann) => test(data) || checkAll(each, data, ctx, ann) });
  }
  const checks: Check[] = [];
  const placed = new Set<Check>();
  for (const keyword of keywords) {
    const group = groups.find((candidate) => candidate.answers.has(keyword));
    if (group === undefined) checks.push(keyword.check);
    else if (!placed.has(group.check)) {
      checks.push(group.check);
      placed.add(group.check);
    }
  }
  return checks;
}

/**
 * properties, required, one leftover keyword and `type: object` as one walk and one check;
 * undefined without properties or a leftover keyword. `answers` are the keywords answered.
 */
export function objectKeywords<K extends Pick<Compiled, 'shape'> & { check?: Check }>(keywords: readonly K[]): { walk: Walk; check: Check; answers: K[] } | undefined {
  const types = keywords.flatMap((keyword) => (keyword.shape?.kind === 'type' ? keyword.shape.types : []));
  const objectOnly = types.length === 1 && types[0] === 'object';
  const members = keywords.find((keyword) => keyword.shape?.kind === 'members');
  const leftovers = keywords.filter((keyword) => keyword.shape?.kind === 'leftover');
  // An object with properties, or with a leftover keyword alone (a map of strings, say).
  if (members === undefined && leftovers.length !== 1) return undefined;
  const memberSubs = members === undefined ? new Map<string, Compiled>() : (members.shape as Shaped<'members'>).subs;
  // With both additionalProperties and unevaluatedProperties, each keeps its own walk.
  const leftover = leftovers.length === 1 ? (leftovers[0]?.shape as Shaped<'leftover'>) : undefined;
  const answers = keywords.filter((keyword) => {
    const kind = keyword.shape?.kind;
    if (kind === 'type') return objectOnly;
    return kind === 'members' || kind === 'required' || (kind === 'leftover' && leftover !== undefined);
  });
  const requiredShape = shapesOf(keywords, 'required')[0];
  const required = new Set(shapesOf(keywords, 'required').flatMap((shape) => shape.names));
  const names = [...memberSubs.keys()];
  const positions = new Map(names.map((name, i) => [name, i]));
  const typeCheck = objectOnly ? answers.find((keyword) => keyword.shape?.kind === 'type')?.check : undefined;
  const requiredNames = { names: requiredShape?.names ?? [], at: requiredShape?.at ?? '' };
  const walk = objectWalk({
    names,
    members: names.map((name) => ({ ...stepOf(memberSubs.get(name) as Compiled), required: required.has(name) ? 1 : 0 })),
    positions,
    required: requiredNames,
    otherRequired: [...required].filter((name) => !memberSubs.has(name)),
    leftover: leftover === undefined ? undefined : { keyword: leftover.keyword, at: leftover.at, covered: leftover.covered, step: leftover.sub === null ? null : stepOf(leftover.sub) },
    typeCheck,
  });
  const check = objectCheck({
    names,
    members: names.map((name) => {
      const sub = memberSubs.get(name) as Compiled;
      return { ...verdictEntry(sub), check: sub.check, required: required.has(name) ? 1 : 0 };
    }),
    positions,
    required: requiredNames,
    leftover: leftover === undefined ? undefined : {
      keyword: leftover.keyword,
      at: leftover.at,
      covered: leftover.covered,
      sub: leftover.sub === null ? null : { ...verdictEntry(leftover.sub), check: leftover.sub.check },
    },
    typeCheck,
  });
  return { walk, check, answers };
}

interface MemberStep extends Step {
  /** 1 when the member is required, else 0: added up, it counts the required members present. */
  required: number;
}

/** What an object schema's fused keywords know about its members, in schema order (see objectWalk). */
interface ObjectSteps {
  names: readonly string[];
  members: readonly MemberStep[];
  positions: ReadonlyMap<string, number>;
  /** Every required name in the keyword's order, with its location; empty without `required`. */
  required: { names: readonly string[]; at: string };
  /** Required names that `properties` does not declare. */
  otherRequired: readonly string[];
  /** additionalProperties, or unevaluatedProperties decided at compile time. */
  leftover: { keyword: string; at: string; covered: (name: string) => boolean; step: Step | null } | undefined;
  /** The `type` keyword's check when it is `object` alone, else undefined (non-objects pass). */
  typeCheck: Check | undefined;
}

/**
 * The walk of an object's members. Deciding alone without a leftover keyword, only the declared
 * members matter: they are looked up by name, which also costs less than a walk when an instance
 * has more members than the schema names (an `if` that reads one member, a oneOf branch).
 * Otherwise one for-in pass, which reads each value through V8's enum cache and counts the
 * required members it meets. Each member is walked where it stands, and a failing one's records
 * are marked with its name; errors come in the instance's order, except that the missing
 * required names (found when the walk ends) are moved before this object's other errors.
 * Members are found by positionOf().
 */
function objectWalk(parts: ObjectSteps): Walk {
  const { names, members, positions, otherRequired, leftover, typeCheck } = parts;
  let countedRequired = 0;
  for (const member of members) countedRequired += member.required;
  const anyOther = otherRequired.length > 0;
  const counts = { countedRequired, anyOther };
  // The loop below is the walk of an object that passes, kept as small as a test's so that V8
  // inlines what it calls; the first failure hands over to recordRest(), which goes on from
  // that member with the errors recorded.
  return (data, ctx) => {
    if (!isObject(data)) return typeCheck === undefined || (ctx !== undefined && typeCheck(data, ctx, null));
    if (ctx === undefined && leftover === undefined) return declaredPass(names, members, otherRequired, data);
    const mayInherit = inheritsEnumerables(data);
    const start = ctx === undefined ? 0 : ctx.errors.length;
    let found = 0;
    let next = 0;
    let seen = 0;
    for (const name in data) {
      seen++;
      const position = positionOf(names, positions, next, name);
      if (position !== undefined) next = position + 1;
      if (mayInherit && !Object.hasOwn(data, name)) continue;
      let step: Step | null;
      let value: unknown;
      if (position !== undefined) {
        const member = members[position] as MemberStep;
        found += member.required;
        value = data[name];
        if (member.pass(value, ctx)) continue;
        step = member;
      } else {
        if (leftover === undefined || leftover.covered(name)) continue;
        step = leftover.step;
        value = data[name];
        if (step !== null && step.pass(value, ctx)) continue;
      }
      return ctx !== undefined && recordRest(parts, counts, data, ctx, { start, seen, found, next, mayInherit, name, value, step });
    }
    if (found === countedRequired && !anyOther) return true;
    if (ctx === undefined) return found === countedRequired && hasAll(data, otherRequired);
    return missingRequired(parts.required, data, ctx, start);
  };
}

/** Where objectWalk's loop stood at its first failure: the member that failed, and what the loop had counted. */
interface FirstFailure {
  /** The log's length when the object's walk began. */
  start: number;
  /** Members the loop went over, the failing one included. */
  seen: number;
  found: number;
  next: number;
  mayInherit: boolean;
  name: string;
  value: unknown;
  /** The failing member's step; null for a member the leftover keyword forbids. */
  step: Step | null;
}

/**
 * The rest of objectWalk after its first failure, recording: the failing member's errors (a
 * non-leaf member recorded them as it failed), then the members after it, then the missing
 * required names, moved before this object's other errors. Always false.
 */
function recordRest(parts: ObjectSteps, counts: { countedRequired: number; anyOther: boolean }, data: Record<string, unknown>, ctx: RunContext, first: FirstFailure): false {
  const { names, members, positions, leftover } = parts;
  const { start, mayInherit } = first;
  if (first.step !== null) stepFailed(first.step, first.value, first.name, ctx, start);
  else if (leftover !== undefined) report(ctx, leftover.at, leftover.keyword, describeUnexpected, first.name, first.name);
  if (!ctx.all) return false;
  let { found, next, seen: skip } = first;
  let from = ctx.errors.length;
  for (const name in data) {
    if (skip > 0) {
      skip--;
      continue;
    }
    const position = positionOf(names, positions, next, name);
    if (position !== undefined) next = position + 1;
    if (mayInherit && !Object.hasOwn(data, name)) continue;
    if (position !== undefined) {
      const member = members[position] as MemberStep;
      found += member.required;
      const value = data[name];
      if (member.pass(value, ctx)) continue;
      stepFailed(member, value, name, ctx, from);
    } else {
      if (leftover === undefined || leftover.covered(name)) continue;
      const { step } = leftover;
      if (step !== null) {
        const value = data[name];
        if (step.pass(value, ctx)) continue;
        stepFailed(step, value, name, ctx, from);
      } else report(ctx, leftover.at, leftover.keyword, describeUnexpected, name, name);
    }
    from = ctx.errors.length;
  }
  if (found !== counts.countedRequired || counts.anyOther) missingRequired(parts.required, data, ctx, start);
  return false;
}

/** The declared members' verdict, looked up by name (see objectWalk). */
function declaredPass(names: readonly string[], members: readonly MemberStep[], otherRequired: readonly string[], data: Record<string, unknown>): boolean {
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    const member = members[i] as MemberStep;
    if (!Object.hasOwn(data, name)) {
      if (member.required === 1) return false;
      continue;
    }
    if (!member.pass(data[name])) return false;
  }
  return hasAll(data, otherRequired);
}

function hasAll(data: Record<string, unknown>, names: readonly string[]): boolean {
  for (let i = 0; i < names.length; i++) if (!Object.hasOwn(data, names[i] as string)) return false;
  return true;
}

/** Records the required names `data` lacks, before the errors its walk recorded from `start` on; true when none is missing. */
function missingRequired(required: { names: readonly string[]; at: string }, data: Record<string, unknown>, ctx: RunContext, start: number): boolean {
  const before = ctx.errors.length;
  let ok = true;
  for (const name of required.names) {
    if (Object.hasOwn(data, name)) continue;
    report(ctx, required.at, 'required', describeMissing, name);
    ok = false;
    if (!ctx.all) break;
  }
  if (before > start) moveBefore(ctx.errors, before, start);
  return ok;
}
