// Hostile and malformed input at the MCP endpoint: every case gets a clear 4xx (a JSON-RPC error
// body where the transport allows one), never a 5xx, and opens no session.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { send } from '../helpers/http.ts';
import { ACCEPT, SessionClient, post, statelessRequest } from '../helpers/mcp-client.ts';
import { ALICE, ALLOWED_ORIGIN, startMcpTestService, type McpTestService } from '../helpers/mcp-service.ts';

let t: McpTestService;
before(async () => { t = await startMcpTestService({ maxBodyBytes: 4096 }); });
after(() => t.service.close());

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };

const malformed: [string, string][] = [
  ['truncated JSON', '{"jsonrpc":"2.0","id":1,'],
  ['a trailing comma', '{"jsonrpc":"2.0","id":1,"method":"ping",}'],
  ['a repeated member name', '{"jsonrpc":"2.0","id":1,"method":"ping","method":"initialize"}'],
  ['a lone surrogate', '{"jsonrpc":"2.0","id":1,"method":"\\ud800"}'],
  ['nesting past 64 levels', `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":${'['.repeat(70)}${']'.repeat(70)}}}`],
  ['an empty body', ''],
];

for (const [label, body] of malformed) {
  test(`a body with ${label} is 400 Parse error (-32700) without an id`, async () => {
    const { response, message } = await post(t.url, body, ALICE);
    assert.equal(response.status, 400);
    assert.equal(message!['error'].code, -32700);
    assert.equal('id' in message!, false);
  });
}

const invalid: [string, unknown, number | undefined][] = [
  ['a batch array (removed in 2025-06-18)', [initialize], undefined],
  ['an empty batch array', [], undefined],
  ['a JSON string', '"ping"', undefined],
  ['no jsonrpc member', { id: 1, method: 'ping' }, 1],
  ['jsonrpc "1.0"', { jsonrpc: '1.0', id: 1, method: 'ping' }, 1],
  ['a null id', { jsonrpc: '2.0', id: null, method: 'ping' }, undefined],
  ['an object id', { jsonrpc: '2.0', id: { a: 1 }, method: 'ping' }, undefined],
  ['a numeric method', { jsonrpc: '2.0', id: 2, method: 5 }, 2],
  ['array params', { jsonrpc: '2.0', id: 3, method: 'initialize', params: [] }, 3],
  ['a notification with an id', { jsonrpc: '2.0', id: 4, method: 'notifications/initialized' }, 4],
  ['a JSON-RPC response', { jsonrpc: '2.0', id: 5, result: {} }, undefined],
  ['neither method nor result', { jsonrpc: '2.0', id: 6 }, 6],
];

for (const [label, body, id] of invalid) {
  test(`a body that is ${label} is 400 Invalid request (-32600)`, async () => {
    const { response, message } = await post(t.url, typeof body === 'string' ? body : JSON.stringify(body), ALICE);
    assert.equal(response.status, 400);
    assert.equal(message!['error'].code, -32600);
    assert.equal(message!['id'], id);
    assert.equal(response.headers['mcp-session-id'], undefined);
  });
}

test('a POST whose Accept does not admit both JSON and SSE is 406', async () => {
  for (const accept of [undefined, 'application/json', 'text/event-stream', 'application/json, text/event-stream;q=0']) {
    const { response, message } = await post(t.url, initialize, { ...ALICE, accept });
    assert.equal(response.status, 406, String(accept));
    assert.equal(message!['error'].code, -32600);
  }
  for (const accept of ['*/*', 'application/*, text/*', 'text/event-stream, application/json;q=0.5']) {
    assert.equal((await post(t.url, initialize, { ...ALICE, accept })).response.status, 200, accept);
  }
});

test('a POST that is not application/json is 415; one over the body limit is 413', async () => {
  const wrongType = await send(t.url, { method: 'POST', headers: { ...ALICE, accept: ACCEPT, 'content-type': 'text/plain' }, body: JSON.stringify(initialize) });
  assert.equal(wrongType.status, 415);
  const huge = { ...initialize, params: { ...initialize.params, padding: 'x'.repeat(5000) } };
  const tooLarge = await post(t.url, huge, ALICE);
  assert.equal(tooLarge.response.status, 413);
});

test('a foreign Origin is 403 on POST, GET and DELETE, before authentication; an allowed one passes', async () => {
  for (const origin of ['http://evil.example', 'null', 'http://127.0.0.1:18031', 'http://127.0.0.1:18030/path']) {
    const posted = await post(t.url, initialize, { origin });
    assert.equal(posted.response.status, 403, origin);
    assert.equal(posted.message!['error'].code, -32600);
    assert.equal((await send(t.url, { headers: { origin } })).status, 403);
    assert.equal((await send(t.url, { method: 'DELETE', headers: { origin, 'mcp-session-id': 'x' } })).status, 403);
  }
  assert.equal((await post(t.url, initialize, { ...ALICE, origin: ALLOWED_ORIGIN })).response.status, 200);
  assert.equal((await post(t.url, initialize, { ...ALICE, origin: 'HTTP://127.0.0.1:18030' })).response.status, 200);
});

test('the authenticate hook answers an unauthenticated request, in either era', async () => {
  assert.equal((await post(t.url, initialize)).response.status, 401);
  assert.equal((await post(t.url, initialize, { authorization: 'Bearer wrong' })).response.status, 401);
  assert.equal((await statelessRequest(t.url, 'tools/list')).response.status, 401);
});

test('a session-era request before initialize, or a repeated session header, is 400', async () => {
  const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
  assert.equal((await post(t.url, ping, ALICE)).response.status, 400);
  const client = new SessionClient(t.url, ALICE);
  await client.initialize();
  const doubled = await send(t.url, {
    method: 'POST',
    headers: { ...ALICE, accept: ACCEPT, 'content-type': 'application/json', 'mcp-session-id': `${client.sessionId}, ${client.sessionId}` },
    body: JSON.stringify(ping),
  });
  assert.equal(doubled.status, 400);
});

test('no hostile request produced a 5xx or a server error log', () => {
  assert.equal(t.logs.filter((line) => line.includes('request returned server error')).length, 0);
});
