// The repository's node operations on node:sqlite: resolve, list, create (with relativePath,
// autoRename and overwrite), metadata update, new content versions and revert. Each change
// writes its state rows, its search-index row and one content_events evidence row in one
// transaction. Content bytes are already on disk (blob-store.ts) when a version is recorded.

import { statement } from '../kernel/index.ts';
import { randomUUID } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import type { Store, Transaction } from '../kernel/index.ts';
import { CONTENT_EVENTS, ROOT_NODE_ID } from './database.ts';
import { userJson } from './node-entry.ts';
import type { NodeRow, UserRef, VersionRow } from './node-entry.ts';
import { indexNode, reindexBody, reindexNameAndMetadata } from './search-index.ts';

export class RepositoryError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'RepositoryError';
    this.status = status;
  }
}

export const USER_HOMES = 'User Homes';

export interface NewContent {
  sha256: string;
  size: number;
  mimeType: string;
  /** Text to index for search ('' for non-text content). */
  text: string;
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
  return statement(sqlite, 'SELECT * FROM nodes WHERE id = ?').get(id) as NodeRow | undefined;
}

export function requireNode(sqlite: DatabaseSync, id: string): NodeRow {
  const node = getNode(sqlite, id);
  if (!node) throw new RepositoryError(404, `The entity with id: "${id}" was not found`);
  return node;
}

export function currentVersion(sqlite: DatabaseSync, node: NodeRow): VersionRow | undefined {
  if (node.version_label === null) return undefined;
  return statement(sqlite, 'SELECT * FROM versions WHERE node_id = ? AND label = ?').get(node.id, node.version_label) as VersionRow | undefined;
}

export function listVersions(sqlite: DatabaseSync, nodeId: string): VersionRow[] {
  return statement(sqlite, 'SELECT * FROM versions WHERE node_id = ? ORDER BY major DESC, minor DESC').all(nodeId) as unknown as VersionRow[];
}

export function getVersion(sqlite: DatabaseSync, nodeId: string, label: string): VersionRow {
  const version = statement(sqlite, 'SELECT * FROM versions WHERE node_id = ? AND label = ?').get(nodeId, label) as VersionRow | undefined;
  if (!version) throw new RepositoryError(404, `The entity with id: "${label}" was not found for node "${nodeId}"`);
  return version;
}

export function listChildren(sqlite: DatabaseSync, parentId: string, paging: { skipCount: number; maxItems: number }): { rows: NodeRow[]; total: number } {
  const total = Number(statement(sqlite, 'SELECT count(*) AS n FROM nodes WHERE parent_id = ?').get(parentId)?.['n']);
  const rows = statement(sqlite, 'SELECT * FROM nodes WHERE parent_id = ? ORDER BY is_folder DESC, name COLLATE NOCASE, id LIMIT ? OFFSET ?')
    .all(parentId, paging.maxItems, paging.skipCount) as unknown as NodeRow[];
  return { rows, total };
}

/** Resolves the aliases -root- and -my- (the user's home folder, created on first use); other ids as they are. */
export async function resolveNodeId(store: Store, id: string, user: UserRef): Promise<string> {
  if (id === '-root-') return ROOT_NODE_ID;
  if (id !== '-my-') return id;
  return store.write((sqlite, tx) => {
    const homes = ensureFolder(sqlite, tx, { parentId: ROOT_NODE_ID, name: USER_HOMES, user });
    return ensureFolder(sqlite, tx, { parentId: homes, name: user.id, user });
  });
}

/** Walks (creating) the folders of `relativePath` under `parentId`; the last folder's id. */
export function ensurePath(sqlite: DatabaseSync, tx: Transaction, options: { parentId: string; relativePath: string; user: UserRef }): string {
  let parent = options.parentId;
  for (const segment of options.relativePath.split('/').filter((s) => s !== '')) {
    const problem = nameProblem(segment);
    if (problem) throw new RepositoryError(400, `Invalid relativePath "${options.relativePath}": ${problem}`);
    parent = ensureFolder(sqlite, tx, { parentId: parent, name: segment, user: options.user });
  }
  return parent;
}

/** The node `relativePath` names below `nodeId`, without creating anything (Alfresco's relativePath query); 404 when none. */
export function findPath(sqlite: DatabaseSync, nodeId: string, relativePath: string): string {
  let id = requireNode(sqlite, nodeId).id;
  for (const segment of relativePath.split('/').filter((s) => s !== '')) {
    const problem = nameProblem(segment);
    if (problem) throw new RepositoryError(400, `Invalid relativePath "${relativePath}": ${problem}`);
    const child = statement(sqlite, 'SELECT id FROM nodes WHERE parent_id = ? AND name = ?').get(id, segment);
    if (!child) throw new RepositoryError(404, `The relativePath "${relativePath}" names no node below "${nodeId}"`);
    id = String(child['id']);
  }
  return id;
}

function ensureFolder(sqlite: DatabaseSync, tx: Transaction, options: { parentId: string; name: string; user: UserRef }): string {
  const existing = statement(sqlite, 'SELECT id, is_folder FROM nodes WHERE parent_id = ? AND name = ?').get(options.parentId, options.name);
  if (existing) {
    if (existing['is_folder'] !== 1) throw new RepositoryError(409, `Cannot create folder "${options.name}": a file of that name exists`);
    return String(existing['id']);
  }
  return insertNode(sqlite, tx, { ...options, folder: true, properties: {} });
}

export function requireFolder(sqlite: DatabaseSync, id: string): NodeRow {
  const node = requireNode(sqlite, id);
  if (node.is_folder !== 1) throw new RepositoryError(400, `Node "${id}" is not a folder: only folders have children`);
  return node;
}

function insertNode(sqlite: DatabaseSync, tx: Transaction, options: { parentId: string; name: string; folder: boolean; user: UserRef; properties: Record<string, string> }): string {
  requireFolder(sqlite, options.parentId);
  const id = randomUUID();
  const at = new Date().toISOString();
  const by = userJson(options.user);
  statement(sqlite, 'INSERT INTO nodes (id, parent_id, name, node_type, is_folder, created_at, created_by, modified_at, modified_by, properties) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
    .run(id, options.parentId, options.name, options.folder ? 'cm:folder' : 'cm:content', options.folder ? 1 : 0, at, by, at, by, JSON.stringify(options.properties));
  indexNode(sqlite, { nodeId: id, name: options.name, metadata: metadataText(options.properties), body: '' });
  tx.append(CONTENT_EVENTS, { node_id: id, action: 'created', payload: { actor: options.user.id, parent_id: options.parentId, name: options.name, node_type: options.folder ? 'cm:folder' : 'cm:content' } });
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
  user: UserRef;
}

/** Creates a file node (or a new version of it with overwrite); returns its id and whether it was created. */
export function createFile(sqlite: DatabaseSync, tx: Transaction, options: CreateFileOptions): { id: string; created: boolean } {
  const parentId = options.relativePath ? ensurePath(sqlite, tx, { parentId: options.parentId, relativePath: options.relativePath, user: options.user }) : options.parentId;
  requireFolder(sqlite, parentId);
  let name = options.name;
  const clash = statement(sqlite, 'SELECT id, is_folder FROM nodes WHERE parent_id = ? AND name = ?').get(parentId, name);
  if (clash) {
    if (options.overwrite && clash['is_folder'] === 0) {
      const id = String(clash['id']);
      addVersion(sqlite, tx, { nodeId: id, content: options.content, version: options.version, user: options.user, action: 'content-updated' });
      return { id, created: false };
    }
    if (!options.autoRename) throw new RepositoryError(409, `Duplicate child name not allowed: "${name}"`);
    name = freeName(sqlite, parentId, name);
  }
  const id = insertNode(sqlite, tx, { parentId, name, folder: false, user: options.user, properties: options.properties });
  addVersion(sqlite, tx, { nodeId: id, content: options.content, version: { ...options.version, initial: true }, user: options.user, action: 'content-created' });
  return { id, created: true };
}

/** Creates a folder (POST children with a JSON body). */
export function createFolder(sqlite: DatabaseSync, tx: Transaction, options: { parentId: string; name: string; relativePath: string | undefined; autoRename: boolean; properties: Record<string, string>; user: UserRef }): string {
  const parentId = options.relativePath ? ensurePath(sqlite, tx, { parentId: options.parentId, relativePath: options.relativePath, user: options.user }) : options.parentId;
  let name = options.name;
  if (statement(sqlite, 'SELECT 1 FROM nodes WHERE parent_id = ? AND name = ?').get(parentId, name)) {
    if (!options.autoRename) throw new RepositoryError(409, `Duplicate child name not allowed: "${name}"`);
    name = freeName(sqlite, parentId, name);
  }
  return insertNode(sqlite, tx, { parentId, name, folder: true, user: options.user, properties: options.properties });
}

/** Alfresco's autoRename: "report.txt" becomes "report-1.txt", "report-2.txt", ... */
function freeName(sqlite: DatabaseSync, parentId: string, name: string): string {
  const dot = name.lastIndexOf('.');
  const [stem, extension] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  const taken = statement(sqlite, 'SELECT 1 FROM nodes WHERE parent_id = ? AND name = ?');
  for (let n = 1; ; n++) {
    const candidate = `${stem}-${n}${extension}`;
    if (!taken.get(parentId, candidate)) return candidate;
  }
}

/** Records a new version of a file node's content and makes it current. */
export function addVersion(
  sqlite: DatabaseSync,
  tx: Transaction,
  options: { nodeId: string; content: NewContent; version: VersionOptions & { initial?: boolean }; user: UserRef; action: string; revertedFrom?: string },
): VersionRow {
  const node = requireNode(sqlite, options.nodeId);
  if (node.is_folder === 1) throw new RepositoryError(400, `Node "${node.id}" is a folder: folders have no content`);
  const current = currentVersion(sqlite, node);
  const [major, minor] = nextLabel(current, options.version);
  const label = `${major}.${minor}`;
  const at = new Date().toISOString();
  const by = userJson(options.user);
  const { sha256, size, mimeType } = options.content;
  statement(sqlite, 'INSERT INTO versions (node_id, label, major, minor, name, sha256, size, mime_type, comment, created_at, created_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
    .run(node.id, label, major, minor, node.name, sha256, size, mimeType, options.version.comment ?? null, at, by);
  statement(sqlite, 'UPDATE nodes SET version_label = ?, modified_at = ?, modified_by = ? WHERE id = ?').run(label, at, by, node.id);
  reindexBody(sqlite, node.id, options.content.text);
  tx.append(CONTENT_EVENTS, {
    node_id: node.id,
    action: options.action,
    payload: { actor: options.user.id, version: label, sha256, size, mime_type: mimeType, comment: options.version.comment ?? null, ...(options.revertedFrom && { reverted_from: options.revertedFrom }) },
  });
  return getVersion(sqlite, node.id, label);
}

function nextLabel(current: VersionRow | undefined, options: VersionOptions & { initial?: boolean }): [number, number] {
  if (!current) return options.majorVersion ? [1, 0] : [0, 1];
  return options.majorVersion ? [current.major + 1, 0] : [current.major, current.minor + 1];
}

/** PUT nodes/{id}: a new name and/or properties (a null value removes a property). */
export function updateMetadata(sqlite: DatabaseSync, tx: Transaction, options: { nodeId: string; name: string | undefined; properties: Record<string, string | null> | undefined; user: UserRef }): void {
  const node = requireNode(sqlite, options.nodeId);
  if (node.parent_id === null && options.name !== undefined) throw new RepositoryError(403, 'The root folder cannot be renamed');
  const name = options.name ?? node.name;
  if (name !== node.name && statement(sqlite, 'SELECT 1 FROM nodes WHERE parent_id = ? AND name = ?').get(node.parent_id, name)) {
    throw new RepositoryError(409, `Duplicate child name not allowed: "${name}"`);
  }
  const properties = JSON.parse(node.properties) as Record<string, string>;
  for (const [key, value] of Object.entries(options.properties ?? {})) {
    if (value === null) delete properties[key];
    else properties[key] = value;
  }
  const at = new Date().toISOString();
  statement(sqlite, 'UPDATE nodes SET name = ?, properties = ?, modified_at = ?, modified_by = ? WHERE id = ?').run(name, JSON.stringify(properties), at, userJson(options.user), node.id);
  reindexNameAndMetadata(sqlite, node.id, name, metadataText(properties));
  tx.append(CONTENT_EVENTS, { node_id: node.id, action: 'updated', payload: { actor: options.user.id, name, properties: options.properties ?? {} } });
}

function metadataText(properties: Record<string, string>): string {
  return Object.values(properties).join('\n');
}
