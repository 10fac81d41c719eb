// The MCP module's pieces on their own: the tool table check, the Origin allowlist, the Accept
// check and the Base64 sentinel of Mcp-Name.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileSchema, createMcpServer, exportOpenApi, mcpRoutes } from '../../src/kernel/index.ts';
import type { McpTool } from '../../src/kernel/index.ts';
import { compileTools } from '../../src/kernel/mcp/tool.ts';
import { createOriginCheck } from '../../src/kernel/mcp/origin.ts';
import { acceptsJsonAndEventStream, decodeHeaderValue } from '../../src/kernel/mcp/request-headers.ts';

const base: McpTool = { name: 'ok', description: 'ok', inputSchema: { type: 'object' }, handler: () => ({ structuredContent: {} }) };

test('compileTools() refuses bad names, duplicates, non-object schemas and x-mcp-header', () => {
  const cases: [string, McpTool[], RegExp][] = [
    ['an empty name', [{ ...base, name: '' }], /must be 1 to 128/],
    ['a name with a space', [{ ...base, name: 'get user' }], /must be 1 to 128/],
    ['a 129-character name', [{ ...base, name: 'x'.repeat(129) }], /must be 1 to 128/],
    ['a duplicate', [base, base], /declared twice/],
    ['an array inputSchema', [{ ...base, inputSchema: { type: 'array' } }], /inputSchema must be a JSON Schema object/],
    ['a string outputSchema', [{ ...base, outputSchema: { type: 'string' } }], /outputSchema must be a JSON Schema object/],
    ['x-mcp-header', [{ ...base, inputSchema: { type: 'object', properties: { r: { type: 'string', 'x-mcp-header': 'Region' } } } }], /x-mcp-header/],
  ];
  for (const [label, tools, message] of cases) assert.throws(() => compileTools(tools), message, label);
  assert.throws(() => compileTools([{ ...base, inputSchema: { type: 'object', properties: { a: { $ref: '#/nowhere' } } } }]), (e: Error) => (e as { code?: string }).code === 'schema_compile');
});

test('compileTools() publishes exactly the wire fields of a Tool', () => {
  const [compiled] = compileTools([{ ...base, title: 'T', annotations: { readOnlyHint: true } }]);
  assert.deepEqual(compiled!.descriptor, { name: 'ok', title: 'T', description: 'ok', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } });
});

test('createOriginCheck() admits no Origin and listed origins only', () => {
  const check = createOriginCheck(['http://127.0.0.1:18030', 'https://erp.example:443']);
  assert.equal(check(undefined), true);
  for (const allowed of ['http://127.0.0.1:18030', 'HTTP://127.0.0.1:18030', 'https://erp.example']) assert.equal(check(allowed), true, allowed);
  for (const refused of ['null', '', 'http://127.0.0.1', 'http://127.0.0.1:18030/', 'http://user@127.0.0.1:18030', 'http://localhost:18030', 'file://x', 'http://127.0.0.1:18030.evil.example']) {
    assert.equal(check(refused), false, refused);
  }
  assert.equal(check(['http://127.0.0.1:18030', 'http://127.0.0.1:18030']), false);
  assert.throws(() => createOriginCheck(['127.0.0.1:18030']), /must be scheme:\/\/host/);
  assert.equal(createOriginCheck([])('http://127.0.0.1:18030'), false);
});

test('acceptsJsonAndEventStream() reads media ranges and q=0', () => {
  const table: [string | undefined, boolean][] = [
    ['application/json, text/event-stream', true],
    ['text/event-stream,application/json', true],
    ['*/*', true],
    ['application/*;q=0.9, text/*', true],
    [undefined, false],
    ['', false],
    ['application/json', false],
    ['application/json, text/event-stream;q=0', false],
    ['application/json;q=0.000, text/event-stream', false],
  ];
  for (const [accept, expected] of table) assert.equal(acceptsJsonAndEventStream(accept), expected, String(accept));
});

test('decodeHeaderValue() decodes the =?base64?...?= sentinel and refuses a malformed one', () => {
  assert.equal(decodeHeaderValue('get_weather'), 'get_weather');
  assert.equal(decodeHeaderValue('=?base64?SGVsbG8sIOS4lueVjA==?='), 'Hello, 世界');
  assert.equal(decodeHeaderValue('=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?='), '=?base64?literal?=');
  for (const bad of ['=?base64?abc?=', '=?base64?***?=', '=?base64?SGVsbG8=', '=?base64?/w==?=']) assert.equal(decodeHeaderValue(bad), undefined, bad);
});

test('createMcpServer() refuses a bad page size; mcpRoutes() names its authenticator', () => {
  const options = { info: { name: 's', version: '1' }, tools: [base], allowedOrigins: [], authenticate: () => ({ ok: true as const }) };
  assert.throws(() => createMcpServer({ ...options, pageSize: 0 }), RangeError);
  const mount = mcpRoutes(createMcpServer(options), { path: '/api/mcp', auth: 'erp_mcp' });
  assert.deepEqual(mount.routes.map((r) => `${r.method} ${r.path} ${r.auth}`), ['POST /api/mcp erp_mcp', 'GET /api/mcp erp_mcp', 'DELETE /api/mcp erp_mcp']);
  assert.deepEqual(Object.keys(mount.authenticators), ['erp_mcp']);
});

test('mcpRoutes() rows export to OpenAPI like any route', () => {
  const server = createMcpServer({ info: { name: 's', version: '1' }, tools: [base], allowedOrigins: [], authenticate: () => ({ ok: true as const }) });
  const doc = exportOpenApi({ info: { title: 'mcp', version: '1' }, routes: mcpRoutes(server).routes, securitySchemes: { mcp: { type: 'http', scheme: 'bearer' } } }) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
  assert.deepEqual(Object.keys(doc.paths['/mcp']!).sort(), ['delete', 'get', 'post']);
  assert.ok(doc.paths['/mcp']!['post']!.responses['202']);
});

test('mcpRoutes() export their 4xx answers as the JSON-RPC error messages they are, not as problem+json', () => {
  const server = createMcpServer({ info: { name: 's', version: '1' }, tools: [base], allowedOrigins: [], authenticate: () => ({ ok: true as const }) });
  const doc = exportOpenApi({ info: { title: 'mcp', version: '1' }, routes: mcpRoutes(server).routes, securitySchemes: { mcp: { type: 'http', scheme: 'bearer' } } }) as {
    paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>>;
  };
  const declared: Record<string, string[]> = { post: ['400', '403', '404', '406'], get: ['405'], delete: ['400', '404', '405'] };
  for (const [method, statuses] of Object.entries(declared)) {
    for (const status of statuses) {
      const content = doc.paths['/mcp']![method]!.responses[status]!.content!;
      // 403 is also the authenticator's refusal, in the service's error body (RFC 9457 here): both are declared.
      assert.deepEqual(Object.keys(content), status === '403' ? ['application/json', 'application/problem+json'] : ['application/json'], `${method} ${status}`);
      const check = compileSchema(content['application/json']!.schema);
      // What the server sends for a refusal (here GET's 405) must fit the exported schema.
      assert.equal(check.validate(server.handleGet({} as never).body).valid, true, `${method} ${status}`);
    }
  }
});
