// The share UI's routes under /share/ (and / which leads there). Reads render pages; each form
// POST checks the session's CSRF token, then answers 303 to the page that shows the result.
// A client mistake (a duplicate name, a bad token, an oversized file) renders an error page.

import type { Handler, Reply, RequestContext, Route } from '../../kernel/index.ts';
import { principalOf, uploadDeps } from '../api-support.ts';
import type { ContentDeps } from '../api-support.ts';
import { ROOT_NODE_ID } from '../database.ts';
import { RepositoryError, createFolder, getVersion, nameProblem, requireFolder, requireNode } from '../repository.ts';
import { searchNodes } from '../search.ts';
import { checkCsrf, uploadFile } from '../upload.ts';
import { revertToVersion } from '../version-routes.ts';
import { STYLE, html, page, redirect } from './html.ts';
import { PAGE_SIZE, filePage, folderPage, searchPage } from './pages.ts';
import type { Viewer } from './pages.ts';

const NODE = { nodeId: { description: 'A node id', example: ROOT_NODE_ID } };

function viewerOf(context: RequestContext): Viewer {
  const principal = principalOf(context);
  return { name: principal.displayName, csrf: principal.csrf ?? '' };
}

function skipOf(context: RequestContext): number {
  const skip = Number(context.query.get('skip') ?? '0');
  return Number.isSafeInteger(skip) && skip >= 0 ? skip : 0;
}

/** Renders RepositoryErrors as an error page with their status. */
function shareHandler(handler: Handler): Handler {
  return async (context) => {
    try {
      return await handler(context);
    } catch (error) {
      const known = error instanceof RepositoryError ? error : (error as { cause?: unknown })?.cause;
      if (!(known instanceof RepositoryError)) throw error;
      const principal = context.principal === undefined ? undefined : viewerOf(context);
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
  const root = shareHandler((context) => folderPage(sqlite, requireFolder(sqlite, ROOT_NODE_ID), viewerOf(context), skipOf(context)));
  const folder = shareHandler((context) => folderPage(sqlite, requireFolder(sqlite, context.params['nodeId']!), viewerOf(context), skipOf(context)));
  const file = shareHandler((context) => {
    const node = requireNode(sqlite, context.params['nodeId']!);
    return node.is_folder === 1 ? redirect(`/share/folder/${encodeURIComponent(node.id)}`) : filePage(sqlite, node, viewerOf(context));
  });
  const search = shareHandler((context) => {
    const query = (context.query.get('q') ?? '').slice(0, 4096);
    const skip = skipOf(context);
    const { rows, total } = searchNodes(sqlite, { query, paging: { skipCount: skip, maxItems: PAGE_SIZE } });
    return searchPage(sqlite, { query, rows: rows.map((r) => r.node), total, skip, viewer: viewerOf(context) });
  });
  const upload = shareHandler(async (context): Promise<Reply> => {
    const parent = requireFolder(sqlite, context.params['nodeId']!);
    const principal = principalOf(context);
    const { id } = await uploadFile(uploads, { stream: context.bodyStream!, contentType: context.headers['content-type'], contentLength: context.headers['content-length'], parentId: parent.id, user: principal, csrf: principal.csrf ?? '' });
    return redirect(`/share/file/${encodeURIComponent(id)}`, { status: 303 });
  });
  const newVersion = shareHandler(async (context): Promise<Reply> => {
    const node = requireNode(sqlite, context.params['nodeId']!);
    if (node.is_folder === 1 || node.parent_id === null) throw new RepositoryError(400, `"${node.name}" is a folder: folders have no versions`);
    const principal = principalOf(context);
    await uploadFile(uploads, { stream: context.bodyStream!, contentType: context.headers['content-type'], contentLength: context.headers['content-length'], parentId: node.parent_id, user: principal, csrf: principal.csrf ?? '', newVersionOf: node.name });
    return redirect(`/share/file/${encodeURIComponent(node.id)}`, { status: 303 });
  });
  const newFolder = shareHandler(async (context): Promise<Reply> => {
    const parent = requireFolder(sqlite, context.params['nodeId']!);
    const principal = principalOf(context);
    const fields = formFields(context);
    checkCsrf(principal.csrf ?? '', fields.get('_csrf') ?? undefined);
    const name = fields.get('name') ?? '';
    const problem = nameProblem(name);
    if (problem) throw new RepositoryError(400, problem);
    const id = await deps.store.write((db, tx) => createFolder(db, tx, { parentId: parent.id, name, relativePath: undefined, autoRename: false, properties: {}, user: principal }));
    return redirect(`/share/folder/${encodeURIComponent(id)}`, { status: 303 });
  });
  const revert = shareHandler(async (context): Promise<Reply> => {
    const node = requireNode(sqlite, context.params['nodeId']!);
    const principal = principalOf(context);
    const fields = formFields(context);
    checkCsrf(principal.csrf ?? '', fields.get('_csrf') ?? undefined);
    const from = getVersion(sqlite, node.id, fields.get('version') ?? '');
    await revertToVersion(deps, node.id, from, { majorVersion: false, comment: `Reverted to ${from.label}` }, principal);
    return redirect(`/share/file/${encodeURIComponent(node.id)}`, { status: 303 });
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
    { method: 'POST', path: '/share/file/:nodeId/revert', auth: 'share', summary: 'Share UI: revert to a version', params: NODE, ...write, request: form, handler: revert },
  ];
}
