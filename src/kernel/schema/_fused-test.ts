// A schema object's test, made of its keywords' tests. Keywords are answered together where
// they can be: a value's scalar keywords as one ScalarLeaf record, an object's properties,
// required names and leftover members in one pass over its members. Fewer closure calls
// between an instance and its verdict is most of what validation costs.

import { objectCheck } from './_fused-check.ts';
import { holds, inheritsEnumerables, verdictEntry, type Test, type Verdict } from './_verdict.ts';
import { checkAll, type Check } from './_run-context.ts';
import { LEAF_KINDS, leafOf, leafTest, type LeafShape, type ScalarLeaf } from './_scalar-leaf.ts';
import { isObject } from './_schema-index.ts';

export { holds, inheritsEnumerables, notePrototypeState, verdictEntry, type Test, type Verdict } from './_verdict.ts';

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
 * A subschema compiled twice over: `check` reports errors and annotations, `test` only decides.
 * Valid instances, the common case, go through tests alone; a check runs only where a test
 * failed, to say why. A test must agree with its check's verdict.
 */
export interface Compiled {
  check: Check;
  test: Test;
  /** What this keyword does, for the node (keywords only). */
  shape?: KeywordShape;
  /** The subschema as a scalar leaf, when it is one (subschemas only). */
  leaf?: ScalarLeaf;
}

export const TRUE_TEST: Test = () => true;

/** All of `tests` in one: short lists unrolled, so that no loop stands between the calls. */
export function combineTests(tests: readonly Test[]): Test {
  const [a, b, c] = tests;
  if (a === undefined) return TRUE_TEST;
  if (b === undefined) return a;
  if (c === undefined) return (data) => a(data) && b(data);
  if (tests.length === 3) return (data) => a(data) && b(data) && c(data);
  return (data) => {
    for (let i = 0; i < tests.length; i++) if (!(tests[i] as Test)(data)) return false;
    return true;
  };
}

type Shaped<K extends KeywordShape['kind']> = Extract<KeywordShape, { kind: K }>;

function shapesOf<K extends KeywordShape['kind']>(keywords: readonly Pick<Compiled, 'shape'>[], kind: K): Shaped<K>[] {
  return keywords.flatMap((keyword) => (keyword.shape?.kind === kind ? [keyword.shape as Shaped<K>] : []));
}

/**
 * The test of a schema object whose keywords compiled to `keywords`, and its leaf when every
 * keyword is a scalar one (or its one keyword, a `$ref` say, stands for a leaf).
 */
export function fuseTests(keywords: readonly Compiled[]): { test: Test; leaf?: ScalarLeaf } {
  const [only] = keywords;
  if (keywords.length === 1 && only?.leaf !== undefined) return { test: only.test, leaf: only.leaf };
  const answered = new Set<Compiled>();
  const tests: Test[] = [];
  const object = objectKeywords(keywords);
  if (object !== undefined) {
    tests.push(object.test);
    for (const keyword of object.answers) answered.add(keyword);
  }
  const scalar = keywords.filter((keyword) => !answered.has(keyword) && keyword.shape !== undefined && LEAF_KINDS.has(keyword.shape.kind));
  if (scalar.length > 0) {
    const leaf = leafOf(scalar.map((keyword) => keyword.shape as LeafShape));
    const test = leafTest(leaf);
    if (scalar.length === keywords.length) return { test, leaf };
    tests.push(test);
    for (const keyword of scalar) answered.add(keyword);
  }
  for (const keyword of keywords) if (!answered.has(keyword)) tests.push(keyword.test);
  return { test: combineTests(tests) };
}

interface MemberEntry extends Verdict {
  /** 1 when the member is required, else 0: added up, it counts the required members present. */
  required: number;
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
 * properties, required, one leftover keyword and `type: object` as one test and one check;
 * undefined without properties or a leftover keyword. `answers` are the keywords answered.
 */
export function objectKeywords<K extends Pick<Compiled, 'shape'> & { check?: Check }>(keywords: readonly K[]): { test: Test; check: Check; answers: K[] } | undefined {
  const types = keywords.flatMap((keyword) => (keyword.shape?.kind === 'type' ? keyword.shape.types : []));
  const objectOnly = types.length === 1 && types[0] === 'object';
  const members = keywords.find((keyword) => keyword.shape?.kind === 'members');
  const leftovers = keywords.filter((keyword) => keyword.shape?.kind === 'leftover');
  // An object with properties, or with a leftover keyword alone (a map of strings, say).
  if (members === undefined && leftovers.length !== 1) return undefined;
  const memberSubs = members === undefined ? new Map<string, Compiled>() : (members.shape as Shaped<'members'>).subs;
  // With both additionalProperties and unevaluatedProperties, each keeps its own test.
  const leftoverShape = leftovers.length === 1 ? (leftovers[0]?.shape as Shaped<'leftover'>) : undefined;
  const leftover = leftoverShape === undefined ? undefined : { covered: leftoverShape.covered, verdict: leftoverShape.sub === null ? null : verdictEntry(leftoverShape.sub) };
  const answers = keywords.filter((keyword) => {
    const kind = keyword.shape?.kind;
    if (kind === 'type') return objectOnly;
    return kind === 'members' || kind === 'required' || (kind === 'leftover' && leftover !== undefined);
  });
  const required = new Set(shapesOf(keywords, 'required').flatMap((shape) => shape.names));
  const entries = new Map<string, MemberEntry>([...memberSubs].map(([name, sub]) => [name, { ...verdictEntry(sub), required: required.has(name) ? 1 : 0 }]));
  const otherRequired = [...required].filter((name) => !memberSubs.has(name));
  const test = leftover === undefined ? lookUpMembers(entries, otherRequired, objectOnly) : walkMembers({ entries, otherRequired, objectOnly, leftover });
  const { names, positions } = memberOrder(entries);
  const requiredShape = shapesOf(keywords, 'required')[0];
  const check = objectCheck({
    names,
    members: names.map((name) => {
      const sub = memberSubs.get(name) as Compiled;
      return { ...verdictEntry(sub), check: sub.check, required: required.has(name) ? 1 : 0 };
    }),
    positions,
    required: { names: requiredShape?.names ?? [], at: requiredShape?.at ?? '' },
    leftover: leftoverShape === undefined || leftover === undefined ? undefined : {
      keyword: leftoverShape.keyword,
      at: leftoverShape.at,
      covered: leftoverShape.covered,
      sub: leftoverShape.sub === null ? null : { ...verdictEntry(leftoverShape.sub), check: leftoverShape.sub.check },
    },
    typeCheck: objectOnly ? answers.find((keyword) => keyword.shape?.kind === 'type')?.check : undefined,
  });
  return { test, check, answers };
}

/**
 * Without a leftover keyword only the declared members matter: they are looked up by name,
 * which also costs less than a walk when an instance has more members than the schema names
 * (an `if` that reads one member, a oneOf branch).
 */
function lookUpMembers(entries: ReadonlyMap<string, MemberEntry>, otherRequired: readonly string[], objectOnly: boolean): Test {
  const names = [...entries.keys()];
  const list = [...entries.values()];
  return (data) => {
    if (!isObject(data)) return !objectOnly;
    for (let i = 0; i < names.length; i++) {
      const name = names[i] as string;
      const entry = list[i] as MemberEntry;
      if (!Object.hasOwn(data, name)) {
        if (entry.required === 1) return false;
        continue;
      }
      if (!holds(entry, data[name])) return false;
    }
    for (let i = 0; i < otherRequired.length; i++) if (!Object.hasOwn(data, otherRequired[i] as string)) return false;
    return true;
  };
}

interface MemberWalk {
  entries: ReadonlyMap<string, MemberEntry>;
  otherRequired: readonly string[];
  objectOnly: boolean;
  leftover: { covered: (name: string) => boolean; verdict: Verdict | null };
}

/**
 * With a leftover keyword every member of the instance must be seen: one for-in pass, which
 * reads each value through V8's enum cache and counts the required members it meets.
 */
function walkMembers(walk: MemberWalk): Test {
  const { entries, otherRequired, objectOnly, leftover } = walk;
  const { names, list, positions } = memberOrder(entries);
  let countedRequired = 0;
  for (const entry of list) countedRequired += entry.required;
  const count = names.length;
  return (data) => {
    if (!isObject(data)) return !objectOnly;
    const mayInherit = inheritsEnumerables(data);
    let found = 0;
    let next = 0;
    for (const name in data) {
      let entry: MemberEntry | undefined;
      if (next < count && names[next] === name) entry = list[next++];
      else {
        const position = positions.get(name);
        if (position !== undefined) {
          entry = list[position];
          next = position + 1;
        }
      }
      if (entry === undefined) {
        if (leftover.covered(name) || (mayInherit && !Object.hasOwn(data, name))) continue;
        if (leftover.verdict === null || !holds(leftover.verdict, data[name])) return false;
        continue;
      }
      if (mayInherit && !Object.hasOwn(data, name)) continue;
      if (!holds(entry, data[name])) return false;
      found += entry.required;
    }
    if (found !== countedRequired) return false;
    for (let i = 0; i < otherRequired.length; i++) if (!Object.hasOwn(data, otherRequired[i] as string)) return false;
    return true;
  };
}

/**
 * The declared members in schema order, and each one's position. Instances mostly list their
 * members in the schema's order (one serializer wrote them), so a walk first compares the name
 * with the one after the last it met, an identity compare of two internalized strings, and
 * looks the name up only when that guess misses.
 */
function memberOrder(entries: ReadonlyMap<string, MemberEntry>): { names: readonly string[]; list: readonly MemberEntry[]; positions: ReadonlyMap<string, number> } {
  const names = [...entries.keys()];
  return { names, list: [...entries.values()], positions: new Map(names.map((name, i) => [name, i])) };
}
