// A kernel service that mounts the MCP routes with a tool table made for tests: eight tools
// (three pages of three), one with an output schema, one that refuses, one that throws, one that
// breaks its own output schema. Bearer tokens: "alice-token" and "bob-token".

import { createLogger, createMcpServer, createService, json, mcpRoutes, problem } from '../../src/kernel/index.ts';
import type { McpServer, McpTool, Service } from '../../src/kernel/index.ts';

export const ALLOWED_ORIGIN = 'http://127.0.0.1:18030';

const sumTool: McpTool = {
  name: 'sum',
  title: 'Add two numbers',
  description: 'Adds a and b',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'], additionalProperties: false },
  outputSchema: { type: 'object', properties: { total: { type: 'number' } }, required: ['total'], additionalProperties: false },
  annotations: { readOnlyHint: true },
  handler: (args, call) => ({ structuredContent: { total: (args['a'] as number) + (args['b'] as number), ...(call.sessionId === '' && { never: true }) } }),
};

const whoamiTool: McpTool = {
  name: 'whoami',
  description: 'Says who called, under which protocol and session',
  inputSchema: { type: 'object', additionalProperties: false },
  handler: (_args, call) => ({ structuredContent: { principal: call.principal as string, protocolVersion: call.protocolVersion, session: call.sessionId !== undefined } }),
};

const refuseTool: McpTool = {
  name: 'refuse',
  description: 'Always refuses with a message for the model',
  inputSchema: { type: 'object' },
  handler: () => ({ error: 'Approval packet "AP-1" is closed: open a new one' }),
};

const throwTool: McpTool = {
  name: 'explode',
  description: 'Throws, as a handler with a bug would',
  inputSchema: { type: 'object' },
  handler: () => {
    throw new Error('database password is hunter2');
  },
};

const badOutputTool: McpTool = {
  name: 'bad_output',
  description: 'Returns a result its output schema forbids',
  inputSchema: { type: 'object' },
  outputSchema: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
  handler: () => ({ structuredContent: { id: 42 } as unknown as Record<string, unknown> }),
};

const fillers: McpTool[] = ['noop.a', 'noop.b', 'noop.c'].map((name) => ({
  name,
  description: `Filler ${name}`,
  inputSchema: { type: 'object' },
  handler: () => ({ structuredContent: { name } }),
}));

export const TEST_TOOLS: McpTool[] = [sumTool, whoamiTool, refuseTool, throwTool, badOutputTool, ...fillers];

export interface McpTestService {
  service: Service;
  mcp: McpServer;
  url: string;
  logs: string[];
}

export async function startMcpTestService(options: { maxBodyBytes?: number } = {}): Promise<McpTestService> {
  const logs: string[] = [];
  const log = createLogger({ name: 'mcp-test', service: 'mcp-test', write: (line) => void logs.push(line) });
  const mcp = createMcpServer({
    info: { name: 'airlock-mcp-test', version: '1.2.3' },
    instructions: 'Test tools only',
    tools: TEST_TOOLS,
    allowedOrigins: [ALLOWED_ORIGIN],
    pageSize: 3,
    ...(options.maxBodyBytes !== undefined && { maxBodyBytes: options.maxBodyBytes }),
    authenticate: (context) => {
      const header = context.headers['authorization'];
      if (header === 'Bearer alice-token') return { ok: true, principal: 'alice' };
      if (header === 'Bearer bob-token') return { ok: true, principal: 'bob' };
      return { ok: false, reply: problem(401, 'Unauthorized', { detail: 'Send Authorization: Bearer <token>' }) };
    },
  });
  const mount = mcpRoutes(mcp);
  const service = createService({
    name: 'mcp-test',
    version: '1.2.3',
    routes: [{ method: 'GET', path: '/health', auth: 'none', summary: 'health', handler: () => json({ ok: true }) }, ...mount.routes],
    authenticators: mount.authenticators,
    log,
  });
  await service.listen();
  return { service, mcp, url: `${service.url()}/mcp`, logs };
}

export const ALICE = { authorization: 'Bearer alice-token' };
export const BOB = { authorization: 'Bearer bob-token' };
