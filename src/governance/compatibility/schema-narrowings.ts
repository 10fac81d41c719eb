// Where a reader schema rejects data that a writer schema accepts: the core of every
// compatibility mode (BACKWARD puts the proposed schema in the reader's seat, FORWARD the
// previous one). Keyword by keyword, recursing through properties, items and references. The
// comparison is sound but not complete: when it cannot prove that the reader accepts everything
// the writer does (a changed `not`, `if`, pattern properties...), it reports an `unsupported`
// narrowing rather than calling the change compatible.

import { canonicalJson } from '../../kernel/index.ts';
import type { JsonValue } from '../../kernel/index.ts';

export type NarrowingKind =
  | 'false_schema'
  | 'type'
  | 'required'
  | 'enum'
  | 'const'
  | 'bound'
  | 'pattern'
  | 'format'
  | 'unique_items'
  | 'closed_content_model'
  | 'property_rejected'
  | 'open_model_property'
  | 'combinator'
  | 'unsupported';

export interface Narrowing {
  kind: NarrowingKind;
  /** JSON Pointers of the place in each schema (a `uri#pointer` once a `$ref` led elsewhere). */
  readerPointer: string;
  writerPointer: string;
  keyword?: string;
  property?: string;
  /** What the reader allows and what the writer allows there (values, types or bounds). */
  reader?: unknown;
  writer?: unknown;
}

export interface NarrowingOptions {
  /** Resolves a non-local `$ref` (e.g. a urn of the contract registry); undefined when unknown. */
  resolve?: (ref: string) => unknown;
}

type Schema = boolean | Record<string, unknown>;

interface Side {
  root: unknown;
  /** The document a `#...` reference resolves in, and its label for pointers. */
  base: string;
}

interface Walk {
  options: NarrowingOptions;
  reader: Side;
  writer: Side;
  /** Pairs under comparison: a recursive schema compares as compatible with itself. */
  active: Map<object, Set<object>>;
  depth: number;
  /** Schema pairs compared so far, against MAX_STEPS. */
  steps: number;
}

const MAX_DEPTH = 64;
/**
 * Most schema pairs one check compares. A few kilobytes of $refs that each name the next twice
 * unfold into 2^n pairs: without a bound one request held the worker's event loop for minutes.
 */
const MAX_STEPS = 200_000;
/** Thrown through the whole walk when MAX_STEPS is passed: no partial answer can be trusted. */
class TooManySteps extends Error {
  readonly readerPointer: string;
  readonly writerPointer: string;
  constructor(readerPointer: string, writerPointer: string) {
    super('too many schema pairs');
    this.readerPointer = readerPointer;
    this.writerPointer = writerPointer;
  }
}
/** The writer `true`, one object so that a recursive reader compared with it terminates. */
const OPEN: Record<string, unknown> = Object.freeze({});
const ALL_TYPES = ['array', 'boolean', 'null', 'number', 'object', 'string'];
const LOWER_BOUNDS = ['minLength', 'minItems', 'minProperties', 'minContains'];
const UPPER_BOUNDS = ['maxLength', 'maxItems', 'maxProperties', 'maxContains'];
/** Keywords this checker compares; any other keyword the reader has and the writer lacks or changed is `unsupported`. */
const HANDLED = new Set([
  '$schema', '$id', '$comment', '$defs', 'definitions', 'title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly',
  '$ref', 'allOf', 'anyOf', 'oneOf', 'type', 'enum', 'const', 'required', 'properties', 'additionalProperties', 'unevaluatedProperties', 'items',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'pattern', 'format', 'uniqueItems', ...LOWER_BOUNDS, ...UPPER_BOUNDS,
  'contentMediaType', 'contentEncoding',
]);

/**
 * Every place where `reader` rejects an instance that `writer` accepts; empty when the reader
 * provably accepts all the writer's data.
 *
 * @example
 * findNarrowings({ type: 'object', required: ['id'] }, { type: 'object' });
 * // [{ kind: 'required', property: 'id', readerPointer: '', writerPointer: '' }]
 */
export function findNarrowings(reader: unknown, writer: unknown, options: NarrowingOptions = {}): Narrowing[] {
  const walk: Walk = { options, reader: { root: reader, base: '' }, writer: { root: writer, base: '' }, active: new Map(), depth: 0, steps: 0 };
  try {
    return compare(walk, asSchema(reader), asSchema(writer), '', '');
  } catch (error) {
    if (!(error instanceof TooManySteps)) throw error;
    return [{ kind: 'unsupported', keyword: '$ref', readerPointer: error.readerPointer, writerPointer: error.writerPointer, reader: `more than ${MAX_STEPS} schema pairs to compare (references unfold too far)` }];
  }
}

function asSchema(value: unknown): Schema {
  return typeof value === 'boolean' ? value : typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : true;
}

/**
 * A schema's own member: a keyword or property named like an Object.prototype member
 * ("constructor", "toString") is data, never the inherited function.
 */
function own(object: Record<string, unknown>, name: string): unknown {
  return Object.hasOwn(object, name) ? object[name] : undefined;
}

function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  return canonicalJson(a as JsonValue) === canonicalJson(b as JsonValue);
}

function escape(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

function compare(walk: Walk, reader: Schema, writer: Schema, rp: string, wp: string): Narrowing[] {
  if (reader === true || writer === false) return [];
  if (reader === false) return [{ kind: 'false_schema', readerPointer: rp, writerPointer: wp }];
  const writerObject: Record<string, unknown> = writer === true ? OPEN : writer;
  if (same(reader, writerObject) && walk.reader.base === walk.writer.base && !hasLocalRef(reader)) return [];
  const seen = walk.active.get(reader);
  if (seen?.has(writerObject)) return [];
  if (++walk.steps > MAX_STEPS) throw new TooManySteps(rp, wp);
  if (walk.depth >= MAX_DEPTH) return [{ kind: 'unsupported', keyword: '$ref', readerPointer: rp, writerPointer: wp, reader: `nesting deeper than ${MAX_DEPTH}` }];
  walk.active.set(reader, (seen ?? new Set()).add(writerObject));
  walk.depth++;
  try {
    return compareConjuncts(walk, reader, writerObject, rp, wp);
  } finally {
    walk.depth--;
    walk.active.get(reader)?.delete(writerObject);
  }
}

function hasLocalRef(schema: Record<string, unknown>): boolean {
  return JSON.stringify(schema).includes('"$ref":"#');
}

interface Conjunct {
  schema: Schema;
  pointer: string;
  role: string;
  side: Side;
}

/**
 * A schema is the conjunction of its own keywords, its `allOf` members and its `$ref` target.
 * The reader accepts the writer's data when each reader conjunct accepts it; a reader conjunct
 * is paired first with the writer conjunct of the same role, then with any other.
 */
function compareConjuncts(walk: Walk, reader: Record<string, unknown>, writer: Record<string, unknown>, rp: string, wp: string): Narrowing[] {
  const readers = conjuncts(walk, walk.reader, reader, rp);
  const writers = conjuncts(walk, walk.writer, writer, wp);
  const out: Narrowing[] = [];
  for (const r of readers) {
    if ('narrowing' in r) {
      out.push({ ...r.narrowing, writerPointer: wp });
      continue;
    }
    // The same reference into a shared document (a registry urn) is the same constraint on both sides.
    const shared = r.role.startsWith('ref:') && !r.role.startsWith('ref:#');
    if (shared && writers.some((w) => !('narrowing' in w) && w.role === r.role)) continue;
    const candidates = writers.filter((w): w is Conjunct => !('narrowing' in w));
    const first = candidates.find((w) => w.role === r.role) ?? candidates.find((w) => w.role === 'own') ?? candidates[0];
    if (!first) continue;
    const attempt = (w: Conjunct) => withSides(walk, r.side, w.side, () => (r.role === 'own' ? compareOwn(walk, r.schema as Record<string, unknown>, w, r.pointer, w.pointer) : compare(walk, r.schema, w.schema, r.pointer, w.pointer)));
    const primary = attempt(first);
    if (primary.length === 0) continue;
    // The writer's data satisfies every writer conjunct: one that fits the reader suffices; when
    // none does, the tightest one says best what the reader now refuses (a $ref target's type,
    // not the "any type" of the writer's empty own keywords).
    let tightest = primary;
    let fits = false;
    for (const w of candidates) {
      if (w === first) continue;
      const found = attempt(w);
      if (found.length === 0) {
        fits = true;
        break;
      }
      if (breadth(found) < breadth(tightest)) tightest = found;
    }
    if (!fits) out.push(...tightest);
  }
  return out;
}

/** How much writer data a list of narrowings says is refused: each narrowing's listed writer values (one when it lists none). */
function breadth(found: readonly Narrowing[]): number {
  return found.reduce((n, narrowing) => n + (Array.isArray(narrowing.writer) ? narrowing.writer.length : 1), 0);
}

function withSides<T>(walk: Walk, reader: Side, writer: Side, run: () => T): T {
  const saved = [walk.reader, walk.writer] as const;
  walk.reader = reader;
  walk.writer = writer;
  try {
    return run();
  } finally {
    [walk.reader, walk.writer] = saved;
  }
}

function conjuncts(walk: Walk, side: Side, schema: Record<string, unknown>, pointer: string): (Conjunct | { narrowing: Narrowing })[] {
  const { $ref, allOf, ...own } = schema;
  const out: (Conjunct | { narrowing: Narrowing })[] = [{ schema: own, pointer, role: 'own', side }];
  if (Array.isArray(allOf)) allOf.forEach((member, i) => out.push({ schema: asSchema(member), pointer: `${pointer}/allOf/${i}`, role: `allOf:${i}`, side }));
  if (typeof $ref === 'string') {
    const target = resolveRef(walk, side, $ref);
    if (target === undefined) out.push({ narrowing: { kind: 'unsupported', keyword: '$ref', readerPointer: `${pointer}/$ref`, writerPointer: '', reader: `cannot resolve "${$ref}"` } });
    else out.push({ schema: asSchema(target.schema), pointer: target.pointer, role: `ref:${$ref.startsWith('#') ? `${side.base}${$ref}` : $ref}`, side: target.side });
  }
  return out;
}

function resolveRef(walk: Walk, side: Side, ref: string): { schema: unknown; pointer: string; side: Side } | undefined {
  const hash = ref.indexOf('#');
  const uri = hash === -1 ? ref : ref.slice(0, hash);
  const fragment = hash === -1 ? '' : ref.slice(hash + 1);
  let document: unknown;
  let target: Side;
  if (uri === '') {
    document = side.root;
    target = side;
  } else {
    document = walk.options.resolve?.(uri);
    if (document === undefined) return undefined;
    target = { root: document, base: uri };
  }
  if (fragment !== '' && !fragment.startsWith('/')) return undefined;
  let node: unknown = document;
  for (const token of fragment === '' ? [] : fragment.slice(1).split('/')) {
    const key = decodeURIComponent(token).replaceAll('~1', '/').replaceAll('~0', '~');
    node = typeof node === 'object' && node !== null ? own(node as Record<string, unknown>, key) : undefined;
    if (node === undefined) return undefined;
  }
  return { schema: node, pointer: `${target.base}${target.base === '' ? '' : '#'}${fragment}`, side: target };
}

/** The reader's own keywords (no $ref, no allOf) against the writer's whole schema. */
function compareOwn(walk: Walk, reader: Record<string, unknown>, writerConjunct: Conjunct, rp: string, wp: string): Narrowing[] {
  const writer = writerConjunct.schema === true ? {} : writerConjunct.schema === false ? undefined : writerConjunct.schema;
  if (writer === undefined) return [];
  const at = (extra: Partial<Narrowing> & { kind: NarrowingKind }): Narrowing => ({ readerPointer: rp, writerPointer: wp, ...extra });
  const out: Narrowing[] = [];
  out.push(...compareTypes(reader, writer, at));
  out.push(...compareValues(reader, writer, at));
  out.push(...compareBounds(reader, writer, at));
  for (const keyword of ['pattern', 'format'] as const) {
    if (reader[keyword] !== undefined && !same(reader[keyword], writer[keyword])) out.push(at({ kind: keyword, keyword, reader: reader[keyword], writer: writer[keyword] ?? null }));
  }
  const unevaluated = reader['unevaluatedProperties'];
  if (typeof unevaluated === 'object' && unevaluated !== null && !same(unevaluated, writer['unevaluatedProperties'])) {
    out.push(at({ kind: 'unsupported', keyword: 'unevaluatedProperties', reader: unevaluated, writer: writer['unevaluatedProperties'] ?? null }));
  }
  if (reader['uniqueItems'] === true && writer['uniqueItems'] !== true) out.push(at({ kind: 'unique_items', keyword: 'uniqueItems' }));
  const writerRequired = new Set(Array.isArray(writer['required']) ? (writer['required'] as string[]) : []);
  for (const name of Array.isArray(reader['required']) ? (reader['required'] as string[]) : []) {
    if (!writerRequired.has(name)) out.push(at({ kind: 'required', property: name, readerPointer: `${rp}/properties/${escape(name)}`, writerPointer: `${wp}/properties/${escape(name)}` }));
  }
  out.push(...compareProperties(walk, reader, writer, rp, wp));
  if (reader['items'] !== undefined) out.push(...compare(walk, asSchema(reader['items']), asSchema(writer['items'] ?? true), `${rp}/items`, `${wp}/items`));
  out.push(...compareBranches(walk, reader, writer, rp, wp));
  for (const [keyword, value] of Object.entries(reader)) {
    if (HANDLED.has(keyword) || same(value, own(writer, keyword))) continue;
    out.push(at({ kind: 'unsupported', keyword, reader: value, writer: own(writer, keyword) ?? null }));
  }
  return out;
}

/**
 * JSON types a schema lets through: its `type`, else the types of its enum or const, else the
 * union of its anyOf/oneOf branches when each is typed (`anyOf:[string,integer]` is
 * `type:[string,integer]`); undefined when unknown (all types).
 */
function typesOf(schema: Record<string, unknown>): string[] | undefined {
  const type = schema['type'];
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type as string[];
  const values = schema['const'] !== undefined ? [schema['const']] : Array.isArray(schema['enum']) ? (schema['enum'] as unknown[]) : undefined;
  if (values) return values.map((v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v));
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = schema[keyword];
    if (!Array.isArray(branches) || branches.length === 0) continue;
    const each = branches.map(schemaTypes);
    if (each.every((t): t is string[] => t !== undefined)) return [...new Set(each.flat())];
  }
  return undefined;
}

/** typesOf of any schema value: `false` lets no type through; `true` (or a non-schema) is undefined, all types. */
function schemaTypes(schema: unknown): string[] | undefined {
  return typeof schema === 'object' && schema !== null ? typesOf(schema as Record<string, unknown>) : schema === false ? [] : undefined;
}

/** True when no instance can have a type of both lists (integer is a number). */
function typesDisjoint(a: readonly string[], b: readonly string[]): boolean {
  const widen = (list: readonly string[]) => new Set(list.flatMap((t) => (t === 'integer' ? ['integer', 'number'] : t === 'number' ? ['number', 'integer'] : [t])));
  const wa = widen(a);
  return ![...widen(b)].some((t) => wa.has(t));
}

function compareTypes(reader: Record<string, unknown>, writer: Record<string, unknown>, at: (n: Partial<Narrowing> & { kind: NarrowingKind }) => Narrowing): Narrowing[] {
  if (reader['type'] === undefined) return [];
  const allowed = new Set(typesOf(reader));
  const written = typesOf(writer) ?? ALL_TYPES;
  const missing = [...new Set(written)].filter((t) => !allowed.has(t) && !(t === 'integer' && allowed.has('number')));
  return missing.length === 0 ? [] : [at({ kind: 'type', keyword: 'type', reader: [...allowed], writer: missing })];
}

function compareValues(reader: Record<string, unknown>, writer: Record<string, unknown>, at: (n: Partial<Narrowing> & { kind: NarrowingKind }) => Narrowing): Narrowing[] {
  const out: Narrowing[] = [];
  const writerValues = writer['const'] !== undefined ? [writer['const']] : Array.isArray(writer['enum']) ? (writer['enum'] as unknown[]) : undefined;
  for (const keyword of ['enum', 'const'] as const) {
    if (reader[keyword] === undefined) continue;
    const readerValues = keyword === 'const' ? [reader['const']] : Array.isArray(reader['enum']) ? (reader['enum'] as unknown[]) : [];
    if (writerValues === undefined) {
      out.push(at({ kind: keyword, keyword, reader: readerValues, writer: null }));
      continue;
    }
    const missing = writerValues.filter((value) => !readerValues.some((allowed) => same(allowed, value)));
    if (missing.length > 0) out.push(at({ kind: keyword, keyword, reader: readerValues, writer: missing }));
  }
  return out;
}

interface Bound {
  value: number;
  exclusive: boolean;
  keyword: string;
}

function bound(schema: Record<string, unknown>, inclusive: string, exclusive: string, pick: (a: number, b: number) => boolean): Bound | undefined {
  const candidates: Bound[] = [];
  if (typeof schema[inclusive] === 'number') candidates.push({ value: schema[inclusive] as number, exclusive: false, keyword: inclusive });
  if (typeof schema[exclusive] === 'number') candidates.push({ value: schema[exclusive] as number, exclusive: true, keyword: exclusive });
  return candidates.reduce<Bound | undefined>((best, c) => (best === undefined || pick(c.value, best.value) || (c.value === best.value && c.exclusive) ? c : best), undefined);
}

function compareBounds(reader: Record<string, unknown>, writer: Record<string, unknown>, at: (n: Partial<Narrowing> & { kind: NarrowingKind }) => Narrowing): Narrowing[] {
  const out: Narrowing[] = [];
  const lower = (s: Record<string, unknown>) => bound(s, 'minimum', 'exclusiveMinimum', (a, b) => a > b);
  const upper = (s: Record<string, unknown>) => bound(s, 'maximum', 'exclusiveMaximum', (a, b) => a < b);
  const rl = lower(reader);
  const wl = lower(writer);
  if (rl && (!wl || rl.value > wl.value || (rl.value === wl.value && rl.exclusive && !wl.exclusive))) out.push(at({ kind: 'bound', keyword: rl.keyword, reader: rl.value, writer: wl?.value ?? null }));
  const ru = upper(reader);
  const wu = upper(writer);
  if (ru && (!wu || ru.value < wu.value || (ru.value === wu.value && ru.exclusive && !wu.exclusive))) out.push(at({ kind: 'bound', keyword: ru.keyword, reader: ru.value, writer: wu?.value ?? null }));
  for (const keyword of LOWER_BOUNDS) {
    const r = reader[keyword];
    const w = writer[keyword];
    if (typeof r === 'number' && r > (typeof w === 'number' ? w : 0)) out.push(at({ kind: 'bound', keyword, reader: r, writer: w ?? null }));
  }
  for (const keyword of UPPER_BOUNDS) {
    const r = reader[keyword];
    const w = writer[keyword];
    if (typeof r === 'number' && r < (typeof w === 'number' ? w : Number.POSITIVE_INFINITY)) out.push(at({ kind: 'bound', keyword, reader: r, writer: w ?? null }));
  }
  const rm = reader['multipleOf'];
  const wm = writer['multipleOf'];
  if (typeof rm === 'number' && !(typeof wm === 'number' && isMultiple(wm, rm))) out.push(at({ kind: 'bound', keyword: 'multipleOf', reader: rm, writer: wm ?? null }));
  return out;
}

/** Every multiple of `of` is a multiple of `base` when `of` is itself one. */
function isMultiple(of: number, base: number): boolean {
  const ratio = of / base;
  return Math.abs(ratio - Math.round(ratio)) < 1e-9;
}

/** Object members: each property name is constrained by `properties[name]`, else by `additionalProperties`. */
function compareProperties(walk: Walk, reader: Record<string, unknown>, writer: Record<string, unknown>, rp: string, wp: string): Narrowing[] {
  const out: Narrowing[] = [];
  const rProps = (reader['properties'] ?? {}) as Record<string, unknown>;
  const wProps = (writer['properties'] ?? {}) as Record<string, unknown>;
  const rExtra = asSchema(reader['additionalProperties'] ?? true);
  const wExtra = asSchema(writer['additionalProperties'] ?? true);
  const readerClosed = rExtra === false || reader['unevaluatedProperties'] === false;
  for (const [name, writerProp] of Object.entries(wProps)) {
    const rpath = `${rp}/properties/${escape(name)}`;
    const wpath = `${wp}/properties/${escape(name)}`;
    if (Object.hasOwn(rProps, name)) {
      out.push(...compare(walk, asSchema(rProps[name]), asSchema(writerProp), rpath, wpath));
    } else if (readerClosed) {
      if (asSchema(writerProp) !== false) out.push({ kind: 'property_rejected', property: name, readerPointer: rpath, writerPointer: wpath });
    } else {
      out.push(...compare(walk, rExtra, asSchema(writerProp), `${rp}/additionalProperties`, wpath));
    }
  }
  const writerClosed = wExtra === false || writer['unevaluatedProperties'] === false;
  for (const [name, readerProp] of Object.entries(rProps)) {
    if (Object.hasOwn(wProps, name) || writerClosed) continue;
    const rpath = `${rp}/properties/${escape(name)}`;
    const found = compare(walk, asSchema(readerProp), wExtra, rpath, `${wp}/additionalProperties`);
    if (found.length > 0) out.push({ kind: 'open_model_property', property: name, readerPointer: rpath, writerPointer: `${wp}/properties/${escape(name)}` });
  }
  if (!writerClosed) {
    if (readerClosed) out.push({ kind: 'closed_content_model', keyword: rExtra === false ? 'additionalProperties' : 'unevaluatedProperties', readerPointer: `${rp}/${rExtra === false ? 'additionalProperties' : 'unevaluatedProperties'}`, writerPointer: `${wp}/additionalProperties` });
    else if (reader['additionalProperties'] !== undefined) out.push(...compare(walk, rExtra, wExtra, `${rp}/additionalProperties`, `${wp}/additionalProperties`));
  }
  return out;
}

/** anyOf / oneOf on the reader: every writer branch (or the whole writer) must fit some reader branch. */
function compareBranches(walk: Walk, reader: Record<string, unknown>, writer: Record<string, unknown>, rp: string, wp: string): Narrowing[] {
  const out: Narrowing[] = [];
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = reader[keyword];
    if (!Array.isArray(branches) || same(branches, writer[keyword])) continue;
    const writerBranches = Array.isArray(writer['anyOf']) ? writer['anyOf'] : Array.isArray(writer['oneOf']) ? writer['oneOf'] : undefined;
    const { anyOf: _a, oneOf: _o, ...writerBase } = writer;
    const pieces = writerBranches?.map((b, i) => ({ schema: asSchema(b), pointer: `${wp}/${Array.isArray(writer['anyOf']) ? 'anyOf' : 'oneOf'}/${i}` })) ?? splitByType(writerBase, wp);
    for (const piece of pieces) {
      const fitting = branches.flatMap((branch, i) => (compare(walk, asSchema(branch), piece.schema, `${rp}/${keyword}/${i}`, piece.pointer).length === 0 ? [i] : []));
      if (fitting.length === 0) {
        out.push({ kind: 'combinator', keyword, readerPointer: `${rp}/${keyword}`, writerPointer: piece.pointer });
        continue;
      }
      if (keyword === 'anyOf') continue;
      // oneOf passes a value matching exactly one branch: a piece that fits two fails on each value,
      // and one that fits one is safe only if no other branch can match its values too.
      if (fitting.length > 1) {
        out.push({ kind: 'combinator', keyword, readerPointer: `${rp}/${keyword}`, writerPointer: piece.pointer, reader: `values fit branches ${fitting.join(' and ')}, so oneOf rejects them` });
        continue;
      }
      const pieceTypes = schemaTypes(piece.schema) ?? ALL_TYPES;
      const overlapping = branches.flatMap((branch, i) => {
        if (i === fitting[0]) return [];
        const types = schemaTypes(branch);
        return types !== undefined && typesDisjoint(types, pieceTypes) ? [] : [i];
      });
      if (overlapping.length > 0) {
        out.push({ kind: 'unsupported', keyword, readerPointer: `${rp}/${keyword}`, writerPointer: piece.pointer, reader: `cannot prove that branches ${overlapping.join(', ')} never match what branch ${fitting[0]} accepts` });
      }
    }
  }
  return out;
}

/** A writer `type:[a,b]` as one piece per type: data of either type must fit some reader branch. */
function splitByType(writerBase: Record<string, unknown>, wp: string): { schema: Schema; pointer: string }[] {
  const type = writerBase['type'];
  if (!Array.isArray(type) || type.length < 2) return [{ schema: writerBase as Schema, pointer: wp }];
  return type.map((t) => ({ schema: { ...writerBase, type: t } as Schema, pointer: wp }));
}
