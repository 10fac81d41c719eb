// The repository API's node routes: readback, children (list, upload, folder), metadata
// update, content readback and versioned content update. Alfresco's paths under API_BASE.

import type { Route, RequestContext } from '../kernel/index.ts';
import { listEnvelope } from './alfresco-shapes.ts';
import { API_BASE, actorOf, alfrescoHandler, contentReply, FILE_BYTES, jsonBodyReader, pagingOf, principalOf, queryFlag, uploadDeps, listingViewer } from './api-support.ts';
import type { ContentDeps } from './api-support.ts';
import { mediaTypeFor } from './mime-types.ts';
import { readOrderBy, readWhere } from './listing-query.ts';
import { entryFor, entryView } from './node-view.ts';
import type { EntryView } from './node-view.ts';
import { PERMISSIONS_SCHEMA, setPermissions } from './permissions.ts';
import type { PermissionsBody } from './permissions.ts';
import { indexedText } from './renditions.ts';
import { RepositoryError, addVersion, createFolder, currentVersion, findPath, listChildrenOnPool, nameProblem, nodeFor, requireFolder, requireNode, resolveNodeId, updateMetadata } from './repository.ts';
import type { Actor } from './repository.ts';
import { readFlag, storeBody, translateUploadError, uploadFile } from './upload.ts';
import { storeRenditions } from './version-routes.ts';

const NODE_ID = { nodeId: { description: 'A node id, or the alias -root- (Company Home), -my- (your home folder) or -shared- (Shared Files)', example: '-root-' } };
const PROPERTIES_SCHEMA = { type: 'object', maxProperties: 64, propertyNames: { pattern: '^[a-z][a-zA-Z0-9]*:[A-Za-z][A-Za-z0-9_]*$' }, additionalProperties: { type: ['string', 'null'], maxLength: 65536 } };
const UPDATE_SCHEMA = { type: 'object', additionalProperties: false, minProperties: 1, properties: { name: { type: 'string', minLength: 1, maxLength: 255 }, properties: PROPERTIES_SCHEMA, permissions: PERMISSIONS_SCHEMA } };
const FOLDER_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'nodeType'],
  properties: { name: { type: 'string', minLength: 1, maxLength: 255 }, nodeType: { const: 'cm:folder' }, relativePath: { type: 'string', maxLength: 4096 }, properties: PROPERTIES_SCHEMA },
};
const JSON_LIMIT = 1024 * 1024;

const readUpdate = jsonBodyReader<{ name?: string; properties?: Record<string, string | null>; permissions?: PermissionsBody }>(UPDATE_SCHEMA);
const readFolder = jsonBodyReader<{ name: string; relativePath?: string; properties?: Record<string, string> }>(FOLDER_SCHEMA);

/** The entry of a node as it is now, as `actor` sees it with the request's include and fields. */
export function nodeReply(deps: ContentDeps, id: string, status: number, options: { actor: Actor; view?: EntryView }) {
  const node = requireNode(deps.store.sqlite, id);
  return { status, body: { entry: entryFor(deps, node, options.actor, options.view ?? NO_VIEW) } };
}

const NO_VIEW: EntryView = { include: new Set(), fields: undefined };

/** The include and fields query parameters of a node request. */
export function viewOf(context: RequestContext): EntryView {
  return entryView(context.query.get('include'), context.query.get('fields'));
}

async function nodeIdOf(deps: ContentDeps, context: RequestContext): Promise<string> {
  return resolveNodeId(deps.store, context.params['nodeId']!, principalOf(context));
}

/** nodeId, or the node its `relativePath` query names (getNode and listNodeChildren take one). */
async function nodeIdAt(deps: ContentDeps, context: RequestContext): Promise<string> {
  const id = await nodeIdOf(deps, context);
  const relativePath = context.query.get('relativePath');
  return relativePath === null ? id : findPath(deps.store.sqlite, id, relativePath, actorOf(deps, context));
}

export function nodeRoutes(deps: ContentDeps): Route[] {
  const getNode = alfrescoHandler(async (context) => {
    const actor = actorOf(deps, context);
    const view = viewOf(context);
    const node = nodeFor(deps.store.sqlite, await nodeIdAt(deps, context), actor, 'read');
    return { status: 200, body: { entry: entryFor(deps, node, actor, view) } };
  });

  const updateNode = alfrescoHandler(async (context) => {
    const id = await nodeIdOf(deps, context);
    const actor = actorOf(deps, context);
    const view = viewOf(context);
    const body = readUpdate(context);
    const problem = body.name === undefined ? undefined : nameProblem(body.name);
    if (problem) throw new RepositoryError(400, problem);
    await deps.store.write((sqlite, tx) => {
      if (body.name !== undefined || body.properties !== undefined) updateMetadata(sqlite, tx, { nodeId: id, name: body.name, properties: body.properties, user: actor });
      if (body.permissions !== undefined) setPermissions(sqlite, tx, { node: nodeFor(sqlite, id, actor, 'changePermissions'), body: body.permissions, actor: actor.id });
    });
    return nodeReply(deps, id, 200, { actor, view });
  });

  const listChildrenHandler = alfrescoHandler(async (context) => {
    const actor = actorOf(deps, context);
    const view = viewOf(context);
    const orderBy = readOrderBy(context.query.get('orderBy'));
    const where = readWhere(context.query.get('where'));
    const id = await nodeIdAt(deps, context);
    const folder = requireFolder(deps.store.sqlite, id);
    actor.require(deps.store.sqlite, folder, 'read');
    const paging = pagingOf(context.query.get('skipCount') ?? undefined, context.query.get('maxItems') ?? undefined);
    const { rows, total, exact } = await listChildrenOnPool(deps.reads, id, { ...paging, viewer: listingViewer(deps, actor, folder), ...(orderBy && { orderBy }), ...(where && { where }) });
    return { status: 200, body: listEnvelope(rows.map((row) => entryFor(deps, row, actor, view)), { paging, totalItems: total, totalExact: exact }) };
  });

  const createChild = alfrescoHandler(async (context) => {
    const parentId = await nodeIdOf(deps, context);
    const user = actorOf(deps, context);
    const contentType = context.headers['content-type'];
    if (contentType !== undefined && /^application\/json\b/i.test(contentType)) {
      context.rawBody = await readLimited(context, JSON_LIMIT);
      const body = readFolder(context);
      const problem = nameProblem(body.name);
      if (problem) throw new RepositoryError(400, problem);
      const autoRename = queryFlag(context, 'autoRename', false);
      const view = viewOf(context);
      const id = await deps.store.write((sqlite, tx) => createFolder(sqlite, tx, { parentId, name: body.name, relativePath: body.relativePath, autoRename, properties: pickStrings(body.properties), user }));
      return nodeReply(deps, id, 201, { actor: user, view });
    }
    // Refused before a byte is stored: the parent must exist and take children from this caller.
    user.require(deps.store.sqlite, requireFolder(deps.store.sqlite, parentId), 'create');
    const view = viewOf(context);
    const { id, renditions } = await uploadFile(uploadDeps(deps), { stream: context.bodyStream!, contentType, contentLength: context.headers['content-length'], parentId, user });
    await storeRenditions(deps, id, renditions, user);
    return nodeReply(deps, id, 201, { actor: user, view });
  });

  const getContent = alfrescoHandler(async (context) => {
    const node = nodeFor(deps.store.sqlite, await nodeIdOf(deps, context), actorOf(deps, context), 'read');
    const version = currentVersion(deps.store.sqlite, node);
    if (!version) throw new RepositoryError(404, `Node "${node.id}" is a folder and has no content`);
    return contentReply(deps, { sha256: version.sha256, size: version.size, mimeType: version.mime_type, name: node.name }, queryFlag(context, 'attachment', true), context);
  });

  const updateContent = alfrescoHandler(async (context) => {
    const id = await nodeIdOf(deps, context);
    const actor = actorOf(deps, context);
    const view = viewOf(context);
    const node = nodeFor(deps.store.sqlite, id, actor, 'update');
    if (node.is_folder === 1) throw new RepositoryError(400, `Node "${id}" is a folder: folders have no content`);
    const majorVersion = readFlag('majorVersion', context.query.get('majorVersion') ?? undefined, false);
    const comment = context.query.get('comment') ?? undefined;
    // Alfresco's name: the node takes a new name with its new content (checked before any byte is stored).
    const name = context.query.get('name') ?? undefined;
    const problem = name === undefined ? undefined : nameProblem(name);
    if (problem) throw new RepositoryError(400, problem);
    const blob = await storeBody(uploadDeps(deps), context.bodyStream!, context.headers['content-length']);
    const mimeType = mediaTypeFor(name ?? node.name, context.headers['content-type']);
    const text = await indexedText(deps.blobs, blob.sha256, mimeType, deps.config.indexTextBytes);
    await deps.store.write((sqlite, tx) => {
      if (name !== undefined && name !== node.name) updateMetadata(sqlite, tx, { nodeId: id, name, properties: undefined, user: actor });
      addVersion(sqlite, tx, { nodeId: id, content: { ...blob, mimeType, text, blobPath: deps.blobs.path(blob.sha256) }, version: { majorVersion, comment }, user: actor, action: 'content-updated' });
    });
    await deps.blobs.settle(blob);
    return nodeReply(deps, id, 200, { actor, view });
  });

  const upload = { stream: true, contentTypes: ['multipart/form-data', 'application/json'] };
  return [
    { method: 'GET', path: `${API_BASE}/nodes/:nodeId`, auth: 'repository', summary: 'Get a node', params: NODE_ID, tags: ['nodes'], etag: false, handler: getNode },
    { method: 'PUT', path: `${API_BASE}/nodes/:nodeId`, auth: 'repository', summary: 'Update a node\'s name or properties', params: NODE_ID, tags: ['nodes'], request: { raw: true, schema: UPDATE_SCHEMA }, handler: updateNode },
    { method: 'GET', path: `${API_BASE}/nodes/:nodeId/children`, auth: 'repository', summary: 'List a folder\'s children (skipCount, maxItems, orderBy, where, include, fields)', params: NODE_ID, tags: ['nodes'], etag: false, handler: listChildrenHandler },
    { method: 'POST', path: `${API_BASE}/nodes/:nodeId/children`, auth: 'repository', summary: 'Upload a file (multipart field filedata; name, relativePath, autoRename, overwrite, majorVersion, comment) or create a folder (JSON)', params: NODE_ID, tags: ['nodes'], request: upload, responses: [{ status: 201, description: 'Created: the node\'s entry', schema: { type: 'object', required: ['entry'] } }], handler: createChild },
    { method: 'GET', path: `${API_BASE}/nodes/:nodeId/content`, auth: 'repository', summary: 'Get a file\'s current content (attachment=false for inline)', params: NODE_ID, tags: ['nodes'], responses: FILE_BYTES, handler: getContent },
    { method: 'PUT', path: `${API_BASE}/nodes/:nodeId/content`, auth: 'repository', summary: 'Update a file\'s content as a new version (majorVersion, comment, name renames it too)', params: NODE_ID, tags: ['nodes'], request: { stream: true }, handler: updateContent },
  ];
}

function pickStrings(properties: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(properties ?? {}).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

async function readLimited(context: RequestContext, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of context.bodyStream! as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) throw new RepositoryError(413, `JSON body over ${limit} bytes`);
      chunks.push(chunk);
    }
  } catch (error) {
    // A client that leaves mid-body is logged as that, not as a handler failure with a stack.
    throw translateUploadError(error);
  }
  return Buffer.concat(chunks, size);
}
