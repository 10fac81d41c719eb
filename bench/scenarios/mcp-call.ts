// mcp-call: a stateless (2026-07-28) MCP tools/call through the kernel's MCP endpoint, beside
// the bare node:http baseline answering the same POST. No target was set by an issue; the
// figure is reported so that a regression shows.
import { fileURLToPath } from 'node:url';
import { compareHttp } from '../lib/compare-http.ts';
import type { Scenario } from '../lib/scenario.ts';

const BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: {
    name: 'sum',
    arguments: { a: 20, b: 22 },
    _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
  },
});
const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': 'sum',
};

export const scenario: Scenario = {
  name: 'mcp-call',
  description: 'POST /mcp tools/call (2026-07-28, stateless) -> header checks, argument and result schemas vs bare node:http',
  async run(options) {
    const record = await compareHttp({
      scenario: 'mcp-call',
      server: fileURLToPath(new URL('../servers/mcp-call.ts', import.meta.url)),
      request: { path: '/mcp', method: 'POST', headers: HEADERS, body: BODY },
      baselineRequest: { path: '/', method: 'POST', headers: HEADERS, body: BODY },
      expectStatus: 200,
    }, options);
    return [record];
  },
};
