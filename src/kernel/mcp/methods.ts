// The MCP methods this server answers, once the transport has settled the era, the version and
// (for the session era) the session: ping, tools/list with cursors, tools/call, and
// server/discover. `initialize` opens a session and lives in session-era.ts.

import type { Logger } from '../log.ts';
import { isJsonObject, type JsonObject, type JsonRpcError } from './jsonrpc.ts';
import { INVALID_PARAMS, MCP_PROTOCOL_VERSIONS, META_SERVER_INFO, type McpEra } from './protocol.ts';
import { callTool, type CompiledTool } from './tool.ts';

export interface McpServerInfo {
  name: string;
  version: string;
  title?: string;
}

/** What the methods read: the server's identity, its compiled tools and its list settings. */
export interface McpCatalog {
  info: McpServerInfo;
  instructions: string | undefined;
  tools: readonly CompiledTool[];
  toolsByName: ReadonlyMap<string, CompiledTool>;
  /** Tools per tools/list page. */
  pageSize: number;
  /** ttlMs of cacheable results under 2026-07-28 (server/utilities/caching). */
  listTtlMs: number;
}

export interface MethodCall {
  era: McpEra;
  protocolVersion: string;
  method: string;
  params: JsonObject;
  principal: unknown;
  requestId: string;
  sessionId: string | undefined;
  log: Logger;
}

export type MethodOutcome = { result: JsonObject } | { error: JsonRpcError } | { unknown: true };

/** Capabilities advertised by initialize and server/discover: tools only, a list that never changes. */
export const SERVER_CAPABILITIES: JsonObject = { tools: { listChanged: false } };

const SESSION_METHODS = new Set(['ping', 'tools/list', 'tools/call']);
const STATELESS_METHODS = new Set(['server/discover', 'tools/list', 'tools/call']);

/** Answers one request; `unknown` when the method does not exist in the call's era. */
export async function runMethod(catalog: McpCatalog, call: MethodCall): Promise<MethodOutcome> {
  const known = call.era === 'session' ? SESSION_METHODS : STATELESS_METHODS;
  if (!known.has(call.method)) return { unknown: true };
  const outcome = await answer(catalog, call);
  if (!('result' in outcome) || call.era === 'session') return outcome;
  // 2026-07-28: every result says it is complete and who answered (basic/index "_meta").
  const meta = isJsonObject(outcome.result['_meta']) ? outcome.result['_meta'] : {};
  return { result: { resultType: 'complete', ...outcome.result, _meta: { ...meta, [META_SERVER_INFO]: catalog.info } } };
}

async function answer(catalog: McpCatalog, call: MethodCall): Promise<MethodOutcome> {
  switch (call.method) {
    case 'ping':
      return { result: {} };
    case 'server/discover':
      return {
        result: {
          supportedVersions: MCP_PROTOCOL_VERSIONS,
          capabilities: SERVER_CAPABILITIES,
          ...(catalog.instructions !== undefined && { instructions: catalog.instructions }),
          ...cacheHints(catalog),
        },
      };
    case 'tools/list':
      return listTools(catalog, call);
    case 'tools/call':
      return runTool(catalog, call);
    default:
      return { unknown: true };
  }
}

function listTools(catalog: McpCatalog, call: MethodCall): MethodOutcome {
  const cursor = call.params['cursor'];
  let start = 0;
  if (cursor !== undefined) {
    const decoded = typeof cursor === 'string' ? decodeCursor(cursor, catalog.tools.length) : undefined;
    if (decoded === undefined) return invalidParams('Invalid cursor: send the nextCursor of a previous tools/list result, or none for the first page');
    start = decoded;
  }
  const end = Math.min(start + catalog.pageSize, catalog.tools.length);
  const page = catalog.tools.slice(start, end).map((t) => t.descriptor);
  return {
    result: {
      tools: page,
      ...(end < catalog.tools.length && { nextCursor: encodeCursor(end) }),
      ...(call.era === 'stateless' && cacheHints(catalog)),
    },
  };
}

/** Cursors are opaque to clients; ours is a versioned offset, stable because the tool list is fixed. */
function encodeCursor(offset: number): string {
  return Buffer.from(`tools:v1:${offset}`, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string, total: number): number | undefined {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(cursor)) return undefined;
  const match = /^tools:v1:(0|[1-9][0-9]{0,8})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) return undefined;
  const offset = Number(match[1]);
  return offset > 0 && offset < total ? offset : undefined;
}

async function runTool(catalog: McpCatalog, call: MethodCall): Promise<MethodOutcome> {
  const name = call.params['name'];
  if (typeof name !== 'string') return invalidParams('tools/call needs params.name, the name of a tool from tools/list');
  const args = call.params['arguments'] ?? {};
  if (!isJsonObject(args)) return invalidParams('tools/call params.arguments must be an object when present');
  const compiled = catalog.toolsByName.get(name);
  if (compiled === undefined) return invalidParams(`Unknown tool: "${name}"`);
  const result = await callTool(compiled, args, {
    principal: call.principal,
    requestId: call.requestId,
    protocolVersion: call.protocolVersion,
    sessionId: call.sessionId,
    log: call.log,
  });
  return { result };
}

function cacheHints(catalog: McpCatalog): JsonObject {
  // Private: answers sit behind the endpoint's authentication, so shared caches must not keep them.
  return { ttlMs: catalog.listTtlMs, cacheScope: 'private' };
}

function invalidParams(message: string): MethodOutcome {
  return { error: { code: INVALID_PARAMS, message } };
}
