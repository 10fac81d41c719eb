// Alfresco Full Text Search (AFTS), the core a small repository answers: AND, OR, NOT, - and +,
// juxtaposition as AND, parentheses, "phrases" (or 'phrases'), * and ? wildcards, the fields
// cm:name, cm:title, cm:description, TEXT (and cm:content, name), TYPE and ASPECT, and ranges
// on cm:created and cm:modified. Anything else is refused with a RepositoryError(400) naming it,
// never read as words. Operators are case-insensitive, as in Alfresco's grammar.

import { RepositoryError } from './repository-error.ts';

/** Where a text term looks: all of name, metadata and content, or one of them. */
export type TextField = 'all' | 'name' | 'content' | 'cm:title' | 'cm:description';

export type AftsNode =
  | { kind: 'text'; field: TextField; terms: string[]; phrase: boolean }
  | { kind: 'type'; value: string }
  | { kind: 'aspect'; value: string }
  | { kind: 'range'; column: 'created_at' | 'modified_at'; from: string | undefined; to: string | undefined; fromInclusive: boolean; toInclusive: boolean }
  /** A term no node here can match (TAG: this repository keeps no tags). */
  | { kind: 'none'; field: string }
  | { kind: 'not'; node: AftsNode }
  | { kind: 'and' | 'or'; nodes: AftsNode[] };

const TEXT_FIELDS: Record<string, TextField> = {
  'cm:name': 'name', 'name': 'name', 'text': 'content', 'cm:content': 'content', 'cm:title': 'cm:title', 'cm:description': 'cm:description',
};
const RANGE_FIELDS: Record<string, 'created_at' | 'modified_at'> = { 'cm:created': 'created_at', 'cm:modified': 'modified_at' };
const SUPPORTED = 'AND, OR, NOT, -, +, ( ), "phrases", * and ? wildcards, cm:name:, cm:title:, cm:description:, TEXT:, TYPE:, ASPECT:, TAG:, and ranges [a TO b] on cm:created and cm:modified';

type Token =
  | { t: 'open' | 'close' | 'and' | 'or' | 'not' | 'minus' | 'plus' }
  | { t: 'field'; name: string }
  | { t: 'word'; text: string }
  | { t: 'phrase'; text: string }
  | { t: 'range'; open: string; from: string; to: string; close: string };

function refuse(what: string): never {
  throw new RepositoryError(400, `Unsupported AFTS: ${what}. This repository answers ${SUPPORTED}`);
}

// A field is a prefix and a colon, the value right after it: TYPE:, cm:name:, @cm:title:.
const KEYWORD_FIELD = /^@?(TYPE|ASPECT|TEXT|ID|PATH|PARENT|ANCESTOR|TAG|SITE|EXACTTYPE|EXACTASPECT|ISNULL|ISNOTNULL|ISUNSET|QNAME|CLASS|ALL|KEYWORD):(?=\S)/i;
const PREFIXED_FIELD = /^@?([A-Za-z][\w-]*(?::[A-Za-z][\w-]*)?):(?=\S)/;
// A bound may be quoted either way: ADF's date-time filter sends ['2026-01-01T00:00:00+01:00' TO '...'].
const RANGE = /^([[{<>])\s*("[^"]*"|'[^']*'|[^\s\]}]+)\s+TO\s+("[^"]*"|'[^']*'|[^\s\]}]+)\s*([\]}])/i;

function lex(query: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  const afterField = () => tokens.at(-1)?.t === 'field';
  while (at < query.length) {
    const rest = query.slice(at);
    const space = /^\s+/.exec(rest);
    if (space) {
      at += space[0].length;
      continue;
    }
    const c = rest[0]!;
    if (c === '(' || c === ')') {
      tokens.push({ t: c === '(' ? 'open' : 'close' });
      at += 1;
      continue;
    }
    if (c === '"' || c === '\'') {
      const end = rest.indexOf(c, 1);
      if (end === -1) refuse(`an unterminated phrase at ${at + 1}`);
      tokens.push({ t: 'phrase', text: rest.slice(1, end) });
      at += end + 1;
      continue;
    }
    if (afterField() && /^[[{<>]/.test(rest)) {
      const range = RANGE.exec(rest);
      if (!range || (c !== '[' && c !== '{')) refuse(`the range at ${at + 1}: write [from TO to], with { or } for an exclusive end`);
      tokens.push({ t: 'range', open: range[1]!, from: range[2]!.replace(/^(["'])(.*)\1$/, '$2'), to: range[3]!.replace(/^(["'])(.*)\1$/, '$2'), close: range[4]! });
      at += range[0].length;
      continue;
    }
    if (rest.startsWith('&&') || rest.startsWith('||')) {
      tokens.push({ t: rest[0] === '&' ? 'and' : 'or' });
      at += 2;
      continue;
    }
    if ((c === '-' || c === '+' || c === '!') && /^.\S/.test(rest) && !afterField()) {
      tokens.push({ t: c === '-' ? 'minus' : c === '+' ? 'plus' : 'not' });
      at += 1;
      continue;
    }
    const field = afterField() ? undefined : (KEYWORD_FIELD.exec(rest) ?? PREFIXED_FIELD.exec(rest));
    if (field) {
      tokens.push({ t: 'field', name: field[1]! });
      at += field[0].length;
      continue;
    }
    const word = /^[^\s()"']+/.exec(rest)![0];
    at += word.length;
    const keyword = word.toUpperCase();
    if (!afterField() && (keyword === 'AND' || keyword === 'OR' || keyword === 'NOT')) tokens.push({ t: keyword.toLowerCase() as 'and' | 'or' | 'not' });
    else tokens.push({ t: 'word', text: word });
  }
  return tokens;
}

const MAX_NESTING = 64;

/** Parses an AFTS query; a RepositoryError(400) names what it does not answer. */
export function parseAfts(query: string): AftsNode {
  const tokens = lex(query);
  let at = 0;
  // Parentheses and NOTs recurse: a 4096-character query of "(" would overflow the stack (a 500).
  let depth = 0;
  const deeper = <T>(parse: () => T): T => {
    if (++depth > MAX_NESTING) refuse(`parentheses or NOTs nested deeper than ${MAX_NESTING}`);
    try {
      return parse();
    } finally {
      depth -= 1;
    }
  };
  const peek = () => tokens[at];
  const orExpr = (field: string | undefined): AftsNode => {
    const nodes = [andExpr(field)];
    while (peek()?.t === 'or') {
      at += 1;
      nodes.push(andExpr(field));
    }
    return nodes.length === 1 ? nodes[0]! : { kind: 'or', nodes };
  };
  const andExpr = (field: string | undefined): AftsNode => {
    const nodes = [unary(field)];
    for (let next = peek(); next && next.t !== 'or' && next.t !== 'close'; next = peek()) {
      if (next.t === 'and') at += 1;
      nodes.push(unary(field));
    }
    return nodes.length === 1 ? nodes[0]! : { kind: 'and', nodes };
  };
  const unary = (field: string | undefined): AftsNode => {
    const token = peek();
    if (token?.t === 'not' || token?.t === 'minus') {
      at += 1;
      return { kind: 'not', node: deeper(() => unary(field)) };
    }
    if (token?.t === 'plus') at += 1;
    return primary(field);
  };
  const primary = (field: string | undefined): AftsNode => {
    const token = tokens[at++];
    if (!token) refuse(at <= 1 ? 'an empty query' : 'a query that ends with an operator');
    switch (token.t) {
      case 'open': {
        const inner = deeper(() => orExpr(field));
        if (tokens[at++]?.t !== 'close') refuse('a "(" without its ")"');
        return inner;
      }
      case 'field': {
        if (field !== undefined) refuse(`a field inside a field group (${token.name}: within ${field}:)`);
        const value = peek();
        if (value?.t === 'open') return primary(token.name);
        if (value?.t === 'range') {
          at += 1;
          return rangeNode(token.name, value);
        }
        if (value?.t !== 'word' && value?.t !== 'phrase') refuse(`the field ${token.name}: without a value`);
        at += 1;
        return leaf(token.name, value);
      }
      case 'word':
      case 'phrase':
        return leaf(field, token);
      case 'range':
        return rangeNode(field ?? refuse('a range without a field'), token);
      default:
        return refuse(`"${token.t === 'close' ? ')' : token.t.toUpperCase()}" where a term belongs`);
    }
  };
  const node = orExpr(undefined);
  if (at < tokens.length) refuse('a ")" without its "("');
  return node;
}

function leaf(field: string | undefined, token: { t: 'word' | 'phrase'; text: string }): AftsNode {
  const name = field?.toLowerCase();
  // The Alfresco Content App searches TAG beside name, title, description and TEXT; no node here has a tag.
  if (name === 'tag') return { kind: 'none', field: field! };
  if (name === 'type' || name === 'aspect') {
    if (!/^[A-Za-z][\w-]*:[A-Za-z][\w-]*$/.test(token.text)) refuse(`${field}:${token.text} (a ${field} is a prefixed name such as cm:content)`);
    return { kind: name, value: token.text };
  }
  const text = name === undefined ? 'all' : TEXT_FIELDS[name];
  if (text === undefined) refuse(RANGE_FIELDS[name!] ? `${field}: without a range (write ${field}:[from TO to])` : `the field ${field}:`);
  if (token.t === 'word') {
    if (/[~^]/.test(token.text)) refuse(`"${token.text}" (fuzzy ~ and boost ^ are not answered)`);
    if (token.text.startsWith('=')) refuse(`"${token.text}" (exact match =)`);
  }
  const terms = token.text.match(/[\p{L}\p{N}*?]+/gu) ?? [];
  if (terms.length === 0 || terms.every((t) => /^[*?]+$/.test(t))) refuse(`"${token.text}" has no word to look for`);
  // Several words in one term ("report.txt", "e-mail") are a phrase, as Alfresco's tokenizer makes them.
  return { kind: 'text', field: text, terms, phrase: terms.length > 1 };
}

function rangeNode(field: string, token: { open: string; from: string; to: string; close: string }): AftsNode {
  const column = RANGE_FIELDS[field.toLowerCase()];
  if (!column) refuse(`a range on ${field}: (ranges are answered on cm:created and cm:modified)`);
  const from = rangeBound(token.from, 'from', token.open === '[');
  const to = rangeBound(token.to, 'to', token.close === ']');
  return { kind: 'range', column, from: from.value, to: to.value, fromInclusive: from.inclusive, toInclusive: to.inclusive };
}

/**
 * A range bound as the ISO time it compares against (stored times are ISO UTC with milliseconds).
 * MIN and MAX are open ends; NOW is the request's time; a date alone is its whole day, so
 * [2026-01-01 TO 2026-01-31] covers both days entirely.
 */
function rangeBound(text: string, end: 'from' | 'to', inclusive: boolean): { value: string | undefined; inclusive: boolean } {
  const upper = text.toUpperCase();
  if (upper === 'MIN' || upper === 'MAX' || text === '*') return { value: undefined, inclusive };
  if (upper === 'NOW') return { value: new Date().toISOString(), inclusive };
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (day) {
    const start = new Date(`${text}T00:00:00.000Z`);
    if (Number.isNaN(start.getTime())) refuse(`the date "${text}"`);
    const next = new Date(start.getTime() + 86_400_000).toISOString();
    // A day bound is inclusive of the whole day from below and above; exclusive skips it whole.
    if (end === 'from') return inclusive ? { value: start.toISOString(), inclusive: true } : { value: next, inclusive: true };
    return inclusive ? { value: next, inclusive: false } : { value: start.toISOString(), inclusive: false };
  }
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})?$/.test(text)) refuse(`the range bound "${text}" (use a date, an ISO 8601 time, MIN, MAX or NOW)`);
  const time = new Date(/Z|[+-]\d{2}:?\d{2}$/.test(text) ? text : `${text}Z`);
  if (Number.isNaN(time.getTime())) refuse(`the range bound "${text}"`);
  return { value: time.toISOString(), inclusive };
}
