// Alfresco's `orderBy` and `where` of a folder listing, read into SQL from fixed tables: orderBy
// is "field [ASC|DESC]" terms, comma-separated; where is one parenthesized condition, or several
// joined by AND or by OR: isFolder=, isFile=, isPrimary= (true or false) and nodeType='x' (with
// INCLUDESUBTYPES). Anything else is a RepositoryError(400) naming it.

import { RepositoryError } from './repository-error.ts';

const ORDER_COLUMNS: Readonly<Record<string, string>> = {
  name: 'n.name COLLATE NOCASE',
  id: 'n.id',
  isFolder: 'n.is_folder',
  isFile: '(1 - n.is_folder)',
  nodeType: 'n.node_type',
  createdAt: 'n.created_at',
  modifiedAt: 'n.modified_at',
  createdByUser: `json_extract(n.created_by, '$.id')`,
  modifiedByUser: `json_extract(n.modified_by, '$.id')`,
};

/** orderBy=isFolder DESC,name ASC -> SQL ORDER BY terms; undefined for the default order. */
export function readOrderBy(value: string | null): string | undefined {
  if (value === null || value.trim() === '') return undefined;
  return value.split(',').map((term) => {
    const match = /^\s*([A-Za-z]+)(?:\s+(ASC|DESC))?\s*$/i.exec(term);
    const column = match && Object.hasOwn(ORDER_COLUMNS, match[1]!) ? ORDER_COLUMNS[match[1]!] : undefined;
    if (!match || column === undefined) throw new RepositoryError(400, `Invalid orderBy "${term.trim()}": order by ${Object.keys(ORDER_COLUMNS).join(', ')}, each optionally ASC or DESC`);
    return `${column} ${(match[2] ?? 'ASC').toUpperCase()}`;
  }).join(', ');
}

const CONDITION = /^(isFolder|isFile|isPrimary)\s*=\s*(true|false)$|^nodeType\s*=\s*'([A-Za-z][\w-]*:[A-Za-z][\w-]*)(\s+INCLUDESUBTYPES)?'$/;

/** where=(isFile=true) -> an SQL condition over `n` and its arguments. */
export function readWhere(value: string | null): { sql: string; args: string[] } | undefined {
  if (value === null || value.trim() === '') return undefined;
  const inner = /^\s*\((.*)\)\s*$/s.exec(value)?.[1];
  if (inner === undefined) throw new RepositoryError(400, `Invalid where "${value}": put the condition in parentheses, e.g. (isFile=true)`);
  const joiner = /\s+OR\s+/i.test(inner) ? 'OR' : 'AND';
  if (/\s+OR\s+/i.test(inner) && /\s+AND\s+/i.test(inner)) throw new RepositoryError(400, `Invalid where "${value}": join conditions with AND or with OR, not both`);
  const args: string[] = [];
  const parts = inner.split(joiner === 'OR' ? /\s+OR\s+/i : /\s+AND\s+/i).map((part) => {
    const match = CONDITION.exec(part.trim());
    if (!match) throw new RepositoryError(400, `Invalid where condition "${part.trim()}": use isFolder=, isFile= or isPrimary= (true or false), or nodeType='prefix:name' (optionally INCLUDESUBTYPES)`);
    if (match[1] === 'isFolder') return `n.is_folder = ${match[2] === 'true' ? 1 : 0}`;
    if (match[1] === 'isFile') return `n.is_folder = ${match[2] === 'true' ? 0 : 1}`;
    // Every child here is a primary child: isPrimary=false lists nothing.
    if (match[1] === 'isPrimary') return match[2] === 'true' ? '1' : '0';
    // cm:content and cm:folder are the only types here, both subtypes of cm:cmobject.
    if (match[4] && match[3] === 'cm:cmobject') return '1';
    args.push(match[3]!);
    return 'n.node_type = ?';
  });
  return { sql: `(${parts.join(` ${joiner} `)})`, args };
}
