// createMcpServer(): an MCP server over the Streamable HTTP transport, as data (identity, tools,
// allowed origins, an authenticate hook) plus the three handlers of the MCP endpoint. A request
// is sorted by era the way a dual-era server must (2026-07-28 basic/versioning, "Backward
// Compatibility"): a `_meta` version claim is served statelessly, anything else by session.

import { isAirlockError } from '../errors.ts';
import { DEFAULT_BODY_LIMIT, parseJsonBody } from '../http/body.ts';
import type { AuthOutcome, Authenticator, Reply, RequestContext } from '../http/route.ts';
import { classifyMessage, invalidRequest, isJsonObject, refusal, rpcError, rpcReply } from './jsonrpc.ts';
import type { McpCatalog, McpServerInfo } from './methods.ts';
import { createOriginCheck } from './origin.ts';
import { INVALID_PARAMS, INVALID_REQUEST, MCP_PROTOCOL_VERSIONS, META_PROTOCOL_VERSION, PARSE_ERROR, SESSION_HEADER, UNSUPPORTED_PROTOCOL_VERSION, VERSION_HEADER, eraOf } from './protocol.ts';
import { acceptsJsonAndEventStream, singleHeader } from './request-headers.ts';
import { handleSessionMessage } from './session-era.ts';
import { createSessionStore, principalKey, type SessionStore } from './session-store.ts';
import { handleStatelessMessage } from './stateless-era.ts';
import { compileTools, type McpTool } from './tool.ts';

export interface McpServerOptions {
  info: McpServerInfo;
  /** Guidance for the model, sent by initialize and server/discover. */
  instructions?: string;
  tools: readonly McpTool[];
  /** Origins a browser may call from; a request with any other Origin gets 403. May be empty. */
  allowedOrigins: readonly string[];
  /**
   * Admits a request (after the Origin check, before the body is read) or answers it. Required:
   * an open endpoint says so with `() => ({ ok: true })`.
   */
  authenticate: Authenticator;
  /** Tools per tools/list page; 50 by default. */
  pageSize?: number;
  /** ttlMs of cacheable 2026-07-28 results; 60 s by default. */
  listTtlMs?: number;
  /** Idle time after which a session ends; 30 min by default. */
  sessionIdleMs?: number;
  /** Live sessions kept at most (the least recently used goes first); 1000 by default. */
  maxSessions?: number;
  /** Live sessions kept at most per principal (its least recently used goes first); 100 by default. */
  maxSessionsPerPrincipal?: number;
  /** POST body limit in bytes; the kernel's 1 MiB by default. */
  maxBodyBytes?: number;
  now?: () => number;
}

export interface McpServer {
  readonly catalog: McpCatalog;
  readonly sessions: SessionStore;
  readonly maxBodyBytes: number;
  /** The Origin check, then the authenticate hook: the authenticator the MCP routes name. */
  authenticate: Authenticator;
  handlePost(context: RequestContext): Promise<Reply>;
  handleGet(context: RequestContext): Reply;
  handleDelete(context: RequestContext): Reply;
}

/** Builds an MCP server; throws TypeError for a bad tool table or origin list. */
export function createMcpServer(options: McpServerOptions): McpServer {
  const tools = compileTools(options.tools);
  const pageSize = options.pageSize ?? 50;
  if (!Number.isInteger(pageSize) || pageSize < 1) throw new RangeError(`Option pageSize must be a positive integer, got ${pageSize}`);
  const catalog: McpCatalog = {
    info: options.info,
    instructions: options.instructions,
    tools,
    toolsByName: new Map(tools.map((t) => [t.tool.name, t])),
    pageSize,
    listTtlMs: options.listTtlMs ?? 60_000,
  };
  const sessions = createSessionStore({ idleMs: options.sessionIdleMs ?? 30 * 60_000, maxSessions: options.maxSessions ?? 1000, maxPerPrincipal: options.maxSessionsPerPrincipal ?? 100, now: options.now ?? Date.now });
  const originAllowed = createOriginCheck(options.allowedOrigins);
  return {
    catalog,
    sessions,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_BODY_LIMIT,
    async authenticate(context): Promise<AuthOutcome> {
      if (!originAllowed(context.headers['origin'])) {
        return { ok: false, reply: refusal(403, INVALID_REQUEST, 'Forbidden: this Origin may not call the MCP endpoint') };
      }
      return options.authenticate(context);
    },
    handlePost: (context) => handlePost(catalog, sessions, context),
    handleGet: () => refusal(405, INVALID_REQUEST, 'Method not allowed: this server offers no SSE stream; POST messages instead', { allow: 'POST, DELETE' }),
    handleDelete: (context) => handleDelete(sessions, context),
  };
}

async function handlePost(catalog: McpCatalog, sessions: SessionStore, context: RequestContext): Promise<Reply> {
  if (!acceptsJsonAndEventStream(singleHeader(context.headers, 'accept') ?? undefined)) {
    return refusal(406, INVALID_REQUEST, 'Not acceptable: send "Accept: application/json, text/event-stream"');
  }
  let body: unknown;
  try {
    body = parseJsonBody(context.rawBody ?? Buffer.alloc(0));
  } catch (error) {
    if (isAirlockError(error, 'malformed_json') || isAirlockError(error, 'too_deep')) return refusal(400, PARSE_ERROR, `Parse error: ${error.message}`);
    throw error;
  }
  const message = classifyMessage(body);
  if (message.kind === 'invalid') return invalidRequest(message.id, message.reason);
  if (message.kind === 'response') return invalidRequest(undefined, 'this server sends no requests, so it accepts no responses');
  const id = message.kind === 'request' ? message.id : undefined;
  const meta = message.params['_meta'];
  const claim = isJsonObject(meta) && META_PROTOCOL_VERSION in meta ? meta[META_PROTOCOL_VERSION] : undefined;
  const header = singleHeader(context.headers, VERSION_HEADER);
  if (claim !== undefined) {
    if (typeof claim !== 'string') return rpcReply(400, rpcError(id, { code: INVALID_PARAMS, message: `Invalid params: _meta["${META_PROTOCOL_VERSION}"] must be a string` }));
    if (eraOf(claim) !== 'stateless') return unsupportedVersion(id, claim);
    return handleStatelessMessage(catalog, message, claim, context);
  }
  if (typeof header === 'string') {
    const era = eraOf(header);
    if (era === undefined) return unsupportedVersion(id, header);
    if (era === 'stateless') {
      if (message.kind === 'notification') return handleStatelessMessage(catalog, message, header, context);
      return rpcReply(400, rpcError(id, { code: INVALID_PARAMS, message: `Invalid params: a ${header} request must carry _meta["${META_PROTOCOL_VERSION}"]` }));
    }
  }
  return handleSessionMessage(catalog, sessions, message, context);
}

function unsupportedVersion(id: string | number | undefined, requested: string): Reply {
  return rpcReply(400, rpcError(id, {
    code: UNSUPPORTED_PROTOCOL_VERSION,
    message: `Unsupported protocol version "${requested}": use one of ${MCP_PROTOCOL_VERSIONS.join(', ')}`,
    data: { supported: MCP_PROTOCOL_VERSIONS, requested },
  }));
}

/** DELETE ends a session (2025-11-25); the stateless revision has none, so it gets 405 there. */
function handleDelete(sessions: SessionStore, context: RequestContext): Reply {
  const id = singleHeader(context.headers, SESSION_HEADER);
  if (id === undefined) {
    const version = singleHeader(context.headers, VERSION_HEADER);
    if (typeof version === 'string' && eraOf(version) === 'stateless') {
      return refusal(405, INVALID_REQUEST, `Method not allowed: protocol ${version} has no sessions to end`, { allow: 'POST' });
    }
    return refusal(400, INVALID_REQUEST, 'Missing Mcp-Session-Id: name the session to end');
  }
  if (id === null) return refusal(400, INVALID_REQUEST, 'Invalid Mcp-Session-Id: send it once');
  if (!sessions.end(id, principalKey(context.principal))) return refusal(404, INVALID_REQUEST, 'Session not found: it ended or never existed');
  return { status: 204 };
}
