// A POSTed message under a session-era revision (2025-11-25 transports and lifecycle):
// `initialize` negotiates the version and mints Mcp-Session-Id; every later message must carry
// that id (400 without, 404 for an unknown or ended one) and, when it sends MCP-Protocol-Version,
// the negotiated version (400 otherwise).

import type { Reply, RequestContext } from '../http/route.ts';
import { isJsonObject, refusal, rpcError, rpcReply, rpcResult, type JsonObject, type JsonRpcMessage, type RequestId } from './jsonrpc.ts';
import { runMethod, SERVER_CAPABILITIES, type McpCatalog } from './methods.ts';
import { INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, SESSION_HEADER, SESSION_PROTOCOL_VERSIONS, VERSION_HEADER, eraOf } from './protocol.ts';
import { singleHeader } from './request-headers.ts';
import { principalKey, type SessionStore } from './session-store.ts';

type Message = Extract<JsonRpcMessage, { kind: 'request' | 'notification' }>;

const SESSION_ID = /^[\x21-\x7e]{1,256}$/;

export async function handleSessionMessage(catalog: McpCatalog, sessions: SessionStore, message: Message, context: RequestContext): Promise<Reply> {
  const sessionHeader = singleHeader(context.headers, SESSION_HEADER);
  const versionHeader = singleHeader(context.headers, VERSION_HEADER);
  if (versionHeader === null) return refusal(400, INVALID_REQUEST, 'Send MCP-Protocol-Version once');
  if (message.kind === 'request' && message.method === 'initialize') {
    if (sessionHeader !== undefined) return refusal(400, INVALID_REQUEST, 'initialize opens a new session: send it without Mcp-Session-Id');
    return initialize(catalog, sessions, message.id, message.params, context);
  }
  if (sessionHeader === undefined) return refusal(400, INVALID_REQUEST, 'Missing Mcp-Session-Id: send the id that the initialize response carried, or initialize first');
  if (sessionHeader === null || !SESSION_ID.test(sessionHeader)) return refusal(400, INVALID_REQUEST, 'Invalid Mcp-Session-Id: send the one id of 1 to 256 visible ASCII characters that initialize returned');
  const session = sessions.find(sessionHeader, principalKey(context.principal));
  if (session === undefined) return refusal(404, INVALID_REQUEST, 'Session not found: it ended or never existed; send a new initialize without Mcp-Session-Id');
  // Without the header, the version negotiated at initialize applies (transports, "Protocol Version Header").
  if (versionHeader !== undefined && versionHeader !== session.protocolVersion) {
    return refusal(400, INVALID_REQUEST, `MCP-Protocol-Version "${versionHeader}" is not this session's negotiated version "${session.protocolVersion}"`);
  }
  if (message.kind === 'notification') {
    if (message.method === 'notifications/initialized') session.initialized = true;
    // Other notifications (cancelled, progress, roots changes) concern nothing this server keeps.
    return { status: 202 };
  }
  const outcome = await runMethod(catalog, {
    era: 'session',
    protocolVersion: session.protocolVersion,
    method: message.method,
    params: message.params,
    principal: context.principal,
    requestId: context.requestId,
    sessionId: session.id,
    log: context.log,
  });
  if ('unknown' in outcome) return rpcReply(200, rpcError(message.id, { code: METHOD_NOT_FOUND, message: `Method not found: "${message.method}"` }));
  if ('error' in outcome) return rpcReply(200, rpcError(message.id, outcome.error));
  return rpcReply(200, rpcResult(message.id, outcome.result));
}

function initialize(catalog: McpCatalog, sessions: SessionStore, id: RequestId, params: JsonObject, context: RequestContext): Reply {
  const requested = params['protocolVersion'];
  const clientInfo = params['clientInfo'];
  const problem =
    typeof requested !== 'string' ? 'params.protocolVersion must be a string'
    : !isJsonObject(params['capabilities']) ? 'params.capabilities must be an object'
    : !isJsonObject(clientInfo) || typeof clientInfo['name'] !== 'string' || typeof clientInfo['version'] !== 'string' ? 'params.clientInfo must be an object with string "name" and "version"'
    : undefined;
  if (problem !== undefined) return rpcReply(200, rpcError(id, { code: INVALID_PARAMS, message: `Invalid initialize: ${problem}` }));
  // Lifecycle, "Version Negotiation": the requested version when we speak it, else our latest session-era one.
  const protocolVersion = eraOf(requested as string) === 'session' ? (requested as string) : SESSION_PROTOCOL_VERSIONS[0];
  const session = sessions.open({ protocolVersion, principalKey: principalKey(context.principal), clientInfo });
  const result: JsonObject = {
    protocolVersion,
    capabilities: SERVER_CAPABILITIES,
    serverInfo: catalog.info,
    ...(catalog.instructions !== undefined && { instructions: catalog.instructions }),
  };
  return rpcReply(200, rpcResult(id, result), { 'mcp-session-id': session.id });
}
