// MCP protocol constants: the versions this server speaks, the era each belongs to, the
// reserved `_meta` keys of revision 2026-07-28, and the JSON-RPC error codes we emit.

/**
 * Legacy-era revisions: a session opened by `initialize` (2025-11-25 transports, section
 * "Session Management"). First is preferred: an `initialize` asking for a revision we do not
 * speak is answered with it (2025-11-25 lifecycle, "Version Negotiation").
 */
export const SESSION_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18'] as const;

/** Modern-era revisions: stateless, the version carried in every request's `_meta`. */
export const STATELESS_PROTOCOL_VERSIONS = ['2026-07-28'] as const;

/** Every revision, newest first, as `server/discover` and UnsupportedProtocolVersion list them. */
export const MCP_PROTOCOL_VERSIONS: readonly string[] = [...STATELESS_PROTOCOL_VERSIONS, ...SESSION_PROTOCOL_VERSIONS];

export type McpEra = 'session' | 'stateless';

/** The era a revision belongs to, or undefined for a revision this server does not speak. */
export function eraOf(version: string): McpEra | undefined {
  if ((STATELESS_PROTOCOL_VERSIONS as readonly string[]).includes(version)) return 'stateless';
  if ((SESSION_PROTOCOL_VERSIONS as readonly string[]).includes(version)) return 'session';
  return undefined;
}

/** Reserved `_meta` keys (2026-07-28 basic/index, "Per-request protocol fields"). */
export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

/** JSON-RPC 2.0 codes, and the codes MCP 2026-07-28 allocates (-32020 to -32022). */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
export const HEADER_MISMATCH = -32020;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/** HTTP header names (lower case, as node:http presents them). */
export const SESSION_HEADER = 'mcp-session-id';
export const VERSION_HEADER = 'mcp-protocol-version';
export const METHOD_HEADER = 'mcp-method';
export const NAME_HEADER = 'mcp-name';
