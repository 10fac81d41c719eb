// An AFTS query (afts-parse.ts) as SQL over nodes and the FTS5 index. Each text term becomes a
// MATCH on its column; a wildcard FTS5 cannot express (? anywhere, * inside a word) and a field
// that is one property (cm:title, cm:description) are checked exactly by afts_match() on the
// candidate rows. A trailing * is a prefix index's lookup, or for a longer prefix the words it
// stands for (search-prefixes.ts). Every alternative must name a word, so the hits are always
// among the rows the index finds for the query's positive words, and no query reads the whole table.

import type { DatabaseSync, SQLInputValue, SQLOutputValue } from 'node:sqlite';
import type { AftsNode, TextField } from './afts-parse.ts';
import { RepositoryError } from './repository-error.ts';
import { INDEXED_PREFIX_LENGTHS, LONG_PREFIXES_PER_QUERY, PREFIX_WORDS, indexedPrefix } from './search-prefixes.ts';
import type { PrefixWords, UnindexedPrefix } from './search-prefixes.ts';

export interface CompiledAfts {
  /** A condition over `n` (nodes) and `r` (search_rows). */
  where: string;
  args: SQLInputValue[];
  /** The FTS5 expression of the positive words: a superset of the hits, and their bm25 score. */
  candidates: string;
  /** The distinct FTS5 phrases of `candidates`: bm25 counts the documents holding each. */
  phrases: string[];
  /** False when a prefix stood for only its first PREFIX_WORDS words: then hits may be missing (or, negated, too many). */
  complete: boolean;
}

const FTS_COLUMN: Record<TextField, string> = { 'all': '', 'name': 'name : ', 'content': 'body : ', 'cm:title': 'metadata : ', 'cm:description': 'metadata : ' };
const FTS_TEXT: Record<TextField, string> = { 'all': `name || ' ' || metadata || ' ' || body`, 'name': 'name', 'content': 'body', 'cm:title': 'metadata', 'cm:description': 'metadata' };

/** Lower case without diacritics, as the index's unicode61 tokenizer (remove_diacritics 2) folds text. */
export function foldText(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

function termPattern(term: string): string {
  return `^${foldText(term).replace(/[*?]|[^*?]+/gu, (part) => (part === '*' ? '[\\p{L}\\p{N}]*' : part === '?' ? '[\\p{L}\\p{N}]' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))}$`;
}

/** How one term is looked up: its folded text up to its first wildcard, whether a wildcard follows (a prefix), and whether afts_match() must check it after. */
function termLookup(term: string, last: boolean, phrase: boolean): { text: string; prefix: boolean; exact: boolean } {
  const folded = foldText(term);
  const first = folded.search(/[*?]/);
  if (first === -1) return { text: folded, prefix: false, exact: false };
  if (first === 0) throw new RepositoryError(400, `Unsupported AFTS: "${term}" starts with a wildcard, which the index cannot look up: put at least one letter first`);
  const trailingStar = /^[^*?]+\*+$/.test(folded);
  if (phrase && !(last && trailingStar)) throw new RepositoryError(400, `Unsupported AFTS: the wildcard in "${term}" inside a phrase (only the phrase's last word may end in *)`);
  return { text: folded.slice(0, first), prefix: true, exact: !trailingStar };
}

/** The lookup of a text leaf's last term (only the last may hold a wildcard). */
function lastTermLookup(node: Extract<AftsNode, { kind: 'text' }>): ReturnType<typeof termLookup> {
  return termLookup(node.terms.at(-1)!, true, node.phrase);
}

/** The words each unindexed prefix of a query stands for, by prefix: what compileAfts() needs. */
export type PrefixExpansions = ReadonlyMap<string, PrefixWords>;

function textLeaf(node: Extract<AftsNode, { kind: 'text' }>, expansions: PrefixExpansions): { fts: string; phrases: string[]; exactTerms: boolean; complete: boolean } {
  const parts = node.terms.map((term, i) => termLookup(term, i === node.terms.length - 1, node.phrase));
  const last = parts.at(-1)!;
  const head = parts.slice(0, -1).map((p) => p.text);
  const phraseEndingIn = (word: string, star: boolean) => `${FTS_COLUMN[node.field]}"${[...head, word].join(' ')}"${star ? ' *' : ''}`;
  const exactTerms = parts.some((p) => p.exact);
  if (!last.prefix || indexedPrefix(last.text)) {
    const phrase = phraseEndingIn(last.text, last.prefix);
    return { fts: phrase, phrases: [phrase], exactTerms, complete: true };
  }
  const expanded = expansions.get(last.text);
  if (expanded === undefined) throw new Error(`The prefix "${last.text}" was not expanded before compiling: pass the words of each prefix unindexedPrefixes() names to compileAfts()`);
  // A term with wildcards after its prefix (`zulu1?`) stands for the prefix's words it matches.
  const pattern = last.exact ? new RegExp(termPattern(node.terms.at(-1)!), 'u') : undefined;
  const matching = pattern === undefined ? expanded.words : expanded.words.filter((word) => pattern.test(word));
  // No word starts with the prefix (or matches): then it is no word either, and its phrase matches nothing.
  const words = matching.length === 0 ? [last.text] : matching;
  const phrases = words.map((word) => phraseEndingIn(word, false));
  return { fts: `(${phrases.join(' OR ')})`, phrases, exactTerms, complete: expanded.complete };
}

/** Whether every row the node matches must match one of its positive words (so the index can find them all). */
function namesWords(node: AftsNode): boolean {
  switch (node.kind) {
    case 'text':
    // Matches no row at all, so it adds none the index would miss.
    case 'none':
      return true;
    case 'and':
      return node.nodes.some(namesWords);
    case 'or':
      return node.nodes.every(namesWords);
    default:
      return false;
  }
}

const ASPECTS: Record<string, string> = { 'cm:auditable': '1', 'cm:versionable': 'n.is_folder = 0', 'cm:titled': 'n.is_folder = 0' };

function requireWords(node: AftsNode): void {
  if (!namesWords(node)) {
    throw new RepositoryError(400, 'Unsupported AFTS: every alternative of the query must name a word to look for (TYPE:, ASPECT:, ranges and negations only narrow what words find)');
  }
}

/** The prefixes of a query that no prefix index holds: each is expanded to its words (search-prefixes.ts) before compileAfts(). */
export function unindexedPrefixes(node: AftsNode): UnindexedPrefix[] {
  requireWords(node);
  const found = new Map<string, UnindexedPrefix>();
  let occurrences = 0;
  const walk = (at: AftsNode): void => {
    if (at.kind === 'text') {
      const term = at.terms.at(-1)!;
      const last = lastTermLookup(at);
      if (last.prefix && !indexedPrefix(last.text)) {
        // Only `?` after the prefix: a word it stands for has exactly the term's length.
        const longest = foldText(term).includes('*') ? undefined : [...foldText(term)].length;
        const seen = found.get(last.text);
        found.set(last.text, { text: last.text, longest: seen === undefined ? longest : seen.longest === undefined || longest === undefined ? undefined : Math.max(seen.longest, longest) });
        occurrences += 1;
      }
    } else if (at.kind === 'not') walk(at.node);
    else if (at.kind === 'and' || at.kind === 'or') at.nodes.forEach(walk);
  };
  walk(node);
  // Each occurrence puts up to PREFIX_WORDS words in the index's query and each distinct one is
  // a read of its own on the pool: without a bound, one 4 KB query held a read thread for
  // seconds or filled the pool's queue (a 503 for everyone).
  if (occurrences > LONG_PREFIXES_PER_QUERY) {
    throw new RepositoryError(400, `Unsupported AFTS: ${occurrences} prefixes of ${Math.max(...INDEXED_PREFIX_LENGTHS) + 1} characters or more (word*), at most ${LONG_PREFIXES_PER_QUERY} in one query (each stands for up to ${PREFIX_WORDS} words): search with fewer or shorter prefixes`);
  }
  return [...found.values()];
}

type TextLeaf = ReturnType<typeof textLeaf>;

/** The conjuncts of a query: the nodes of its top-level ANDs. */
function conjunctsOf(node: AftsNode): AftsNode[] {
  return node.kind === 'and' ? node.nodes.flatMap(conjunctsOf) : [node];
}

/**
 * The FTS5 expression that matches exactly the rows a node of words matches (its words as the
 * query combines them), or undefined when the index alone cannot say (a negation, a TYPE or a
 * range among them, a wildcard or a property checked afterwards); null when it matches no row.
 */
function exactExpression(node: AftsNode, leafOf: (leaf: Extract<AftsNode, { kind: 'text' }>) => TextLeaf): string | null | undefined {
  switch (node.kind) {
    case 'text': {
      const leaf = leafOf(node);
      return leaf.exactTerms || node.field === 'cm:title' || node.field === 'cm:description' ? undefined : leaf.fts;
    }
    case 'none':
      return null;
    case 'and':
    case 'or': {
      const parts = node.nodes.map((n) => exactExpression(n, leafOf));
      if (parts.includes(undefined)) return undefined;
      const matching = parts.filter((p): p is string => p !== null);
      if (node.kind === 'and' ? matching.length < parts.length : matching.length === 0) return null;
      // A repeated part (`lexicon1* OR lexicon1*`) adds nothing to AND or OR but another lookup of all its words.
      const unique = [...new Set(matching)];
      return unique.length === 1 ? unique[0]! : unique.map((p) => `(${p})`).join(node.kind === 'and' ? ' AND ' : ' OR ');
    }
    default:
      return undefined;
  }
}

export function compileAfts(node: AftsNode, expansions: PrefixExpansions = new Map()): CompiledAfts {
  requireWords(node);
  const leaves = new Map<AftsNode, TextLeaf>();
  const leafOf = (at: Extract<AftsNode, { kind: 'text' }>): TextLeaf => {
    let leaf = leaves.get(at);
    if (leaf === undefined) leaves.set(at, (leaf = textLeaf(at, expansions)));
    return leaf;
  };
  // When every conjunct that names words is answered by the index exactly, the candidates are
  // those conjuncts' rows themselves, newest first, and only the other conjuncts (TYPE, ranges,
  // negations) are checked on them: no word is looked up twice.
  const conjuncts = conjunctsOf(node);
  const exact = conjuncts.map((c) => (namesWords(c) ? exactExpression(c, leafOf) : false));
  if (exact.every((e) => e !== undefined)) {
    const words = exact.filter((e): e is string | null => e !== false);
    const complete = [...leaves.values()].every((l) => l.complete);
    // No row matches (TAG:): SQLite skips the query for its constant condition, FTS5 never sees the empty expression.
    if (words.includes(null)) return { where: '0', args: [], candidates: '', phrases: [], complete };
    const { where, args } = compileWhere({ kind: 'and', nodes: conjuncts.filter((_, i) => exact[i] === false) }, leafOf);
    const phrases = conjuncts.filter((_, i) => typeof exact[i] === 'string').flatMap((c) => phrasesOf(c, leafOf));
    return { where, args, candidates: [...new Set(words)].map((e) => `(${e})`).join(' AND '), phrases: [...new Set(phrases)], complete };
  }
  const { where, args, positive, phrases } = compileWhere(node, leafOf);
  return { where, args, candidates: [...new Set(positive)].map((p) => `(${p})`).join(' OR '), phrases: [...new Set(phrases)], complete: [...leaves.values()].every((l) => l.complete) };
}

/** The phrases of the text leaves of a node of words (text, AND, OR). */
function phrasesOf(node: AftsNode, leafOf: (leaf: Extract<AftsNode, { kind: 'text' }>) => TextLeaf): string[] {
  if (node.kind === 'text') return leafOf(node).phrases;
  return node.kind === 'and' || node.kind === 'or' ? node.nodes.flatMap((n) => phrasesOf(n, leafOf)) : [];
}

/** The condition over `n` and `r` that decides which candidates are hits, and the FTS5 text of its positive words. */
function compileWhere(node: AftsNode, leafOf: (leaf: Extract<AftsNode, { kind: 'text' }>) => TextLeaf): { where: string; args: SQLInputValue[]; positive: string[]; phrases: string[] } {
  const args: SQLInputValue[] = [];
  const positive: string[] = [];
  const phrases: string[] = [];
  const walk = (at: AftsNode, negated: boolean): string => {
    switch (at.kind) {
      case 'text': {
        const leaf = leafOf(at);
        const { fts, exactTerms } = leaf;
        if (!negated) {
          positive.push(fts);
          phrases.push(...leaf.phrases);
        }
        const spec = JSON.stringify({ terms: at.terms.map(termPattern), phrase: at.phrase });
        args.push(fts);
        // Bounded by the window `c` of search.ts either way. A positive word's rows from the
        // oldest candidate on are all candidates, so its IN set holds at most the window; a
        // negated word may be in any number of those rows, so it is asked of each candidate.
        const exact = exactTerms ? ` AND afts_match(${FTS_TEXT[at.field]}, ?)` : '';
        let sql = negated
          ? `EXISTS (SELECT 1 FROM search_index WHERE search_index MATCH ? AND search_index.rowid = r.fts_rowid${exact})`
          : `r.fts_rowid IN (SELECT rowid FROM search_index WHERE search_index MATCH ? AND rowid >= (SELECT min(fts_rowid) FROM c)${exact})`;
        if (exactTerms) args.push(spec);
        if (at.field === 'cm:title' || at.field === 'cm:description') {
          sql += ` AND afts_match(json_extract(n.properties, ?), ?)`;
          args.push(`$."${at.field}"`, spec);
        }
        return `(${sql})`;
      }
      case 'type':
        args.push(at.value);
        return 'n.node_type = ?';
      case 'aspect':
        return `(${ASPECTS[at.value] ?? '0'})`;
      case 'none':
        return '0';
      case 'range': {
        const parts: string[] = [];
        if (at.from !== undefined) {
          parts.push(`n.${at.column} ${at.fromInclusive ? '>=' : '>'} ?`);
          args.push(at.from);
        }
        if (at.to !== undefined) {
          parts.push(`n.${at.column} ${at.toInclusive ? '<=' : '<'} ?`);
          args.push(at.to);
        }
        return parts.length === 0 ? '1' : `(${parts.join(' AND ')})`;
      }
      case 'not':
        return `NOT ${walk(at.node, !negated)}`;
      case 'and':
      case 'or':
        return at.nodes.length === 0 ? '1' : `(${at.nodes.map((n) => walk(n, negated)).join(at.kind === 'and' ? ' AND ' : ' OR ')})`;
    }
  };
  return { where: walk(node, false), args, positive, phrases };
}

/**
 * afts_match(text, spec): 1 when `text` holds the spec's term (or phrase) with its wildcards.
 * It stands alone (foldText() written out) because the read pool's threads get its source text.
 */
export function aftsMatch(text: SQLOutputValue, spec: SQLOutputValue): number {
  if (typeof text !== 'string' || typeof spec !== 'string') return 0;
  const { terms, phrase } = JSON.parse(spec) as { terms: string[]; phrase: boolean };
  const patterns = terms.map((t) => new RegExp(t, 'u'));
  const words = text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  if (!phrase) return words.some((w) => patterns[0]!.test(w)) ? 1 : 0;
  for (let i = 0; i + patterns.length <= words.length; i++) if (patterns.every((p, j) => p.test(words[i + j]!))) return 1;
  return 0;
}

const REGISTERED = new WeakSet<DatabaseSync>();

/** Registers afts_match() on a connection, once. */
export function registerAftsMatch(sqlite: DatabaseSync): void {
  if (REGISTERED.has(sqlite)) return;
  sqlite.function('afts_match', { deterministic: true }, aftsMatch);
  REGISTERED.add(sqlite);
}
