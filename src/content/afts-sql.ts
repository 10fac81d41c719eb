// An AFTS query (afts-parse.ts) as SQL over nodes and the FTS5 index. Each text term becomes a
// MATCH on its column; a wildcard FTS5 cannot express (? anywhere, * inside a word) and a field
// that is one property (cm:title, cm:description) are checked exactly by afts_match() on the
// candidate rows. Every alternative must name a word, so the hits are always among the rows the
// index finds for the query's positive words, and no query reads the whole table.

import type { DatabaseSync, SQLInputValue, SQLOutputValue } from 'node:sqlite';
import type { AftsNode, TextField } from './afts-parse.ts';
import { RepositoryError } from './repository-error.ts';

export interface CompiledAfts {
  /** A condition over `n` (nodes) and `r` (search_rows). */
  where: string;
  args: SQLInputValue[];
  /** The FTS5 expression of the positive words: a superset of the hits, and their bm25 score. */
  candidates: string;
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

/** The FTS5 text of one term: a quoted token, a prefix for a trailing *, or the prefix before an inner wildcard (checked exactly after). */
function ftsTerm(term: string, last: boolean, phrase: boolean): { fts: string; exact: boolean } {
  const folded = foldText(term);
  const first = folded.search(/[*?]/);
  if (first === -1) return { fts: folded, exact: false };
  if (first === 0) throw new RepositoryError(400, `Unsupported AFTS: "${term}" starts with a wildcard, which the index cannot look up: put at least one letter first`);
  const trailingStar = /^[^*?]+\*+$/.test(folded);
  if (phrase && !(last && trailingStar)) throw new RepositoryError(400, `Unsupported AFTS: the wildcard in "${term}" inside a phrase (only the phrase's last word may end in *)`);
  return { fts: `${folded.slice(0, first)}*`, exact: !trailingStar };
}

function textLeaf(node: Extract<AftsNode, { kind: 'text' }>): { fts: string; exactTerms: boolean } {
  const parts = node.terms.map((term, i) => ftsTerm(term, i === node.terms.length - 1, node.phrase));
  const prefix = parts.at(-1)!.fts.endsWith('*');
  const words = parts.map((p, i) => (i === parts.length - 1 && prefix ? p.fts.slice(0, -1) : p.fts));
  return { fts: `${FTS_COLUMN[node.field]}"${words.join(' ')}"${prefix ? ' *' : ''}`, exactTerms: parts.some((p) => p.exact) };
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

export function compileAfts(node: AftsNode): CompiledAfts {
  if (!namesWords(node)) {
    throw new RepositoryError(400, 'Unsupported AFTS: every alternative of the query must name a word to look for (TYPE:, ASPECT:, ranges and negations only narrow what words find)');
  }
  const args: SQLInputValue[] = [];
  const positive: string[] = [];
  const walk = (at: AftsNode, negated: boolean): string => {
    switch (at.kind) {
      case 'text': {
        const { fts, exactTerms } = textLeaf(at);
        if (!negated) positive.push(fts);
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
        return `(${at.nodes.map((n) => walk(n, negated)).join(at.kind === 'and' ? ' AND ' : ' OR ')})`;
    }
  };
  const where = walk(node, false);
  return { where, args, candidates: positive.map((p) => `(${p})`).join(' OR ') };
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
