// A POSTed message under the stateless revision 2026-07-28: no session, the version in every
// request's `_meta`, and the Mcp-Method and Mcp-Name headers mirroring the body
// (basic/transports/streamable-http.mdx, "Request Metadata" and "Server Validation"; basic/index,
// "Per-request protocol fields").

import type { Reply, RequestContext } from '../http/route.ts';
import { isJsonObject, rpcError, rpcReply, rpcResult, type JsonObject, type JsonRpcMessage } from './jsonrpc.ts';
import { runMethod, type McpCatalog } from './methods.ts';
import { HEADER_MISMATCH, INVALID_PARAMS, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, METHOD_HEADER, METHOD_NOT_FOUND, NAME_HEADER, VERSION_HEADER } from './protocol.ts';
import { decodeHeaderValue, singleHeader } from './request-headers.ts';

type Message = Extract<JsonRpcMessage, { kind: 'request' | 'notification' }>;

/** Methods whose Mcp-Name header mirrors params.name or params.uri. */
const NAMED = new Map([['tools/call', 'name'], ['resources/read', 'uri'], ['prompts/get', 'name']]);

/** `version` is the request's `_meta` claim (or, for a notification without one, the header's). */
export async function handleStatelessMessage(catalog: McpCatalog, message: Message, version: string, context: RequestContext): Promise<Reply> {
  const id = message.kind === 'request' ? message.id : undefined;
  const mismatch = checkHeaders(message, version, context);
  if (mismatch !== undefined) return rpcReply(400, rpcError(id, { code: HEADER_MISMATCH, message: `Header mismatch: ${mismatch}` }));
  // The spec defines no client notifications over HTTP; one that arrives is accepted and ignored.
  if (message.kind === 'notification') return { status: 202 };
  const invalid = checkMeta(message.params);
  if (invalid !== undefined) return rpcReply(400, rpcError(message.id, { code: INVALID_PARAMS, message: invalid }));
  const outcome = await runMethod(catalog, {
    era: 'stateless',
    protocolVersion: version,
    method: message.method,
    params: message.params,
    principal: context.principal,
    requestId: context.requestId,
    sessionId: undefined,
    log: context.log,
  });
  // "If the server does not implement the requested RPC method, it MUST respond with 404".
  if ('unknown' in outcome) return rpcReply(404, rpcError(message.id, { code: METHOD_NOT_FOUND, message: `Method not found: "${message.method}"` }));
  if ('error' in outcome) return rpcReply(200, rpcError(message.id, outcome.error));
  return rpcReply(200, rpcResult(message.id, outcome.result));
}

/** What disagrees between the headers and the body, or undefined. */
function checkHeaders(message: Message, version: string, context: RequestContext): string | undefined {
  const versionHeader = singleHeader(context.headers, VERSION_HEADER);
  if (versionHeader === undefined || versionHeader === null) return 'send MCP-Protocol-Version once, equal to _meta["io.modelcontextprotocol/protocolVersion"]';
  if (versionHeader !== version) return `MCP-Protocol-Version "${versionHeader}" does not match the body's protocol version "${version}"`;
  const methodHeader = singleHeader(context.headers, METHOD_HEADER);
  if (methodHeader === null) return 'send Mcp-Method once';
  if (methodHeader === undefined) {
    if (message.kind === 'request') return `missing Mcp-Method: send "Mcp-Method: ${message.method}"`;
  } else if (methodHeader !== message.method) return `Mcp-Method "${methodHeader}" does not match the body's method "${message.method}"`;
  const field = NAMED.get(message.method);
  if (field === undefined || message.kind !== 'request') return undefined;
  const nameHeader = singleHeader(context.headers, NAME_HEADER);
  const bodyName = message.params[field];
  if (nameHeader === undefined || nameHeader === null) return `send Mcp-Name once with ${message.method}, equal to params.${field}`;
  const decoded = decodeHeaderValue(nameHeader);
  if (decoded === undefined) return 'Mcp-Name holds a malformed =?base64?...?= value';
  if (decoded !== bodyName) return `Mcp-Name does not match the body's params.${field}`;
  return undefined;
}

/** The required per-request `_meta` fields beyond the version, or a message naming what is missing. */
function checkMeta(params: JsonObject): string | undefined {
  const meta = params['_meta'] as JsonObject;
  if (!isJsonObject(meta[META_CLIENT_CAPABILITIES])) return `Invalid params: _meta["${META_CLIENT_CAPABILITIES}"] must be an object`;
  const info = meta[META_CLIENT_INFO];
  if (info !== undefined && !isJsonObject(info)) return `Invalid params: _meta["${META_CLIENT_INFO}"] must be an object when present`;
  return undefined;
}
