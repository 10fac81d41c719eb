// What every repository API handler shares: the dependencies, the authenticated principal,
// turning a RepositoryError (or a body the kernel refused) into Alfresco's error body, and a
// strict JSON body reader that answers in Alfresco's shape.

import { compileSchema, isAirlockError, parseJsonBody } from '../kernel/index.ts';
import type { Handler, JsonSchema, Logger, ReadPool, Reply, RequestContext, Store } from '../kernel/index.ts';
import { alfrescoError, readPaging, withLogId } from './alfresco-shapes.ts';
import type { Paging } from './alfresco-shapes.ts';
import { chooseRange } from './byte-range.ts';
import type { BlobStore } from './blob-store.ts';
import type { ContentConfig } from './config.ts';
import type { NodeRow, UserRef } from './node-entry.ts';
import type { UploadDeps } from './upload.ts';
import { authoritiesOf, readableBy, requirePermission } from './permissions.ts';
import type { Permission, PermissionPolicy } from './permissions.ts';
import type { Actor } from './repository.ts';
import { RepositoryError } from './repository-error.ts';

export const API_BASE = '/repository/api/-default-/public/repository/versions/1';
/**
 * The same API at the path Alfresco's own JavaScript client builds: @alfresco/js-api fixes the
 * service segment "alfresco" (contextRoot "repository" gives this base), so it works unchanged.
 */
export const JS_API_BASE = '/repository/api/-default-/public/alfresco/versions/1';
export const SEARCH_PATH = '/repository/api/-default-/public/search/versions/1/search';

export interface ContentDeps {
  store: Store;
  /** Read-only connections off the event loop for searches and folder listings (issue 24). */
  reads: ReadPool;
  blobs: BlobStore;
  config: ContentConfig;
  log: Logger;
  policy: PermissionPolicy;
}

/** What the upload code takes of the service's dependencies. */
export function uploadDeps(deps: ContentDeps): UploadDeps {
  return { store: deps.store, blobs: deps.blobs, maxUploadBytes: deps.config.maxUploadBytes, indexTextBytes: deps.config.indexTextBytes };
}

/** Who the bridge admitted: the OIDC subject and groups, the session's CSRF token when it came by session, the token's scopes when by bearer. */
export interface ContentPrincipal extends UserRef {
  via: 'session' | 'bearer';
  groups: string[];
  sessionId?: string;
  csrf?: string;
  /** A bearer token's scopes (`scope` or `scp`); a session has none and needs none. */
  scopes?: string[];
}

const WRITES: ReadonlySet<Permission> = new Set(['create', 'update', 'delete', 'changePermissions']);

/**
 * Refuses a write by a bearer token without the write scope (RFC 6750 insufficient_scope). A
 * session is a person at the share UI or Alfresco's own web clients: scopes do not apply to it.
 */
export function requireWriteScope(deps: ContentDeps, principal: ContentPrincipal): void {
  if (principal.via !== 'bearer' || principal.scopes?.includes(deps.config.writeScope)) return;
  throw new RepositoryError(403, `The bearer token lacks the scope "${deps.config.writeScope}" that every write needs`, {
    'www-authenticate': `Bearer realm="content", error="insufficient_scope", scope="${deps.config.writeScope}"`,
  });
}

/** The request's principal as the repository's Actor: each permission checked, each write also against the token's scope. */
export function actorOf(deps: ContentDeps, context: RequestContext): Actor & ContentPrincipal {
  const principal = principalOf(context);
  return {
    ...principal,
    require(sqlite, node, permission) {
      if (WRITES.has(permission)) requireWriteScope(deps, principal);
      requirePermission(sqlite, deps.policy, node, principal, permission);
    },
  };
}

/** The viewer of a folder's listing: its id, its authorities, and whether the folder passes read on to the children that inherit (permissions.ts). */
export function listingViewer(deps: ContentDeps, principal: ContentPrincipal, folder: NodeRow): { id: string; authorities: string[]; inheritsRead: boolean } {
  return { id: principal.id, authorities: [...authoritiesOf(principal)], inheritsRead: readableBy(deps.store.sqlite, deps.policy, principal).passesOn(folder) };
}

export function principalOf(context: RequestContext): ContentPrincipal {
  const principal = context.principal as ContentPrincipal | undefined;
  if (!principal) throw new TypeError('Repository handler reached without an admitted principal');
  return principal;
}

/** A handler whose RepositoryErrors become Alfresco error bodies. */
export function alfrescoHandler(handler: Handler): Handler {
  return async (context) => {
    try {
      return withLogId(await handler(context), context.requestId);
    } catch (error) {
      logAborted(context, error);
      const reply = errorReply(error);
      if (reply) return withLogId(reply, context.requestId);
      throw error;
    }
  };
}

/** A request whose client left mid-body is logged as that (the kernel then hangs up without a reply or a 5xx record). */
export function logAborted(context: RequestContext, error: unknown): void {
  if (isAirlockError(error, 'client_aborted')) context.log.info('request aborted by the client', { method: context.method, path: context.path, requestId: context.requestId, reason: error.message });
}

/** The Alfresco reply for a known client mistake; undefined for anything else (a bug: 500). */
export function errorReply(error: unknown): Reply | undefined {
  // The store wraps what a write closure throws; the repository's own refusal is the cause.
  if (isAirlockError(error, 'store_write')) {
    if (error.cause instanceof RepositoryError) return alfrescoError(error.cause.status, error.cause.message, error.cause.headers);
    if (/UNIQUE constraint failed: nodes\.parent_id, nodes\.name/.test(error.message)) return alfrescoError(409, 'Duplicate child name not allowed');
  }
  if (error instanceof RepositoryError) return alfrescoError(error.status, error.message, error.headers);
  if (isAirlockError(error, 'malformed_json') || isAirlockError(error, 'too_deep')) return alfrescoError(400, error.message);
  if (isAirlockError(error, 'body_too_large')) return alfrescoError(413, error.message);
  return undefined;
}

/** Parses the raw body as strict JSON and checks it against `schema`; a RepositoryError(400) names the first problems. */
export function jsonBodyReader<T>(schema: JsonSchema): (context: RequestContext) => T {
  const check = compileSchema(schema).validate;
  return (context) => {
    if (!context.rawBody || context.rawBody.length === 0) throw new RepositoryError(400, 'A JSON body is required');
    const value = parseJsonBody(context.rawBody);
    const { valid, errors } = check(value);
    if (!valid) throw new RepositoryError(400, `Invalid request body: ${errors.slice(0, 3).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ')}`);
    return value as T;
  };
}

/** skipCount and maxItems (readPaging); a RepositoryError(400) names the invalid one. */
export function pagingOf(skip: unknown, max: unknown): Paging {
  const paging = readPaging(skip, max);
  if (typeof paging === 'string') throw new RepositoryError(400, paging);
  return paging;
}

/** Reads a boolean query parameter ("true"/"false"). */
export function queryFlag(context: RequestContext, name: string, fallback: boolean): boolean {
  const value = context.query.get(name);
  if (value === null) return fallback;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new RepositoryError(400, `Invalid query parameter ${name} "${value}": use true or false`);
}

/** A content download: streamed from the blob store, ETag = the content's SHA-256; a single byte range gives 206 (byte-range.ts). */
export function contentReply(deps: ContentDeps, content: { sha256: string; size: number; mimeType: string; name: string }, attachment: boolean, request?: RequestContext): Reply {
  const disposition = contentDisposition(content.name, attachment);
  const etag = `"${content.sha256}"`;
  const headers = { 'etag': etag, 'accept-ranges': 'bytes', 'content-disposition': disposition, 'content-security-policy': "default-src 'none'; sandbox" };
  const range = request ? chooseRange({ range: request.headers['range'], ifRange: request.headers['if-range'] }, content.size, etag) : { kind: 'whole' as const };
  if (range.kind === 'unsatisfiable') {
    return alfrescoError(416, `Range Not Satisfiable: the content has ${content.size} bytes`, { 'content-range': `bytes */${content.size}` });
  }
  if (range.kind === 'partial') {
    return {
      status: 206,
      contentType: content.mimeType,
      headers: { ...headers, 'content-range': `bytes ${range.start}-${range.end}/${content.size}` },
      stream: { open: () => deps.blobs.open(content.sha256, range), length: range.end - range.start + 1 },
    };
  }
  return {
    status: 200,
    contentType: content.mimeType,
    headers,
    stream: { open: () => deps.blobs.open(content.sha256), length: content.size },
  };
}

/** Content-Disposition naming the file in UTF-8 (RFC 6266, RFC 8187). */
export function contentDisposition(name: string, attachment: boolean): string {
  return `${attachment ? 'attachment' : 'inline'}; filename*=UTF-8''${extValue(name)}`;
}

/** RFC 8187 ext-value text: encodeURIComponent leaves ' ( ) * ! as they are, and attr-char admits only "!" of them. */
function extValue(text: string): string {
  return encodeURIComponent(text).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** A stored file's bytes, in the file's own media type, whole or a byte range. */
export const FILE_BYTES = [{ status: 200, description: 'The bytes, in the file\'s own media type', contentType: '*/*' }, { status: 206, description: 'The requested byte range', contentType: '*/*' }];
