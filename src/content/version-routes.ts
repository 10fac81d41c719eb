// Version routes: list a file's versions, read one, download one, and revert to one (a new
// version with that version's content). Renditions: request (202), list, read, download.

import { statement } from '../kernel/index.ts';
import type { Route } from '../kernel/index.ts';
import { listEnvelope } from './alfresco-shapes.ts';
import { API_BASE, actorOf, alfrescoHandler, contentDisposition, contentReply, FILE_BYTES, jsonBodyReader, pagingOf, queryFlag, requireWriteScope } from './api-support.ts';
import type { ContentDeps } from './api-support.ts';
import { CONTENT_EVENTS } from './database.ts';
import { versionEntry } from './node-entry.ts';
import { RENDITION_IDS, RENDITION_TYPES, indexedText, isRenditionId, renderRendition } from './renditions.ts';
import type { RenditionId } from './renditions.ts';
import type { NodeRow, UserRef, VersionRow } from './node-entry.ts';
import { RepositoryError, addVersion, currentVersion, getVersion, listVersionPage, nodeFor, requireNode, resolveNodeId } from './repository.ts';
import type { Actor, VersionOptions } from './repository.ts';

const PARAMS = {
  nodeId: { description: 'A file node id', example: '-root-' },
  versionId: { description: 'A version label such as 1.0', example: '1.0' },
  renditionId: { description: 'A rendition id: text or doclib', example: 'text' },
};
const REVERT_SCHEMA = { type: 'object', additionalProperties: false, properties: { majorVersion: { type: 'boolean' }, comment: { type: 'string', maxLength: 4096 } } };
// Alfresco: {"id":"doclib"}, {"id":"doclib,pdf"} or [{"id":"doclib"}, ...].
const RENDITION_ID = { type: 'string', pattern: `^\\s*(${RENDITION_IDS.join('|')})\\s*(,\\s*(${RENDITION_IDS.join('|')})\\s*)*$` };
const RENDITION_SCHEMA = {
  oneOf: [
    { type: 'object', additionalProperties: false, required: ['id'], properties: { id: RENDITION_ID } },
    { type: 'array', minItems: 1, maxItems: 8, items: { type: 'object', additionalProperties: false, required: ['id'], properties: { id: RENDITION_ID } } },
  ],
};
const readRevert = jsonBodyReader<{ majorVersion?: boolean; comment?: string }>(REVERT_SCHEMA);
const readRendition = jsonBodyReader<{ id: string } | { id: string }[]>(RENDITION_SCHEMA);

export function versionRoutes(deps: ContentDeps): Route[] {
  const sqlite = deps.store.sqlite;
  // Reading a version or a rendition needs read; a revert checks update where it writes.
  const fileNode = async (nodeId: string, user: Actor) => {
    const node = nodeFor(sqlite, await resolveNodeId(deps.store, nodeId, user), user, 'read');
    if (node.is_folder === 1) throw new RepositoryError(400, `Node "${node.id}" is a folder: folders have no versions or renditions`);
    return node;
  };

  const list = alfrescoHandler(async (context) => {
    const node = await fileNode(context.params['nodeId']!, actorOf(deps, context));
    const paging = pagingOf(context.query.get('skipCount') ?? undefined, context.query.get('maxItems') ?? undefined);
    const { rows, total, exact } = listVersionPage(sqlite, node.id, paging);
    return { status: 200, body: listEnvelope(rows.map(versionEntry), { paging, totalItems: total, totalExact: exact }) };
  });
  const one = alfrescoHandler(async (context) => {
    const node = await fileNode(context.params['nodeId']!, actorOf(deps, context));
    return { status: 200, body: { entry: versionEntry(getVersion(sqlite, node.id, context.params['versionId']!)) } };
  });
  const content = alfrescoHandler(async (context) => {
    const node = await fileNode(context.params['nodeId']!, actorOf(deps, context));
    const version = getVersion(sqlite, node.id, context.params['versionId']!);
    return contentReply(deps, { sha256: version.sha256, size: version.size, mimeType: version.mime_type, name: version.name }, context.query.get('attachment') !== 'false', context);
  });
  const revert = alfrescoHandler(async (context) => {
    const user = actorOf(deps, context);
    const node = await fileNode(context.params['nodeId']!, user);
    const body = context.rawBody && context.rawBody.length > 0 ? readRevert(context) : {};
    const from = getVersion(sqlite, node.id, context.params['versionId']!);
    const version = await revertToVersion(deps, node.id, from, { majorVersion: body.majorVersion ?? false, comment: body.comment }, user);
    return { status: 200, body: { entry: versionEntry(version) } };
  });

  // `node` is the one the handler just read: its version_label is the current version's.
  const renditionEntry = (node: NodeRow, id: RenditionId) => {
    const row = statement(sqlite, 'SELECT version_label FROM renditions WHERE node_id = ? AND rendition_id = ?').get(node.id, id);
    const created = row !== undefined && row['version_label'] === node.version_label;
    return { id, content: { mimeType: RENDITION_TYPES[id], mimeTypeName: RENDITION_TYPES[id] }, status: created ? 'CREATED' : 'NOT_CREATED' };
  };
  const request = alfrescoHandler(async (context) => {
    const user = actorOf(deps, context);
    // A rendition is derived from what the caller may read, but storing it is still a write.
    requireWriteScope(deps, user);
    const node = await fileNode(context.params['nodeId']!, user);
    const body = readRendition(context);
    const version = currentVersion(sqlite, node)!;
    const requested = [...new Set((Array.isArray(body) ? body : [body]).flatMap(({ id }) => id.split(',').map((part) => part.trim())))].filter(isRenditionId);
    const missing = requested.filter((id) => renditionEntry(node, id).status !== 'CREATED');
    if (missing.length === 0) throw new RepositoryError(409, `All requested renditions already exist for version ${version.label}`);
    await storeRenditions(deps, node.id, missing, user);
    return { status: 202, raw: '' };
  });
  const renditions = alfrescoHandler(async (context) => {
    const node = await fileNode(context.params['nodeId']!, actorOf(deps, context));
    const entries = RENDITION_IDS.map((id) => renditionEntry(node, id));
    return { status: 200, body: listEnvelope(entries, { paging: { skipCount: 0, maxItems: 100 }, totalItems: entries.length }) };
  });
  const rendition = alfrescoHandler(async (context) => {
    const node = await fileNode(context.params['nodeId']!, actorOf(deps, context));
    const id = knownRendition(context.params['renditionId']!);
    return { status: 200, body: { entry: renditionEntry(node, id) } };
  });
  const renditionContent = alfrescoHandler(async (context) => {
    const node = await fileNode(context.params['nodeId']!, actorOf(deps, context));
    const id = knownRendition(context.params['renditionId']!);
    // Alfresco's placeholder=true: a rendition not made yet answers with a placeholder instead of 404.
    const placeholder = queryFlag(context, 'placeholder', false);
    const row = statement(sqlite, 'SELECT version_label, mime_type, body FROM renditions WHERE node_id = ? AND rendition_id = ?').get(node.id, id);
    const created = row !== undefined && row['version_label'] === node.version_label;
    if (!created && !placeholder) throw new RepositoryError(404, `Rendition "${id}" of node "${node.id}" is not created for version ${node.version_label}: POST .../renditions first, or ask with placeholder=true`);
    // A rendition is a pure function of the current version (renditions.ts), so rendering it now
    // answers exactly what POST .../renditions would store, without storing it.
    const version = created ? undefined : currentVersion(sqlite, node)!;
    const body = version === undefined ? (row!['body'] as Uint8Array) : await renderRendition(id, node, version, { blobPath: deps.blobs.path(version.sha256), textLimit: deps.config.indexTextBytes });
    const disposition = contentDisposition(`${node.name}.${id === 'text' ? 'txt' : 'svg'}`, queryFlag(context, 'attachment', false));
    return { status: 200, raw: body, contentType: `${RENDITION_TYPES[id]}${id === 'text' ? '; charset=utf-8' : ''}`, headers: { 'content-disposition': disposition, 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox" } };
  });

  const json = { raw: true, maxBytes: 64 * 1024 };
  return [
    { method: 'GET', path: `${API_BASE}/nodes/:nodeId/versions`, auth: 'repository', summary: 'List a file\'s versions, newest first', params: PARAMS, tags: ['versions'], etag: false, handler: list },
    { method: 'GET', path: `${API_BASE}/nodes/:nodeId/versions/:versionId`, auth: 'repository', summary: 'Get one version', params: PARAMS, tags: ['versions'], handler: one },
    { method: 'GET', path: `${API_BASE}/nodes/:nodeId/versions/:versionId/content`, auth: 'repository', summary: 'Get one version\'s content', params: PARAMS, tags: ['versions'], responses: FILE_BYTES, handler: content },
    { method: 'POST', path: `${API_BASE}/nodes/:nodeId/versions/:versionId/revert`, auth: 'repository', summary: 'Revert to a version: a new version with its content (majorVersion, comment)', params: PARAMS, tags: ['versions'], request: { ...json, optional: true, schema: REVERT_SCHEMA }, handler: revert },
    { method: 'POST', path: `${API_BASE}/nodes/:nodeId/renditions`, auth: 'repository', summary: 'Create renditions ({"id":"text"} or a list); 202', params: PARAMS, tags: ['renditions'], responses: [{ status: 202, description: 'Accepted: the renditions are made in the background', empty: true }], request: { ...json, schema: RENDITION_SCHEMA }, handler: request },
    { method: 'GET', path: `${API_BASE}/nodes/:nodeId/renditions`, auth: 'repository', summary: 'List renditions and their status', params: PARAMS, tags: ['renditions'], etag: false, handler: renditions },
    { method: 'GET', path: `${API_BASE}/nodes/:nodeId/renditions/:renditionId`, auth: 'repository', summary: 'Get a rendition\'s status', params: PARAMS, tags: ['renditions'], etag: false, handler: rendition },
    { method: 'GET', path: `${API_BASE}/nodes/:nodeId/renditions/:renditionId/content`, auth: 'repository', summary: 'Get a rendition\'s content (placeholder=true: a placeholder while it is not created)', params: PARAMS, tags: ['renditions'], responses: FILE_BYTES, handler: renditionContent },
  ];
}

/** A rendition id from the path; a 404 names the ones there are. */
function knownRendition(id: string): RenditionId {
  if (!isRenditionId(id)) throw new RepositoryError(404, `Unknown rendition "${id}": use ${RENDITION_IDS.join(' or ')}`);
  return id;
}

/** Reverts file `nodeId` to version `from`: a new version with its content (the API's and the share UI's revert). */
export async function revertToVersion(deps: ContentDeps, nodeId: string, from: VersionRow, version: VersionOptions, user: Actor): Promise<VersionRow> {
  const text = await indexedText(deps.blobs, from.sha256, from.mime_type, deps.config.indexTextBytes);
  return deps.store.write((db, tx) =>
    addVersion(db, tx, { nodeId, content: { sha256: from.sha256, size: from.size, mimeType: from.mime_type, text, blobPath: deps.blobs.path(from.sha256) }, version, user, action: 'reverted', revertedFrom: from.label }),
  );
}

/** Renders and stores renditions `ids` of a file's current version, each with its evidence row. */
export async function storeRenditions(deps: ContentDeps, nodeId: string, ids: readonly RenditionId[], user: UserRef): Promise<void> {
  const node = requireNode(deps.store.sqlite, nodeId);
  const version = currentVersion(deps.store.sqlite, node);
  if (!version) throw new RepositoryError(400, `Node "${nodeId}" is a folder: folders have no renditions`);
  for (const id of ids) {
    const bytes = await renderRendition(id, node, version, { blobPath: deps.blobs.path(version.sha256), textLimit: deps.config.indexTextBytes });
    await deps.store.write((db, tx) => {
      const createdAt = new Date().toISOString();
      statement(db, 'INSERT OR REPLACE INTO renditions (node_id, rendition_id, version_label, mime_type, body, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(node.id, id, version.label, RENDITION_TYPES[id], bytes, createdAt);
      const rendition = { rendition_id: id, version_label: version.label, mime_type: RENDITION_TYPES[id], created_at: createdAt };
      tx.append(CONTENT_EVENTS, { node_id: node.id, action: 'rendition-created', payload: { actor: user.id, rendition: id, version: version.label, size: bytes.length, state: { rendition } } });
    });
  }
}
