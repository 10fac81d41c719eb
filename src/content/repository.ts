// The repository's node operations on node:sqlite: resolve, list, create (with relativePath,
// autoRename and overwrite), metadata update, new content versions and revert. Each change
// writes its state rows, its search-index row and one content_events evidence row in one
// transaction. Content bytes are already on disk (blob-store.ts) when a version is recorded.

import { statement, timeOrderedUuid } from '../kernel/index.ts';
import type { JsonValue } from '../kernel/index.ts';
import { existsSync } from 'node:fs';
import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import type { ReadPool, Store, Transaction } from '../kernel/index.ts';
import { boundedCount, boundedTotal } from './bounded-total.ts';
import type { BoundedTotal } from './bounded-total.ts';
import { CONTENT_EVENTS, ROOT_NODE_ID } from './database.ts';
import { userJson } from './node-entry.ts';
import type { NodeRow, UserRef, VersionRow } from './node-entry.ts';
import { EVERYONE, grant } from './permissions.ts';
import { nodeAndGrants, nodeRows } from './event-state.ts';
import type { Permission } from './permissions.ts';
import { RepositoryError } from './repository-error.ts';
import { indexNode, reindexBody, reindexNameAndMetadata } from './search-index.ts';

export { RepositoryError };

export const USER_HOMES = 'User Homes';
export const SHARED = 'Shared';

/**
 * Who acts: the user the evidence names, and the permission check their request passes through
 * (403 when refused). The repository itself (making home folders) acts as SYSTEM_ACTOR.
 */
export interface Actor extends UserRef {
  groups: readonly string[];
  require(sqlite: DatabaseSync, node: NodeRow, permission: Permission): void;
}

/** Alfresco's cm:name is unique in a folder case-insensitively, on the NFC form. */
export function nameKey(name: string): string {
  return name.normalize('NFC').toLowerCase();
}

export interface NewContent {
  sha256: string;
  size: number;
  mimeType: string;
  /** Text to index for search ('' for non-text content). */
  text: string;
  /** The blob's file: checked inside the unit that names it, after which no purge can remove it. */
  blobPath: string;
}

export interface VersionOptions {
  majorVersion: boolean;
  comment: string | undefined;
}

/** Checks a node name; a message when it cannot be one. */
export function nameProblem(name: string): string | undefined {
  if (name.trim() === '' || name === '.' || name === '..') return `Invalid node name "${name}": it must not be empty, "." or ".."`;
  if (name.length > 255) return `Invalid node name: ${name.length} characters, at most 255`;
  // eslint-disable-next-line no-control-regex
  if (/[/\\\u0000-\u001f\u007f]/.test(name)) return `Invalid node name "${name}": "/", "\\" and control characters are not allowed`;
  return undefined;
}

export function getNode(sqlite: DatabaseSync, id: string): NodeRow | undefined {
  // An archived node (in the trashcan) is gone for every route but the trashcan's.
  return statement(sqlite, 'SELECT * FROM nodes WHERE id = ? AND archived_at IS NULL').get(id) as NodeRow | undefined;
}

export function requireNode(sqlite: DatabaseSync, id: string): NodeRow {
  const node = getNode(sqlite, id);
  if (!node) throw new RepositoryError(404, `The entity with id: "${id}" was not found`);
  return node;
}

/** A node the actor may use with `permission` (404 when there is none, 403 when refused). */
export function nodeFor(sqlite: DatabaseSync, id: string, actor: Actor, permission: Permission): NodeRow {
  const node = requireNode(sqlite, id);
  actor.require(sqlite, node, permission);
  return node;
}

export function currentVersion(sqlite: DatabaseSync, node: NodeRow): VersionRow | undefined {
  if (node.version_label === null) return undefined;
  return statement(sqlite, 'SELECT * FROM versions WHERE node_id = ? AND label = ?').get(node.id, node.version_label) as VersionRow | undefined;
}

export function listVersions(sqlite: DatabaseSync, nodeId: string): VersionRow[] {
  return statement(sqlite, 'SELECT * FROM versions WHERE node_id = ? ORDER BY major DESC, minor DESC').all(nodeId) as unknown as VersionRow[];
}

/** One page of a file's versions, newest first, from the (node_id, major, minor) index, with a bounded total (bounded-total.ts). */
export function listVersionPage(sqlite: DatabaseSync, nodeId: string, paging: { skipCount: number; maxItems: number }): { rows: VersionRow[] } & BoundedTotal {
  const { total, exact } = boundedTotal(sqlite, 'FROM versions WHERE node_id = ?', [nodeId], paging);
  const rows = statement(sqlite, 'SELECT * FROM versions WHERE node_id = ? ORDER BY major DESC, minor DESC LIMIT ? OFFSET ?').all(nodeId, paging.maxItems, paging.skipCount) as unknown as VersionRow[];
  return { rows, total, exact };
}

export function getVersion(sqlite: DatabaseSync, nodeId: string, label: string): VersionRow {
  const version = statement(sqlite, 'SELECT * FROM versions WHERE node_id = ? AND label = ?').get(nodeId, label) as VersionRow | undefined;
  if (!version) throw new RepositoryError(404, `The entity with id: "${label}" was not found for node "${nodeId}"`);
  return version;
}

/** What a listing shows: children the viewer may read (an SQL condition and its arguments), an order and a filter from fixed tables. */
export interface ChildrenQuery {
  skipCount: number;
  maxItems: number;
  /** The viewer's authorities and id: a child is listed when it inherits from the (readable) folder, is theirs, or grants one of them a role. */
  viewer?: { id: string; authorities: readonly string[]; inheritsRead: boolean };
  /** SQL conditions over `n` built by the caller from fixed text, with their arguments. */
  where?: { sql: string; args: (string | number)[] };
  /** SQL ORDER BY terms over `n`, from a fixed table. */
  orderBy?: string;
}

/** The two queries of a listing: its bounded count and its page. */
function planChildren(parentId: string, query: ChildrenQuery): { count: ReturnType<typeof boundedCount>; page: { sql: string; params: SQLInputValue[] } } {
  const conditions = ['n.parent_id = ?', 'n.archived_at IS NULL'];
  const args: (string | number)[] = [parentId];
  if (query.viewer) {
    const { id, authorities, inheritsRead } = query.viewer;
    conditions.push(`(${inheritsRead ? 'n.inherit_permissions = 1 OR ' : ''}n.owner = ? OR EXISTS (SELECT 1 FROM permissions p WHERE p.node_id = n.id AND p.authority IN (${authorities.map(() => '?').join(', ')})))`);
    args.push(id, ...authorities);
  }
  if (query.where) {
    conditions.push(query.where.sql);
    args.push(...query.where.args);
  }
  const where = conditions.join(' AND ');
  // The id breaks ties in the direction of the last term, so an index on (parent_id, <column>, id) serves the order both ways.
  const order = query.orderBy ?? 'n.is_folder DESC, n.name COLLATE NOCASE ASC';
  return {
    count: boundedCount(`FROM nodes n WHERE ${where}`, args, query),
    page: { sql: `SELECT n.* FROM nodes n WHERE ${where} ORDER BY ${order}, n.id ${order.endsWith('DESC') ? 'DESC' : 'ASC'} LIMIT ? OFFSET ?`, params: [...args, query.maxItems, query.skipCount] },
  };
}

export function listChildren(sqlite: DatabaseSync, parentId: string, query: ChildrenQuery): { rows: NodeRow[] } & BoundedTotal {
  const { count, page } = planChildren(parentId, query);
  const total = Number(statement(sqlite, count.sql).get(...count.params)?.['n']);
  const rows = statement(sqlite, page.sql).all(...page.params) as unknown as NodeRow[];
  return { rows, total, exact: total < count.cap };
}

/** listChildren() with both queries on the service's read pool, off the event loop (issue 24). */
export async function listChildrenOnPool(reads: ReadPool, parentId: string, query: ChildrenQuery): Promise<{ rows: NodeRow[] } & BoundedTotal> {
  const { count, page } = planChildren(parentId, query);
  const [counted, paged] = await Promise.all([reads.query(count.sql, count.params), reads.query(page.sql, page.params)]);
  const total = Number(counted.rows[0]?.['n']);
  return { rows: paged.rows as unknown as NodeRow[], total, exact: total < count.cap };
}

/** The id of a live child of `parentId` whose name is `name` (case-insensitively, NFC). */
export function childNamed(sqlite: DatabaseSync, parentId: string, name: string): { id: string; is_folder: number } | undefined {
  return statement(sqlite, 'SELECT id, is_folder FROM nodes WHERE parent_id = ? AND name_key = ? AND archived_at IS NULL').get(parentId, nameKey(name)) as { id: string; is_folder: number } | undefined;
}

/** Resolves the aliases -root- (Company Home), -my- (the user's home, theirs alone, made on first use) and -shared- (Shared Files); other ids as they are. */
export async function resolveNodeId(store: Store, id: string, user: UserRef): Promise<string> {
  if (id === '-root-') return ROOT_NODE_ID;
  if (id !== '-my-' && id !== '-shared-') return id;
  const known = id === '-my-' ? homeFolderId(store.sqlite, user.id) : childNamed(store.sqlite, ROOT_NODE_ID, SHARED)?.id;
  if (known !== undefined) return known;
  return store.write((sqlite, tx) => (id === '-my-' ? ensureHome(sqlite, tx, user) : ensureShared(sqlite, tx)));
}

function homeFolderId(sqlite: DatabaseSync, subject: string): string | undefined {
  const homes = childNamed(sqlite, ROOT_NODE_ID, USER_HOMES);
  return homes === undefined ? undefined : exactHome(sqlite, homes.id, subject);
}

/**
 * The home named exactly `subject`. Subjects are case-sensitive and names are not: a home whose
 * name differs only in case is another user's, and is never handed out (409).
 */
function exactHome(sqlite: DatabaseSync, homesId: string, subject: string): string | undefined {
  const row = statement(sqlite, 'SELECT id, name FROM nodes WHERE parent_id = ? AND name_key = ? AND archived_at IS NULL').get(homesId, nameKey(subject));
  if (row === undefined) return undefined;
  if (row['name'] !== subject) throw new RepositoryError(409, `No home folder for subject "${subject}": the home "${String(row['name'])}" of another subject differs only in case (ask the operator)`);
  return String(row['id']);
}

/** User Homes is readable by everyone and writable by nobody; each home grants its user Coordinator and inherits nothing. */
function ensureHome(sqlite: DatabaseSync, tx: Transaction, user: UserRef): string {
  const homes = ensureFolder(sqlite, tx, { parentId: ROOT_NODE_ID, name: USER_HOMES, user: SYSTEM_ACTOR, isolated: [[EVERYONE, 'Consumer']] });
  return exactHome(sqlite, homes, user.id) ?? ensureFolder(sqlite, tx, { parentId: homes, name: user.id, user: SYSTEM_ACTOR, isolated: [[user.id, 'Coordinator']] });
}

/** Shared Files, as Alfresco makes it: under Company Home, where every user may add content. */
function ensureShared(sqlite: DatabaseSync, tx: Transaction): string {
  const existing = childNamed(sqlite, ROOT_NODE_ID, SHARED);
  const id = ensureFolder(sqlite, tx, { parentId: ROOT_NODE_ID, name: SHARED, user: SYSTEM_ACTOR });
  grant(sqlite, id, EVERYONE, 'Contributor');
  if (existing === undefined) recordSystemPermissions(sqlite, tx, id);
  return id;
}

/** The grants the repository gives its own folders, as evidence (a restore derives them). */
function recordSystemPermissions(sqlite: DatabaseSync, tx: Transaction, id: string): void {
  const state = nodeAndGrants(sqlite, id);
  const row = state.nodes![0]!;
  tx.append(CONTENT_EVENTS, {
    node_id: id,
    action: 'permissions-updated',
    payload: { actor: SYSTEM_ACTOR.id, isInheritanceEnabled: row['inherit_permissions'] === 1, locallySet: state.grants![id]!.map(([authorityId, name]) => ({ authorityId, name })), state: state as JsonValue },
  });
}

/** Folders the repository keeps for itself: Company Home, User Homes, each home, Shared. */
export function systemFolderProblem(sqlite: DatabaseSync, node: NodeRow): string | undefined {
  if (node.parent_id === null) return 'Company Home is the repository\'s own folder';
  const homes = childNamed(sqlite, ROOT_NODE_ID, USER_HOMES);
  if (homes && (node.id === homes.id || node.parent_id === homes.id)) return `"${node.name}" is a home folder or User Homes: the repository keeps them as they are`;
  if (node.parent_id === ROOT_NODE_ID && node.id === childNamed(sqlite, ROOT_NODE_ID, SHARED)?.id) return 'Shared is the repository\'s own folder';
  return undefined;
}

/** Makes User Homes and Shared at start, so no user can take their names first. */
export async function ensureSystemFolders(store: Store): Promise<void> {
  if (childNamed(store.sqlite, ROOT_NODE_ID, USER_HOMES) && childNamed(store.sqlite, ROOT_NODE_ID, SHARED)) return;
  await store.write((sqlite, tx) => {
    ensureFolder(sqlite, tx, { parentId: ROOT_NODE_ID, name: USER_HOMES, user: SYSTEM_ACTOR, isolated: [[EVERYONE, 'Consumer']] });
    ensureShared(sqlite, tx);
  });
}

/** The repository acting for itself: it makes system folders; no permission applies. */
export const SYSTEM_ACTOR: Actor = { id: 'System', displayName: 'System', groups: [], require: () => undefined };

/** Walks (creating) the folders of `relativePath` under `parentId`; the last folder's id. */
export function ensurePath(sqlite: DatabaseSync, tx: Transaction, options: { parentId: string; relativePath: string; user: Actor }): string {
  let parent = options.parentId;
  for (const segment of options.relativePath.split('/').filter((s) => s !== '')) {
    const problem = nameProblem(segment);
    if (problem) throw new RepositoryError(400, `Invalid relativePath "${options.relativePath}": ${problem}`);
    parent = ensureFolder(sqlite, tx, { parentId: parent, name: segment, user: options.user });
  }
  return parent;
}

/** The node `relativePath` names below `nodeId`, without creating anything (Alfresco's relativePath query); 404 when none, 403 at a folder the actor may not read. */
export function findPath(sqlite: DatabaseSync, nodeId: string, relativePath: string, actor: Actor): string {
  let id = requireNode(sqlite, nodeId).id;
  for (const segment of relativePath.split('/').filter((s) => s !== '')) {
    const problem = nameProblem(segment);
    if (problem) throw new RepositoryError(400, `Invalid relativePath "${relativePath}": ${problem}`);
    // Only a folder the caller reads tells whether it holds a name.
    actor.require(sqlite, requireNode(sqlite, id), 'read');
    const child = childNamed(sqlite, id, segment);
    if (!child) throw new RepositoryError(404, `The relativePath "${relativePath}" names no node below "${nodeId}"`);
    id = child.id;
  }
  return id;
}

function ensureFolder(sqlite: DatabaseSync, tx: Transaction, options: { parentId: string; name: string; user: Actor; isolated?: [string, 'Consumer' | 'Coordinator'][] }): string {
  const existing = childNamed(sqlite, options.parentId, options.name);
  if (existing) {
    if (existing.is_folder !== 1) throw new RepositoryError(409, `Cannot create folder "${options.name}": a file of that name exists`);
    return existing.id;
  }
  const id = insertNode(sqlite, tx, { ...options, folder: true, properties: {} });
  if (options.isolated) {
    statement(sqlite, 'UPDATE nodes SET inherit_permissions = 0 WHERE id = ?').run(id);
    for (const [authority, role] of options.isolated) grant(sqlite, id, authority, role);
    recordSystemPermissions(sqlite, tx, id);
  }
  return id;
}

export function requireFolder(sqlite: DatabaseSync, id: string): NodeRow {
  const node = requireNode(sqlite, id);
  if (node.is_folder !== 1) throw new RepositoryError(400, `Node "${id}" is not a folder: only folders have children`);
  return node;
}

function insertNode(sqlite: DatabaseSync, tx: Transaction, options: { parentId: string; name: string; folder: boolean; user: Actor; properties: Record<string, string> }): string {
  const parent = requireFolder(sqlite, options.parentId);
  options.user.require(sqlite, parent, 'create');
  // Time-ordered (UUID version 7): the newest nodes sit together in every index keyed by id, so
  // a search's window of the newest candidates joins them page by page, not a page each.
  const id = timeOrderedUuid();
  const at = new Date().toISOString();
  const by = userJson(options.user);
  // What the repository makes for itself has no owner: no user, whatever their subject, owns it.
  const owner = options.user === SYSTEM_ACTOR ? null : options.user.id;
  statement(sqlite, 'INSERT INTO nodes (id, parent_id, name, name_key, node_type, is_folder, created_at, created_by, modified_at, modified_by, properties, owner) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
    .run(id, options.parentId, options.name, nameKey(options.name), options.folder ? 'cm:folder' : 'cm:content', options.folder ? 1 : 0, at, by, at, by, JSON.stringify(options.properties), owner);
  indexNode(sqlite, { nodeId: id, name: options.name, metadata: metadataText(options.properties), body: '' });
  tx.append(CONTENT_EVENTS, { node_id: id, action: 'created', payload: { actor: options.user.id, parent_id: options.parentId, name: options.name, node_type: options.folder ? 'cm:folder' : 'cm:content', state: { nodes: nodeRows(sqlite, [id]) } } });
  return id;
}

export interface CreateFileOptions {
  parentId: string;
  name: string;
  relativePath: string | undefined;
  autoRename: boolean;
  overwrite: boolean;
  properties: Record<string, string>;
  content: NewContent;
  version: VersionOptions;
  user: Actor;
}

/** Creates a file node (or a new version of it with overwrite); returns its id and whether it was created. */
export function createFile(sqlite: DatabaseSync, tx: Transaction, options: CreateFileOptions): { id: string; created: boolean } {
  const parentId = options.relativePath ? ensurePath(sqlite, tx, { parentId: options.parentId, relativePath: options.relativePath, user: options.user }) : options.parentId;
  requireFolder(sqlite, parentId);
  let name = options.name;
  const clash = childNamed(sqlite, parentId, name);
  if (clash) {
    if (options.overwrite && clash.is_folder === 0) {
      addVersion(sqlite, tx, { nodeId: clash.id, content: options.content, version: options.version, user: options.user, action: 'content-updated' });
      return { id: clash.id, created: false };
    }
    if (!options.autoRename) throw new RepositoryError(409, `Duplicate child name not allowed: "${name}"`);
    name = freeName(sqlite, parentId, name);
  }
  const id = insertNode(sqlite, tx, { parentId, name, folder: false, user: options.user, properties: options.properties });
  addVersion(sqlite, tx, { nodeId: id, content: options.content, version: { ...options.version, initial: true }, user: options.user, action: 'content-created' });
  return { id, created: true };
}

/** Creates a folder (POST children with a JSON body). */
export function createFolder(sqlite: DatabaseSync, tx: Transaction, options: { parentId: string; name: string; relativePath: string | undefined; autoRename: boolean; properties: Record<string, string>; user: Actor }): string {
  const parentId = options.relativePath ? ensurePath(sqlite, tx, { parentId: options.parentId, relativePath: options.relativePath, user: options.user }) : options.parentId;
  let name = options.name;
  if (childNamed(sqlite, parentId, name)) {
    if (!options.autoRename) throw new RepositoryError(409, `Duplicate child name not allowed: "${name}"`);
    name = freeName(sqlite, parentId, name);
  }
  return insertNode(sqlite, tx, { parentId, name, folder: true, user: options.user, properties: options.properties });
}

/** Alfresco's autoRename: "report.txt" becomes "report-1.txt", "report-2.txt", ... */
function freeName(sqlite: DatabaseSync, parentId: string, name: string): string {
  const dot = name.lastIndexOf('.');
  const [stem, extension] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  for (let n = 1; ; n++) {
    const candidate = `${stem}-${n}${extension}`;
    if (!childNamed(sqlite, parentId, candidate)) return candidate;
  }
}

/** Records a new version of a file node's content and makes it current (the actor needs update, except on a file it just created). */
export function addVersion(
  sqlite: DatabaseSync,
  tx: Transaction,
  options: { nodeId: string; content: NewContent; version: VersionOptions & { initial?: boolean }; user: Actor; action: string; revertedFrom?: string },
): VersionRow {
  const node = requireNode(sqlite, options.nodeId);
  if (node.is_folder === 1) throw new RepositoryError(400, `Node "${node.id}" is a folder: folders have no content`);
  if (!options.version.initial) options.user.require(sqlite, node, 'update');
  const current = currentVersion(sqlite, node);
  const [major, minor] = nextLabel(current, options.version);
  const label = `${major}.${minor}`;
  const at = new Date().toISOString();
  const by = userJson(options.user);
  const { sha256, size, mimeType } = options.content;
  // A purge that freed these same bytes a moment ago moved the file aside in its own unit.
  if (!existsSync(options.content.blobPath)) throw new RepositoryError(409, 'The content was removed by a purge at the same moment: send it again');
  statement(sqlite, 'INSERT INTO versions (node_id, label, major, minor, name, sha256, size, mime_type, comment, created_at, created_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
    .run(node.id, label, major, minor, node.name, sha256, size, mimeType, options.version.comment ?? null, at, by);
  statement(sqlite, 'UPDATE nodes SET version_label = ?, modified_at = ?, modified_by = ? WHERE id = ?').run(label, at, by, node.id);
  reindexBody(sqlite, node.id, options.content.text);
  const version = getVersion(sqlite, node.id, label);
  tx.append(CONTENT_EVENTS, {
    node_id: node.id,
    action: options.action,
    payload: {
      actor: options.user.id, version: label, sha256, size, mime_type: mimeType, comment: options.version.comment ?? null, ...(options.revertedFrom && { reverted_from: options.revertedFrom }),
      state: { nodes: nodeRows(sqlite, [node.id]), version: version as unknown as Record<string, JsonValue> },
    },
  });
  return version;
}

function nextLabel(current: VersionRow | undefined, options: VersionOptions & { initial?: boolean }): [number, number] {
  if (!current) return options.majorVersion ? [1, 0] : [0, 1];
  return options.majorVersion ? [current.major + 1, 0] : [current.major, current.minor + 1];
}

/** PUT nodes/{id}: a new name and/or properties (a null value removes a property). */
export function updateMetadata(sqlite: DatabaseSync, tx: Transaction, options: { nodeId: string; name: string | undefined; properties: Record<string, string | null> | undefined; user: Actor }): void {
  const node = requireNode(sqlite, options.nodeId);
  // Permission first: the system-folder refusal names the folder, which only its readers may learn.
  options.user.require(sqlite, node, 'update');
  const system = options.name !== undefined && options.name !== node.name ? systemFolderProblem(sqlite, node) : undefined;
  if (system) throw new RepositoryError(403, `Cannot rename: ${system}`);
  const name = options.name ?? node.name;
  const clash = name === node.name || node.parent_id === null ? undefined : childNamed(sqlite, node.parent_id, name);
  if (clash && clash.id !== node.id) throw new RepositoryError(409, `Duplicate child name not allowed: "${name}"`);
  const properties = JSON.parse(node.properties) as Record<string, string>;
  for (const [key, value] of Object.entries(options.properties ?? {})) {
    if (value === null) delete properties[key];
    else properties[key] = value;
  }
  const at = new Date().toISOString();
  statement(sqlite, 'UPDATE nodes SET name = ?, name_key = ?, properties = ?, modified_at = ?, modified_by = ? WHERE id = ?').run(name, nameKey(name), JSON.stringify(properties), at, userJson(options.user), node.id);
  reindexNameAndMetadata(sqlite, node.id, name, metadataText(properties));
  tx.append(CONTENT_EVENTS, { node_id: node.id, action: 'updated', payload: { actor: options.user.id, name, properties: options.properties ?? {}, state: { nodes: nodeRows(sqlite, [node.id]) } } });
}

export function metadataText(properties: Record<string, string>): string {
  return Object.values(properties).join('\n');
}
