// A node's entry as one caller sees it, with the members Alfresco's `include` adds (path,
// permissions, allowableOperations, isLink, isLocked, isFavorite, association) and Alfresco's
// `fields`, which keeps only the named members. Names outside those lists are refused (400),
// never ignored.

import type { DatabaseSync } from 'node:sqlite';
import type { ContentDeps } from './api-support.ts';
import { nodeEntry } from './node-entry.ts';
import type { NodeRow } from './node-entry.ts';
import { allowableOperations, permissionsMember, permissionsOn, readableBy } from './permissions.ts';
import type { Accessor, ReadCheck } from './permissions.ts';
import { RepositoryError } from './repository-error.ts';
import { currentVersion, getNode, systemFolderProblem } from './repository.ts';

/** Alfresco's `include` values a node read, a listing and a search honour. */
export const NODE_INCLUDES = ['properties', 'aspectNames', 'path', 'permissions', 'allowableOperations', 'isLink', 'isLocked', 'isFavorite', 'association'] as const;

/** The members an entry can have: what `fields` may name. */
const ENTRY_MEMBERS = new Set(['id', 'name', 'nodeType', 'isFolder', 'isFile', 'createdAt', 'createdByUser', 'modifiedAt', 'modifiedByUser', 'parentId', 'aspectNames', 'content', 'properties', 'archivedAt', 'archivedByUser', 'search', ...NODE_INCLUDES]);

/** What a request asks of each entry: its `include` and `fields` query values (or a search body's lists). */
export interface EntryView {
  include: ReadonlySet<string>;
  fields: readonly string[] | undefined;
}

/** Reads `include` and `fields` (comma-separated, or lists); a RepositoryError(400) names a value that is not honoured. */
export function entryView(include: string | readonly string[] | null | undefined, fields: string | readonly string[] | null | undefined): EntryView {
  const list = (value: string | readonly string[] | null | undefined) => (typeof value === 'string' ? value.split(',') : (value ?? [])).map((part) => part.trim()).filter((part) => part !== '');
  const includes = list(include);
  const unknownInclude = includes.filter((name) => !(NODE_INCLUDES as readonly string[]).includes(name));
  if (unknownInclude.length > 0) throw new RepositoryError(400, `Invalid include "${unknownInclude.join(',')}": this repository answers ${NODE_INCLUDES.join(', ')}`);
  const named = list(fields);
  const unknownField = named.filter((name) => !ENTRY_MEMBERS.has(name));
  if (unknownField.length > 0) throw new RepositoryError(400, `Invalid fields "${unknownField.join(',')}": an entry has ${[...ENTRY_MEMBERS].join(', ')}`);
  return { include: new Set(includes), fields: named.length > 0 ? named : undefined };
}

/** Alfresco's `path`: the folders from Company Home down to the node's parent that the caller may read; isComplete false when one is hidden. */
export function pathMember(sqlite: DatabaseSync, node: NodeRow, readable: ReadCheck): Record<string, unknown> {
  const chain: NodeRow[] = [];
  for (let at = node.parent_id === null ? undefined : getNode(sqlite, node.parent_id); at; at = at.parent_id === null ? undefined : getNode(sqlite, at.parent_id)) chain.unshift(at);
  const hidden = chain.findLastIndex((folder) => !readable(folder));
  const shown = chain.slice(hidden + 1);
  const element = (folder: NodeRow) => ({ id: folder.id, name: folder.name, nodeType: folder.node_type, aspectNames: ['cm:auditable'] });
  return { name: `/${shown.map((folder) => folder.name).join('/')}`, isComplete: hidden === -1, elements: shown.map(element) };
}

/** A node's entry with what `view` asks for, as `who` sees it. */
export function entryFor(deps: ContentDeps, node: NodeRow, who: Accessor, view: EntryView, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const sqlite = deps.store.sqlite;
  const entry: Record<string, unknown> = { ...nodeEntry(node, currentVersion(sqlite, node)), ...extra };
  const include = view.include;
  if (include.has('allowableOperations')) entry['allowableOperations'] = allowableOperations(permissionsOn(sqlite, deps.policy, node, who), node, systemFolderProblem(sqlite, node) === undefined);
  if (include.has('permissions')) entry['permissions'] = permissionsMember(sqlite, deps.policy, node);
  if (include.has('path')) entry['path'] = pathMember(sqlite, node, readableBy(sqlite, deps.policy, who));
  // This repository keeps no links, locks or favourites: these are the facts, not placeholders.
  if (include.has('isLink')) entry['isLink'] = false;
  if (include.has('isLocked')) entry['isLocked'] = false;
  if (include.has('isFavorite')) entry['isFavorite'] = false;
  if (include.has('association') && node.parent_id !== null) entry['association'] = { assocType: 'cm:contains', isPrimary: true };
  if (!view.fields) return entry;
  const keep = new Set([...view.fields, ...include, 'search']);
  return Object.fromEntries(Object.entries(entry).filter(([name]) => keep.has(name)));
}
