// mcpRoutes(): the MCP endpoint as rows of a service's route table (POST, GET and DELETE on one
// path) plus the authenticator they name, so a service mounts MCP the way it mounts any route.

import type { Authenticator, Route } from '../http/route.ts';
import type { McpServer } from './server.ts';

export interface McpRoutesOptions {
  /** The MCP endpoint; `/mcp` by default. */
  path?: string;
  /** The authenticator name the routes use; add `authenticators` to the service under it. `mcp` by default. */
  auth?: string;
  listener?: string;
  tags?: readonly string[];
}

export interface McpMount {
  routes: Route[];
  authenticators: Record<string, Authenticator>;
}

/** A JSON-RPC message, as the OpenAPI export describes the POST body (the server checks it itself). */
const MESSAGE_SCHEMA = {
  type: 'object',
  required: ['jsonrpc', 'method'],
  properties: { jsonrpc: { const: '2.0' }, id: { type: ['string', 'number'] }, method: { type: 'string' }, params: { type: 'object' } },
};

/**
 * @example
 * const mcp = mcpRoutes(createMcpServer({ info, tools, allowedOrigins: [], authenticate }));
 * createService({ name: 'erp', version, routes: [...routes, ...mcp.routes], authenticators: { ...auth, ...mcp.authenticators } });
 */
/**
 * MCP refuses with a JSON-RPC error message as application/json (the transport spec), not with
 * a problem body: without this the export would describe its 4xx answers as problem+json.
 */
const JSON_RPC_ERROR = {
  contentType: 'application/json',
  schema: {
    type: 'object',
    required: ['jsonrpc', 'error'],
    properties: {
      jsonrpc: { const: '2.0' },
      id: { type: ['string', 'number'] },
      error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} } },
    },
  },
} as const;

export function mcpRoutes(server: McpServer, options: McpRoutesOptions = {}): McpMount {
  const path = options.path ?? '/mcp';
  const auth = options.auth ?? 'mcp';
  const common = { path, auth, tags: options.tags ?? ['mcp'], etag: false, ...(options.listener !== undefined && { listener: options.listener }) };
  const routes: Route[] = [
    {
      ...common,
      method: 'POST',
      summary: 'MCP endpoint (Streamable HTTP): one JSON-RPC request or notification per POST',
      operationId: 'mcpPost',
      request: { raw: true, maxBytes: server.maxBodyBytes, schema: MESSAGE_SCHEMA },
      responses: [
        { status: 200, description: 'A JSON-RPC response (result or error)' },
        { status: 202, description: 'Notification accepted, no body' },
        { status: 400, description: 'Parse error, invalid request, session or version header missing or wrong, header mismatch (JSON-RPC error body)', ...JSON_RPC_ERROR },
        { status: 403, description: 'Origin not allowed', ...JSON_RPC_ERROR },
        { status: 404, description: 'Session not found, or (2026-07-28) method not found', ...JSON_RPC_ERROR },
        { status: 406, description: 'Accept does not admit application/json and text/event-stream', ...JSON_RPC_ERROR },
      ],
      handler: (context) => server.handlePost(context),
    },
    {
      ...common,
      method: 'GET',
      summary: 'MCP endpoint: no server-initiated SSE stream is offered (405)',
      operationId: 'mcpGet',
      responses: [{ status: 405, description: 'This server offers no SSE stream', ...JSON_RPC_ERROR }],
      handler: (context) => server.handleGet(context),
    },
    {
      ...common,
      method: 'DELETE',
      summary: 'MCP endpoint: end the session named by Mcp-Session-Id',
      operationId: 'mcpDelete',
      responses: [
        { status: 204, description: 'Session ended' },
        { status: 400, description: 'Mcp-Session-Id missing or invalid', ...JSON_RPC_ERROR },
        { status: 404, description: 'Session not found', ...JSON_RPC_ERROR },
        { status: 405, description: 'Protocol 2026-07-28 has no sessions', ...JSON_RPC_ERROR },
      ],
      handler: (context) => server.handleDelete(context),
    },
  ];
  return { routes, authenticators: { [auth]: server.authenticate } };
}
