// The share UI's routes under /share/ (and / which leads there). Reads render pages; each form
// POST checks the session's CSRF token, then answers 303 to the page that shows the result.
// A client mistake (a duplicate name, a bad token, an oversized file) renders an error page.

import type { Handler, Reply, RequestContext, Route } from '../../kernel/index.ts';
import { actorOf, listingViewer, logAborted, uploadDeps } from '../api-support.ts';
import type { ContentDeps } from '../api-support.ts';
import { ROOT_NODE_ID } from '../database.ts';
import { inheritedGrants, localGrants, permissionsOn, readableBy, setPermissions } from '../permissions.ts';
import { RepositoryError, createFolder, getVersion, nameProblem, nodeFor, requireFolder, requireNode, systemFolderProblem } from '../repository.ts';
import { searchNodesOnPool } from '../search.ts';
import { checkCsrf, uploadFile } from '../upload.ts';
import { revertToVersion } from '../version-routes.ts';
import { archiveNode, listArchived, purgeNode, requireArchived, restoreNode } from '../trashcan.ts';
import { STYLE, html, page, redirect } from './html.ts';
import { PAGE_SIZE, confirmPage, filePage, folderPage, searchPage, trashcanPage } from './pages.ts';
import type { Viewer } from './pages.ts';

const NODE = { nodeId: { description: 'A node id', example: ROOT_NODE_ID } };

function viewerOf(deps: ContentDeps, context: RequestContext): Viewer {
  const actor = actorOf(deps, context);
  const sqlite = deps.store.sqlite;
  return {
    name: actor.displayName,
    csrf: actor.csrf ?? '',
    can: (node) => permissionsOn(sqlite, deps.policy, node, actor),
    listing: (folder) => listingViewer(deps, actor, folder),
    readable: readableBy(sqlite, deps.policy, actor),
    inherited: (node) => inheritedGrants(sqlite, deps.policy, node),
  };
}

function skipOf(context: RequestContext): number {
  const skip = Number(context.query.get('skip') ?? '0');
  return Number.isSafeInteger(skip) && skip >= 0 ? skip : 0;
}

/** Renders RepositoryErrors as an error page with their status. */
function shareHandler(deps: ContentDeps, handler: Handler): Handler {
  return async (context) => {
    try {
      return await handler(context);
    } catch (error) {
      logAborted(context, error);
      const known = error instanceof RepositoryError ? error : (error as { cause?: unknown })?.cause;
      if (!(known instanceof RepositoryError)) throw error;
      const principal = context.principal === undefined ? undefined : viewerOf(deps, context);
      return page({ title: 'That did not work', status: known.status, ...(principal && { user: principal }), body: html`<div class="error" id="share-error"><p>${known.message}</p></div><p><a href="/share/">Back to the repository</a></p>` });
    }
  };
}

function formFields(context: RequestContext): URLSearchParams {
  return new URLSearchParams(context.rawBody?.toString('utf8') ?? '');
}

export function shareRoutes(deps: ContentDeps): Route[] {
  const sqlite = deps.store.sqlite;
  const uploads = uploadDeps(deps);
  const home: Handler = () => redirect('/share/');
  const showFolder = async (context: RequestContext, id: string) => {
    const actor = actorOf(deps, context);
    return folderPage(sqlite, deps.reads, nodeFor(sqlite, requireFolder(sqlite, id).id, actor, 'read'), viewerOf(deps, context), skipOf(context));
  };
  const root = shareHandler(deps, (context) => showFolder(context, ROOT_NODE_ID));
  const folder = shareHandler(deps, (context) => showFolder(context, context.params['nodeId']!));
  const file = shareHandler(deps, (context) => {
    const node = nodeFor(sqlite, context.params['nodeId']!, actorOf(deps, context), 'read');
    return node.is_folder === 1 ? redirect(`/share/folder/${encodeURIComponent(node.id)}`) : filePage(sqlite, node, viewerOf(deps, context));
  });
  const search = shareHandler(deps, async (context) => {
    const query = (context.query.get('q') ?? '').slice(0, 4096);
    const skip = skipOf(context);
    const viewer = viewerOf(deps, context);
    const { rows, total, exact } = query.trim() === '' ? { rows: [], total: 0, exact: true } : await searchNodesOnPool(deps.reads, sqlite, { query, paging: { skipCount: skip, maxItems: PAGE_SIZE }, readable: viewer.readable });
    return searchPage(sqlite, { query, rows: rows.map((r) => r.node), total, exact, skip, viewer });
  });
  const upload = shareHandler(deps, async (context): Promise<Reply> => {
    const parent = requireFolder(sqlite, context.params['nodeId']!);
    const principal = actorOf(deps, context);
    principal.require(sqlite, parent, 'create');
    const { id } = await uploadFile(uploads, { stream: context.bodyStream!, contentType: context.headers['content-type'], contentLength: context.headers['content-length'], parentId: parent.id, user: principal, csrf: principal.csrf ?? '' });
    return redirect(`/share/file/${encodeURIComponent(id)}`, { status: 303 });
  });
  const newVersion = shareHandler(deps, async (context): Promise<Reply> => {
    const node = requireNode(sqlite, context.params['nodeId']!);
    if (node.is_folder === 1 || node.parent_id === null) throw new RepositoryError(400, `"${node.name}" is a folder: folders have no versions`);
    const principal = actorOf(deps, context);
    principal.require(sqlite, node, 'update');
    await uploadFile(uploads, { stream: context.bodyStream!, contentType: context.headers['content-type'], contentLength: context.headers['content-length'], parentId: node.parent_id, user: principal, csrf: principal.csrf ?? '', newVersionOf: node.name });
    return redirect(`/share/file/${encodeURIComponent(node.id)}`, { status: 303 });
  });
  const newFolder = shareHandler(deps, async (context): Promise<Reply> => {
    const parent = requireFolder(sqlite, context.params['nodeId']!);
    const principal = actorOf(deps, context);
    const fields = formFields(context);
    checkCsrf(principal.csrf ?? '', fields.get('_csrf') ?? undefined);
    const name = fields.get('name') ?? '';
    const problem = nameProblem(name);
    if (problem) throw new RepositoryError(400, problem);
    const id = await deps.store.write((db, tx) => createFolder(db, tx, { parentId: parent.id, name, relativePath: undefined, autoRename: false, properties: {}, user: principal }));
    return redirect(`/share/folder/${encodeURIComponent(id)}`, { status: 303 });
  });
  const revert = shareHandler(deps, async (context): Promise<Reply> => {
    const node = requireNode(sqlite, context.params['nodeId']!);
    const principal = actorOf(deps, context);
    const fields = formFields(context);
    checkCsrf(principal.csrf ?? '', fields.get('_csrf') ?? undefined);
    const from = getVersion(sqlite, node.id, fields.get('version') ?? '');
    await revertToVersion(deps, node.id, from, { majorVersion: false, comment: `Reverted to ${from.label}` }, principal);
    return redirect(`/share/file/${encodeURIComponent(node.id)}`, { status: 303 });
  });
  const permissions = shareHandler(deps, async (context): Promise<Reply> => {
    const principal = actorOf(deps, context);
    const fields = formFields(context);
    checkCsrf(principal.csrf ?? '', fields.get('_csrf') ?? undefined);
    const folder = requireFolder(sqlite, context.params['nodeId']!);
    const op = fields.get('op');
    const authorityId = fields.get('authorityId') ?? '';
    const role = fields.get('role') ?? '';
    await deps.store.write((db, tx) => {
      const node = nodeFor(db, folder.id, principal, 'changePermissions');
      const current = localGrants(db, node.id);
      const body = op === 'add' ? { locallySet: [...current, { authorityId, name: role }] }
        : op === 'remove' ? { locallySet: current.filter((g) => g.authorityId !== authorityId || g.name !== role) }
        : op === 'inherit-on' || op === 'inherit-off' ? { isInheritanceEnabled: op === 'inherit-on' }
        : undefined;
      if (!body) throw new RepositoryError(400, `Unknown permissions operation "${op ?? ''}": use add, remove, inherit-on or inherit-off`);
      setPermissions(db, tx, { node, body, actor: principal.id });
    });
    return redirect(`/share/folder/${encodeURIComponent(folder.id)}`, { status: 303 });
  });
  const confirmDelete = shareHandler(deps, (context) => {
    const node = nodeFor(sqlite, context.params['nodeId']!, actorOf(deps, context), 'delete');
    const system = systemFolderProblem(sqlite, node);
    if (system) throw new RepositoryError(403, `Cannot delete: ${system}`);
    const back = `/share/${node.is_folder === 1 ? 'folder' : 'file'}/${encodeURIComponent(node.id)}`;
    const what = node.is_folder === 1 ? html`the folder <strong>${node.name}</strong> and everything in it` : html`the file <strong>${node.name}</strong> with all its versions`;
    return confirmPage({ title: `Delete ${node.name}?`, message: html`<p id="confirm-message">This moves ${what} to your trashcan. You can restore it from there until you delete it permanently.</p>`, action: `/share/node/${encodeURIComponent(node.id)}/delete`, button: 'Delete', back, viewer: viewerOf(deps, context) });
  });
  const deleteNode = shareHandler(deps, async (context): Promise<Reply> => {
    const principal = actorOf(deps, context);
    checkCsrf(principal.csrf ?? '', formFields(context).get('_csrf') ?? undefined);
    const node = requireNode(sqlite, context.params['nodeId']!);
    await deps.store.write((db, tx) => archiveNode(db, tx, { nodeId: node.id, actor: principal }));
    return redirect(`/share/folder/${encodeURIComponent(node.parent_id ?? ROOT_NODE_ID)}`, { status: 303 });
  });
  const trashcan = shareHandler(deps, (context) => {
    const viewer = viewerOf(deps, context);
    const skip = skipOf(context);
    const { rows, total } = listArchived(sqlite, actorOf(deps, context), { skipCount: skip, maxItems: PAGE_SIZE });
    return trashcanPage({ rows, total, skip, viewer });
  });
  const restore = shareHandler(deps, async (context): Promise<Reply> => {
    const principal = actorOf(deps, context);
    checkCsrf(principal.csrf ?? '', formFields(context).get('_csrf') ?? undefined);
    const id = context.params['nodeId']!;
    const node = requireArchived(sqlite, id, principal);
    await deps.store.write((db, tx) => restoreNode(db, tx, { nodeId: id, actor: principal }));
    return redirect(`/share/${node.is_folder === 1 ? 'folder' : 'file'}/${encodeURIComponent(id)}`, { status: 303 });
  });
  const confirmPurge = shareHandler(deps, (context) => {
    const node = requireArchived(sqlite, context.params['nodeId']!, actorOf(deps, context));
    return confirmPage({ title: `Delete ${node.name} permanently?`, message: html`<p id="confirm-message"><strong>${node.name}</strong>${node.is_folder === 1 ? ' and everything in it' : ''} will be removed for good, with its content. This cannot be undone.</p>`, action: `/share/trashcan/${encodeURIComponent(node.id)}/purge`, button: 'Delete permanently', back: '/share/trashcan', viewer: viewerOf(deps, context) });
  });
  const purge = shareHandler(deps, async (context): Promise<Reply> => {
    const principal = actorOf(deps, context);
    checkCsrf(principal.csrf ?? '', formFields(context).get('_csrf') ?? undefined);
    await purgeNode(deps.store, deps.blobs, { nodeId: context.params['nodeId']!, actor: principal });
    return redirect('/share/trashcan', { status: 303 });
  });
  const style: Handler = () => ({ status: 200, raw: STYLE, contentType: 'text/css; charset=utf-8', headers: { 'cache-control': 'max-age=300' } });

  const multipart = { stream: true, contentTypes: ['multipart/form-data'] };
  const form = { raw: true, maxBytes: 16 * 1024, contentTypes: ['application/x-www-form-urlencoded'] };
  const page = { status: 200, description: 'The page', contentType: 'text/html; charset=utf-8', schema: { type: 'string' } } as const;
  const toLogin = { status: 302, description: 'No session: to the login (/auth/oidc/login?return_to=...)' } as const;
  const ui = { tags: ['share'], etag: false, responses: [page, toLogin] } as const;
  const write = { ...ui, responses: [{ status: 303, description: 'Done: to the page that shows it' }, toLogin] } as const;
  return [
    { method: 'GET', path: '/', auth: 'share', summary: 'Into the share UI (through the login without a session)', ...ui, responses: [{ status: 302, description: 'To /share/, or to the login without a session' }], handler: home },
    { method: 'GET', path: '/share/', auth: 'share', summary: 'Share UI: the root folder', ...ui, handler: root },
    { method: 'GET', path: '/share/style.css', auth: 'none', summary: 'Share UI stylesheet', tags: ['share'], responses: [{ status: 200, description: 'The stylesheet', contentType: 'text/css; charset=utf-8', schema: { type: 'string' } }], handler: style },
    { method: 'GET', path: '/share/folder/:nodeId', auth: 'share', summary: 'Share UI: a folder', params: NODE, ...ui, handler: folder },
    { method: 'GET', path: '/share/file/:nodeId', auth: 'share', summary: 'Share UI: a file and its versions', params: NODE, ...ui, handler: file },
    { method: 'GET', path: '/share/search', auth: 'share', summary: 'Share UI: search results (q, skip)', ...ui, handler: search },
    { method: 'POST', path: '/share/folder/:nodeId/upload', auth: 'share', summary: 'Share UI: upload a file (multipart, _csrf first)', params: NODE, ...write, request: multipart, handler: upload },
    { method: 'POST', path: '/share/folder/:nodeId/folder', auth: 'share', summary: 'Share UI: create a folder', params: NODE, ...write, request: form, handler: newFolder },
    { method: 'POST', path: '/share/file/:nodeId/version', auth: 'share', summary: 'Share UI: upload a new version (multipart, _csrf first)', params: NODE, ...write, request: multipart, handler: newVersion },
    { method: 'POST', path: '/share/folder/:nodeId/permissions', auth: 'share', summary: 'Share UI: grant or remove a role, or turn inheritance on or off (Coordinator only)', params: NODE, ...write, request: form, handler: permissions },
    { method: 'GET', path: '/share/node/:nodeId/delete', auth: 'share', summary: 'Share UI: confirm deleting a file or folder', params: NODE, ...ui, handler: confirmDelete },
    { method: 'POST', path: '/share/node/:nodeId/delete', auth: 'share', summary: 'Share UI: delete a file or folder into the trashcan', params: NODE, ...write, request: form, handler: deleteNode },
    { method: 'GET', path: '/share/trashcan', auth: 'share', summary: 'Share UI: your trashcan (skip)', ...ui, handler: trashcan },
    { method: 'POST', path: '/share/trashcan/:nodeId/restore', auth: 'share', summary: 'Share UI: restore a deleted node where it was', params: NODE, ...write, request: form, handler: restore },
    { method: 'GET', path: '/share/trashcan/:nodeId/purge', auth: 'share', summary: 'Share UI: confirm deleting a node permanently', params: NODE, ...ui, handler: confirmPurge },
    { method: 'POST', path: '/share/trashcan/:nodeId/purge', auth: 'share', summary: 'Share UI: delete a node permanently (its content too)', params: NODE, ...write, request: form, handler: purge },
    { method: 'POST', path: '/share/file/:nodeId/revert', auth: 'share', summary: 'Share UI: revert to a version', params: NODE, ...write, request: form, handler: revert },
  ];
}
