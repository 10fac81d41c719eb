// Frappe's list arguments for GET /api/resource/<DocType> (frappe.client.get_list): `fields`
// (JSON list, default ["name"], "*" for all), `filters` (JSON list of [field, op, value] or
// [doctype, field, op, value], or an object {field: value | [op, value]}), `order_by`
// ("field asc|desc", default "modified desc", also when sent empty), `limit_start`, and `limit` or
// `limit_page_length` (default 20; 0 means all); `or_filters` (same forms: a document matching any
// of them); `as_dict` is accepted and ignored: over HTTP Frappe reads any value as true (a
// non-empty string), and frappe-js-sdk always sends it.

import type { ErpDocument } from '../database/documents.ts';
import { frappeThrow } from '../frappe/envelope.ts';

export interface ListQuery {
  fields: string[] | '*';
  filters: Filter[];
  /** Empty: no or-condition. */
  orFilters: Filter[];
  orderBy: { field: string; descending: boolean };
  start: number;
  /** 0: no limit. */
  limit: number;
}

export interface Filter {
  field: string;
  op: string;
  value: unknown;
  /** For like / not like: the value as a pattern, compiled once per query, not per document. */
  pattern?: RegExp;
  /** For in / not in: the values, split and trimmed once per query. */
  list?: string[];
}

const FIELD = /^[a-z_][a-z0-9_]{0,63}$/;
const OPERATORS = new Set(['=', '!=', '>', '<', '>=', '<=', 'like', 'not like', 'in', 'not in', 'is']);
const DEFAULT_PAGE = 20;

function json(query: URLSearchParams, name: string): unknown {
  const text = query.get(name);
  if (text === null || text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    frappeThrow(`Argument "${name}" is not JSON: send e.g. ${name}=${name === 'fields' ? '["name","status"]' : '[["status","=","Staged"]]'}`);
  }
}

function field(value: unknown): string {
  if (typeof value !== 'string' || !FIELD.test(value)) frappeThrow(`Field ${JSON.stringify(value)} is not permitted in query: use a lower-case field name`);
  return value;
}

function count(query: URLSearchParams, name: string, fallback: number): number {
  const text = query.get(name);
  if (text === null || text === '') return fallback;
  if (!/^\d{1,9}$/.test(text)) frappeThrow(`Argument "${name}" must be a whole number, got "${text}"`);
  return Number(text);
}

export function parseListQuery(query: URLSearchParams, doctype: string): ListQuery {
  const known = ['fields', 'filters', 'or_filters', 'order_by', 'limit_start', 'limit', 'limit_page_length', 'as_dict', 'cmd'];
  for (const key of query.keys()) if (!known.includes(key)) frappeThrow(`Unexpected argument "${key}": this list takes ${known.slice(0, -1).join(', ')}`);
  const rawFields = json(query, 'fields') ?? ['name'];
  if (!Array.isArray(rawFields) || rawFields.length === 0) frappeThrow('Argument "fields" must be a non-empty JSON list');
  const fields = rawFields.includes('*') ? '*' : rawFields.map(field);
  const orderText = query.get('order_by') || 'modified desc';
  const order = /^`?(?:tab[A-Za-z ]+`?\.`?)?([a-z_][a-z0-9_]*)`?(?:\s+(asc|desc))?$/i.exec(orderText.trim());
  if (!order) frappeThrow(`Argument "order_by" must be "<field> asc" or "<field> desc", got "${orderText}"`);
  const limitText = query.get('limit') ?? query.get('limit_page_length');
  return {
    fields,
    filters: parseFilters(json(query, 'filters'), doctype),
    orFilters: parseFilters(json(query, 'or_filters'), doctype),
    orderBy: { field: order[1]!, descending: (order[2] ?? 'asc').toLowerCase() === 'desc' },
    start: count(query, 'limit_start', 0),
    limit: limitText === null ? DEFAULT_PAGE : count(query, query.has('limit') ? 'limit' : 'limit_page_length', DEFAULT_PAGE),
  };
}

function parseFilters(raw: unknown, doctype: string): Filter[] {
  if (raw === undefined || raw === null) return [];
  if (Array.isArray(raw)) {
    return raw.map((entry) => {
      if (!Array.isArray(entry) || entry.length < 3 || entry.length > 4) frappeThrow('Each filter must be [field, operator, value] or [doctype, field, operator, value]');
      const [name, op, value] = entry.length === 4 ? entry.slice(1) : entry;
      if (entry.length === 4 && entry[0] !== doctype) frappeThrow(`Filter names DocType ${JSON.stringify(entry[0])}; this list is of ${doctype}`);
      return filter(name, op, value);
    });
  }
  if (typeof raw === 'object') {
    return Object.entries(raw as Record<string, unknown>).map(([name, value]) => (Array.isArray(value) && value.length === 2 ? filter(name, value[0], value[1]) : filter(name, '=', value)));
  }
  frappeThrow('Argument "filters" must be a JSON list or object');
}

function filter(name: unknown, op: unknown, value: unknown): Filter {
  const operator = typeof op === 'string' ? op.toLowerCase() : '';
  if (!OPERATORS.has(operator)) frappeThrow(`Operator ${JSON.stringify(op)} is not supported: use one of ${[...OPERATORS].join(', ')}`);
  if ((operator === 'in' || operator === 'not in') && !Array.isArray(value) && typeof value !== 'string') frappeThrow(`Operator "${operator}" takes a list or a comma-separated string`);
  if (operator === 'is' && value !== 'set' && value !== 'not set') frappeThrow('Operator "is" takes "set" or "not set"');
  // A list or object would otherwise be compared as its String() ("[object Object]", "a,b").
  const listed = operator === 'in' || operator === 'not in';
  if (listed ? Array.isArray(value) && !value.every(isScalar) : !isScalar(value)) {
    frappeThrow(`Filter on ${JSON.stringify(name)}: the value must be a string, number, boolean or null${listed ? ' (or a list of them)' : ''}, got ${Array.isArray(value) ? 'a list' : typeof value}`);
  }
  const pattern = operator === 'like' || operator === 'not like' ? likePattern(text(value)) : undefined;
  const list = listed ? (Array.isArray(value) ? value : String(value).split(',')).map((v) => String(v).trim()) : undefined;
  return { field: field(name), op: operator, value, ...(pattern && { pattern }), ...(list && { list }) };
}

/** SQL LIKE as a regular expression: % any run, _ any one character, without letter case. */
function likePattern(wanted: string): RegExp {
  return new RegExp(`^${wanted.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/%/g, '.*').replace(/_/g, '.')}$`, 'is');
}

/** A value as the filters compare it: null and undefined are the empty string. */
function text(value: unknown): string {
  return value === null || value === undefined ? '' : String(value);
}

/** A document's own field: a name such as `constructor` or `__proto__` must not reach Object.prototype. */
function own(doc: ErpDocument, field: string): unknown {
  return Object.hasOwn(doc, field) ? doc[field] : undefined;
}

const isScalar = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);

function matches(doc: ErpDocument, f: Filter): boolean {
  const actual = own(doc, f.field);
  const shown = text(actual);
  switch (f.op) {
    case '=': return shown === text(f.value);
    case '!=': return shown !== text(f.value);
    case 'is': return (f.value === 'set') === (shown !== '');
    case 'in':
    case 'not in':
      return f.list!.includes(shown) === (f.op === 'in');
    case 'like':
    case 'not like':
      return f.pattern!.test(shown) === (f.op === 'like');
    default: return compare(actual, f.value, f.op);
  }
}

/** Numbers and decimal strings compare as numbers, everything else as text (dates sort as text). */
function compare(a: unknown, b: unknown, op: string): boolean {
  const numeric = (v: unknown) => (typeof v === 'number' || (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)) ? Number(v) : undefined);
  const [x, y] = [numeric(a), numeric(b)];
  const order = x !== undefined && y !== undefined ? Math.sign(x - y) : String(a ?? '').localeCompare(String(b ?? ''));
  return op === '>' ? order > 0 : op === '<' ? order < 0 : op === '>=' ? order >= 0 : order <= 0;
}

/** Applies the query to every document of the DocType. */
export function runListQuery(docs: readonly ErpDocument[], query: ListQuery): Record<string, unknown>[] {
  const { field: key, descending } = query.orderBy;
  const kept = docs.filter((doc) => query.filters.every((f) => matches(doc, f)) && (query.orFilters.length === 0 || query.orFilters.some((f) => matches(doc, f))));
  kept.sort((a, b) => {
    const order = String(own(a, key) ?? '').localeCompare(String(own(b, key) ?? '')) || a.name.localeCompare(b.name);
    return descending ? -order : order;
  });
  const page = query.limit === 0 ? kept.slice(query.start) : kept.slice(query.start, query.start + query.limit);
  return page.map((doc) => pickFields(doc, query.fields));
}

/** The fields a list asked for, each null when the document lacks it ("*": the whole document). */
export function pickFields(doc: ErpDocument, fields: ListQuery['fields']): Record<string, unknown> {
  return fields === '*' ? doc : Object.fromEntries(fields.map((f) => [f, own(doc, f) ?? null]));
}
