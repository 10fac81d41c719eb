// The front door of src/kernel/mcp: an MCP server over Streamable HTTP, mounted as kernel routes.

export { createMcpServer } from './server.ts';
export type { McpServer, McpServerOptions } from './server.ts';
export { mcpRoutes } from './routes.ts';
export type { McpMount, McpRoutesOptions } from './routes.ts';
export type { McpTool, McpToolCall, McpToolOutcome, McpToolAnnotations } from './tool.ts';
export type { McpServerInfo } from './methods.ts';
export { MCP_PROTOCOL_VERSIONS, SESSION_PROTOCOL_VERSIONS, STATELESS_PROTOCOL_VERSIONS } from './protocol.ts';
