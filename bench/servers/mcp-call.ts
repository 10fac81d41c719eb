// The kernel's MCP endpoint with one tool: each request goes through the Origin check, the
// authenticate hook, the strict JSON reader, the 2026-07-28 header checks, argument and result
// schema validation, and the JSON-RPC answer.
import { createMcpServer, createService, mcpRoutes, runService } from '../../src/kernel/index.ts';

const mcp = createMcpServer({
  info: { name: 'bench-mcp', version: '0.0.0' },
  allowedOrigins: [],
  authenticate: (context) => ({ ok: true, principal: context.headers['authorization'] === undefined ? 'anonymous' : 'caller' }),
  tools: [{
    name: 'sum',
    description: 'Adds a and b',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'], additionalProperties: false },
    outputSchema: { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] },
    handler: (args) => ({ structuredContent: { total: (args['a'] as number) + (args['b'] as number) } }),
  }],
});
const mount = mcpRoutes(mcp);

await runService(() => createService({ name: 'bench-mcp', version: '0.0.0', routes: mount.routes, authenticators: mount.authenticators }));
