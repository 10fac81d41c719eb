// The trashcan's routes, as Alfresco's: DELETE nodes/{id} (permanent=true purges at once),
// GET deleted-nodes (the caller's own deletions, newest first), GET deleted-nodes/{id},
// POST deleted-nodes/{id}/restore and DELETE deleted-nodes/{id} (purge).

import type { Route } from '../kernel/index.ts';
import { alfrescoTime, listEnvelope } from './alfresco-shapes.ts';
import { API_BASE, actorOf, alfrescoHandler, pagingOf, queryFlag, requireWriteScope } from './api-support.ts';
import type { ContentDeps } from './api-support.ts';
import type { NodeRow, UserRef } from './node-entry.ts';
import { nodeReply, viewOf } from './node-routes.ts';
import { entryFor } from './node-view.ts';
import type { EntryView } from './node-view.ts';
import { RepositoryError } from './repository-error.ts';
import { resolveNodeId } from './repository.ts';
import type { Actor } from './repository.ts';
import { archiveNode, listArchived, purgeNode, requireArchived, restoreNode } from './trashcan.ts';

const PARAMS = { nodeId: { description: 'A node id (for DELETE nodes/{id} also -my- or -shared-, which are refused as system folders)', example: '-root-' } };

/** A deleted node's entry: the node as it was, with archivedAt and archivedByUser (and what include and fields ask; path is where it was). */
function deletedEntry(deps: ContentDeps, node: NodeRow, actor: Actor, view: EntryView): Record<string, unknown> {
  return entryFor(deps, node, actor, view, { archivedAt: alfrescoTime(node.archived_at ?? ''), archivedByUser: JSON.parse(node.archived_by ?? '{}') as UserRef });
}

export function trashcanRoutes(deps: ContentDeps): Route[] {
  const sqlite = deps.store.sqlite;
  const deleteNode = alfrescoHandler(async (context) => {
    const actor = actorOf(deps, context);
    const permanent = queryFlag(context, 'permanent', false);
    const id = await resolveNodeId(deps.store, context.params['nodeId']!, actor);
    await deps.store.write((db, tx) => archiveNode(db, tx, { nodeId: id, actor }));
    if (permanent) await purgeNode(deps.store, deps.blobs, { nodeId: id, actor });
    return { status: 204, raw: '' };
  });
  const list = alfrescoHandler((context) => {
    const actor = actorOf(deps, context);
    const paging = pagingOf(context.query.get('skipCount') ?? undefined, context.query.get('maxItems') ?? undefined);
    const view = viewOf(context);
    const { rows, total, exact } = listArchived(sqlite, actor, paging);
    return { status: 200, body: listEnvelope(rows.map((row) => deletedEntry(deps, row, actor, view)), { paging, totalItems: total, totalExact: exact }) };
  });
  const one = alfrescoHandler((context) => {
    const actor = actorOf(deps, context);
    return { status: 200, body: { entry: deletedEntry(deps, requireArchived(sqlite, context.params['nodeId']!, actor), actor, viewOf(context)) } };
  });
  const restore = alfrescoHandler(async (context) => {
    const actor = actorOf(deps, context);
    requireWriteScope(deps, actor);
    // Alfresco takes an optional {"targetParentId"}: this repository restores only to where the node was.
    if (context.rawBody && context.rawBody.toString('utf8').trim() !== '' && context.rawBody.toString('utf8').trim() !== '{}') {
      throw new RepositoryError(400, 'A restore body is not supported: the node goes back to the folder it was deleted from (restore that first if it is deleted too)');
    }
    const id = context.params['nodeId']!;
    await deps.store.write((db, tx) => restoreNode(db, tx, { nodeId: id, actor }));
    return nodeReply(deps, id, 200, { actor, view: viewOf(context) });
  });
  const purge = alfrescoHandler(async (context) => {
    const actor = actorOf(deps, context);
    requireWriteScope(deps, actor);
    await purgeNode(deps.store, deps.blobs, { nodeId: context.params['nodeId']!, actor });
    return { status: 204, raw: '' };
  });
  return [
    { method: 'DELETE', path: `${API_BASE}/nodes/:nodeId`, auth: 'repository', summary: 'Delete a node (a folder with everything below it) into the trashcan; permanent=true purges it at once', params: PARAMS, tags: ['trashcan'], handler: deleteNode },
    { method: 'GET', path: `${API_BASE}/deleted-nodes`, auth: 'repository', summary: 'The nodes you deleted, newest first (skipCount, maxItems, include, fields)', tags: ['trashcan'], etag: false, handler: list },
    { method: 'GET', path: `${API_BASE}/deleted-nodes/:nodeId`, auth: 'repository', summary: 'One node you deleted', params: PARAMS, tags: ['trashcan'], etag: false, handler: one },
    { method: 'POST', path: `${API_BASE}/deleted-nodes/:nodeId/restore`, auth: 'repository', summary: 'Restore a deleted node to the folder it was deleted from (404 when that folder is gone, 409 when the name is taken there)', params: PARAMS, tags: ['trashcan'], request: { raw: true, optional: true, maxBytes: 1024 }, handler: restore },
    { method: 'DELETE', path: `${API_BASE}/deleted-nodes/:nodeId`, auth: 'repository', summary: 'Purge a deleted node: its rows, then the content blobs no remaining version needs', params: PARAMS, tags: ['trashcan'], handler: purge },
  ];
}
