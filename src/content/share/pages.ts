// The share UI's pages, rendered on the server with every value escaped: a folder (breadcrumbs,
// children, upload and new-folder forms), a file (details, versions with downloads, a new
// version, revert), and search results. Forms carry the session's CSRF token; links to content
// go to the repository API, which admits the same session.

import type { DatabaseSync } from 'node:sqlite';
import type { ReadPool, Reply } from '../../kernel/index.ts';
import { API_BASE } from '../api-support.ts';
import type { NodeRow, VersionRow } from '../node-entry.ts';
import { currentVersion, getNode, listChildrenOnPool, listVersions, systemFolderProblem } from '../repository.ts';
import type { ChildrenQuery } from '../repository.ts';
import { ROLES, localGrants } from '../permissions.ts';
import type { Grant, Permission } from '../permissions.ts';
import { html, page } from './html.ts';
import type { Safe } from './html.ts';

export interface Viewer {
  name: string;
  csrf: string;
  /** What the viewer may do on a node (forms show only what would be allowed). */
  can(node: NodeRow): ReadonlySet<Permission>;
  /** The filter of a folder's listing for this viewer. */
  listing(folder: NodeRow): ChildrenQuery['viewer'];
  readable(node: NodeRow): boolean;
  /** The grants a node inherits (shown on the permissions panel). */
  inherited(node: NodeRow): Grant[];
}

export const PAGE_SIZE = 50;

/** The trail from Company Home, as the API's include=path: only below the last folder the viewer may not read ("…" stands for the rest). */
function breadcrumbs(sqlite: DatabaseSync, node: NodeRow, viewer: Viewer): Safe {
  const trail: NodeRow[] = [];
  for (let at: NodeRow | undefined = node; at; at = at.parent_id === null ? undefined : getNode(sqlite, at.parent_id)) trail.unshift(at);
  const hidden = trail.findLastIndex((n) => !viewer.readable(n));
  const shown = trail.slice(hidden + 1);
  return html`<nav class="crumbs">${hidden >= 0 ? html`<span class="hidden-crumbs" title="folders you may not read">…</span> / ` : html``}${shown.map((n, i) => html`${i > 0 ? ' / ' : ''}<a href="/share/${n.is_folder === 1 ? 'folder' : 'file'}/${encodeURIComponent(n.id)}">${n.name}</a>`)}</nav>`;
}

function size(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : bytes < 1048576 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1048576).toFixed(1)} MiB`;
}

function nodeRow(sqlite: DatabaseSync, node: NodeRow): Safe {
  const version = currentVersion(sqlite, node);
  const link = node.is_folder === 1 ? `/share/folder/${encodeURIComponent(node.id)}` : `/share/file/${encodeURIComponent(node.id)}`;
  return html`<tr><td>${node.is_folder === 1 ? html`<span class="kind">[folder]</span> ` : html``}<a class="node-link" href="${link}">${node.name}</a></td><td>${version ? version.mime_type : 'folder'}</td><td>${version ? size(version.size) : ''}</td><td>${node.version_label ?? ''}</td><td>${node.modified_at.slice(0, 19).replace('T', ' ')}</td></tr>`;
}

function searchForm(query = ''): Safe {
  return html`<form method="get" action="/share/search" class="search"><input type="search" name="q" id="search-q" value="${query}" placeholder="Search names, properties and text" required maxlength="4096"> <button type="submit" id="search-go">Search</button></form>`;
}

/** A folder's page; its listing is read on the service's read pool (issue 24). */
export async function folderPage(sqlite: DatabaseSync, reads: ReadPool, folder: NodeRow, viewer: Viewer, skip: number): Promise<Reply> {
  const { rows, total } = await listChildrenOnPool(reads, folder.id, { skipCount: skip, maxItems: PAGE_SIZE, viewer: viewer.listing(folder) });
  const may = viewer.can(folder);
  const action = `/share/folder/${encodeURIComponent(folder.id)}`;
  const more = skip + rows.length < total ? html`<p><a href="${action}?skip=${skip + PAGE_SIZE}">Next page</a></p>` : html``;
  return page({
    title: folder.name,
    user: viewer,
    body: html`${breadcrumbs(sqlite, folder, viewer)}${searchForm()}${deleteLink(sqlite, folder, may)}
<table id="children"><thead><tr><th>Name</th><th>Type</th><th>Size</th><th>Version</th><th>Modified (UTC)</th></tr></thead>
<tbody>${rows.map((n) => nodeRow(sqlite, n))}</tbody></table>${rows.length === 0 ? html`<p class="note">This folder is empty.</p>` : html``}${more}
${may.has('create') ? writeForms(action, viewer) : html`<p class="note" id="read-only">You may read this folder but not add to it.</p>`}
${may.has('changePermissions') ? permissionsPanel(sqlite, folder, viewer) : html``}`,
  });
}

function deleteLink(sqlite: DatabaseSync, node: NodeRow, may: ReadonlySet<Permission>): Safe {
  if (!may.has('delete') || systemFolderProblem(sqlite, node) !== undefined) return html``;
  return html`<p><a class="delete" id="delete-link" href="/share/node/${encodeURIComponent(node.id)}/delete">Delete ${node.is_folder === 1 ? 'this folder' : 'this file'}</a></p>`;
}

/** A confirmation: what will happen, a button that does it (with the CSRF token), a way back. */
export function confirmPage(init: { title: string; message: Safe; action: string; button: string; back: string; viewer: Viewer }): Reply {
  return page({
    title: init.title,
    user: init.viewer,
    body: html`<div class="confirm">${init.message}</div><form method="post" action="${init.action}" id="confirm-form"><input type="hidden" name="_csrf" value="${init.viewer.csrf}"><button type="submit" id="confirm-go">${init.button}</button> <a href="${init.back}" id="confirm-cancel">Cancel</a></form>`,
  });
}

/** The viewer's trashcan: what they deleted, newest first, each with Restore and Delete permanently. */
export function trashcanPage(init: { rows: NodeRow[]; total: number; skip: number; viewer: Viewer }): Reply {
  const more = init.skip + init.rows.length < init.total ? html`<p><a href="/share/trashcan?skip=${init.skip + PAGE_SIZE}">Next page</a></p>` : html``;
  return page({
    title: 'Trashcan',
    user: init.viewer,
    body: html`<p class="note">What you deleted. Restore puts an item back where it was; Delete permanently removes it and its content for good.</p>
<table id="trashcan"><thead><tr><th>Name</th><th>Type</th><th>Deleted (UTC)</th><th></th></tr></thead><tbody>${init.rows.map((n) => html`<tr class="deleted"><td>${n.name}</td><td>${n.is_folder === 1 ? 'folder' : n.node_type}</td><td>${(n.archived_at ?? '').slice(0, 19).replace('T', ' ')}</td>
<td><form class="inline" method="post" action="/share/trashcan/${encodeURIComponent(n.id)}/restore"><input type="hidden" name="_csrf" value="${init.viewer.csrf}"><button type="submit" class="restore">Restore</button></form> <a class="purge" href="/share/trashcan/${encodeURIComponent(n.id)}/purge">Delete permanently</a></td></tr>`)}</tbody></table>
${init.rows.length === 0 ? html`<p class="note" id="trashcan-empty">Your trashcan is empty.</p>` : html``}${more}`,
  });
}

/** The Coordinator's panel: the folder's own grants (each removable), what it inherits, inheritance on or off, and a form to grant a role. */
function permissionsPanel(sqlite: DatabaseSync, folder: NodeRow, viewer: Viewer): Safe {
  const action = `/share/folder/${encodeURIComponent(folder.id)}/permissions`;
  const hidden = (fields: Record<string, string>) => html`<input type="hidden" name="_csrf" value="${viewer.csrf}">${Object.entries(fields).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}`;
  const local = localGrants(sqlite, folder.id);
  const inherited = viewer.inherited(folder);
  return html`<h2>Permissions</h2><section id="permissions">
<table id="local-permissions"><thead><tr><th>User or group</th><th>Role</th><th></th></tr></thead><tbody>${local.map((g) => html`<tr><td>${g.authorityId}</td><td>${g.name}</td><td><form class="inline" method="post" action="${action}">${hidden({ op: 'remove', authorityId: g.authorityId, role: g.name })}<button type="submit">Remove</button></form></td></tr>`)}</tbody></table>
${local.length === 0 ? html`<p class="note">No permissions are set on this folder itself.</p>` : html``}
<p>Inherited: ${folder.inherit_permissions === 1 ? (inherited.length === 0 ? 'nothing' : inherited.map((g) => `${g.authorityId} (${g.name})`).join(', ')) : 'off'}.</p>
<form method="post" action="${action}" id="inherit-form">${hidden({ op: folder.inherit_permissions === 1 ? 'inherit-off' : 'inherit-on' })}<button type="submit" id="inherit-toggle">${folder.inherit_permissions === 1 ? 'Stop inheriting from the parent folder' : 'Inherit from the parent folder again'}</button></form>
<form method="post" action="${action}" id="grant-form"><fieldset>${hidden({ op: 'add' })}
<label>User or group <input type="text" name="authorityId" id="grant-authority" required maxlength="255" placeholder="user id, GROUP_name or GROUP_EVERYONE"></label>
<label>Role <select name="role" id="grant-role">${ROLES.map((r) => html`<option value="${r}">${r}</option>`)}</select></label>
<button type="submit" id="grant-go">Grant</button></fieldset></form></section>`;
}

function writeForms(action: string, viewer: Viewer): Safe {
  return html`<h2>Upload a file</h2>
<form method="post" action="${action}/upload" enctype="multipart/form-data" id="upload-form"><fieldset>
<input type="hidden" name="_csrf" value="${viewer.csrf}">
<input type="file" name="filedata" id="upload-file" required> <label>Comment <input type="text" name="comment" maxlength="1000"></label>
<label><input type="checkbox" name="autoRename" value="true" checked> rename if the name exists</label>
<button type="submit" id="upload-go">Upload</button></fieldset></form>
<h2>New folder</h2>
<form method="post" action="${action}/folder"><fieldset><input type="hidden" name="_csrf" value="${viewer.csrf}">
<label>Name <input type="text" name="name" required maxlength="255"></label> <button type="submit">Create</button></fieldset></form>`;
}

function versionRow(node: NodeRow, version: VersionRow, viewer: Viewer, mayUpdate: boolean): Safe {
  const base = `${API_BASE}/nodes/${encodeURIComponent(node.id)}/versions/${encodeURIComponent(version.label)}`;
  const current = node.version_label === version.label;
  return html`<tr class="version"><td>${version.label}${current ? ' (current)' : ''}</td><td>${version.comment ?? ''}</td><td>${size(version.size)}</td><td>${version.created_at.slice(0, 19).replace('T', ' ')}</td>
<td><a class="download" href="${base}/content">Download</a>${current || !mayUpdate ? html`` : html` <form class="inline" method="post" action="/share/file/${encodeURIComponent(node.id)}/revert"><input type="hidden" name="_csrf" value="${viewer.csrf}"><input type="hidden" name="version" value="${version.label}"><button type="submit">Revert to this</button></form>`}</td></tr>`;
}

export function filePage(sqlite: DatabaseSync, node: NodeRow, viewer: Viewer): Reply {
  const version = currentVersion(sqlite, node);
  const versions = listVersions(sqlite, node.id);
  const properties = Object.entries(JSON.parse(node.properties) as Record<string, string>);
  const action = `/share/file/${encodeURIComponent(node.id)}`;
  const mayUpdate = viewer.can(node).has('update');
  return page({
    title: node.name,
    user: viewer,
    body: html`${breadcrumbs(sqlite, node, viewer)}${searchForm()}
${deleteLink(sqlite, node, viewer.can(node))}<p>Type <strong>${version?.mime_type ?? ''}</strong>, ${size(version?.size ?? 0)}, version <strong id="current-version">${node.version_label ?? ''}</strong>.
<a href="${API_BASE}/nodes/${encodeURIComponent(node.id)}/content">Download current</a></p>
${properties.length > 0 ? html`<table><tbody>${properties.map(([k, v]) => html`<tr><th>${k}</th><td>${v}</td></tr>`)}</tbody></table>` : html``}
<h2>Versions</h2><table id="versions"><thead><tr><th>Version</th><th>Comment</th><th>Size</th><th>Created (UTC)</th><th></th></tr></thead>
<tbody>${versions.map((v) => versionRow(node, v, viewer, mayUpdate))}</tbody></table>
${mayUpdate ? newVersionForm(action, viewer) : html``}`,
  });
}

function newVersionForm(action: string, viewer: Viewer): Safe {
  return html`<h2>Upload a new version</h2>
<form method="post" action="${action}/version" enctype="multipart/form-data" id="version-form"><fieldset>
<input type="hidden" name="_csrf" value="${viewer.csrf}">
<input type="file" name="filedata" id="version-file" required> <label>Comment <input type="text" name="comment" id="version-comment" maxlength="1000"></label>
<label><input type="checkbox" name="majorVersion" value="true"> major version</label>
<button type="submit" id="version-go">Upload version</button></fieldset></form>`;
}

export function searchPage(sqlite: DatabaseSync, init: { query: string; rows: NodeRow[]; total: number; exact: boolean; skip: number; viewer: Viewer }): Reply {
  const next = init.skip + init.rows.length < init.total ? html`<p><a href="/share/search?q=${encodeURIComponent(init.query)}&amp;skip=${init.skip + PAGE_SIZE}">Next page</a></p>` : html``;
  return page({
    title: 'Search',
    user: init.viewer,
    body: html`${searchForm(init.query)}<p id="search-count">${init.exact ? '' : 'More than '}${init.total} ${init.total === 1 ? 'result' : 'results'} for “${init.query}”.</p>
<table id="results"><thead><tr><th>Name</th><th>Type</th><th>Size</th><th>Version</th><th>Modified (UTC)</th></tr></thead><tbody>${init.rows.map((n) => nodeRow(sqlite, n))}</tbody></table>${next}`,
  });
}
