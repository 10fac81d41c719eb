// The MCP endpoint under the session-era revision 2025-11-25, driven by a client written from the
// transport text alone: initialize, initialized, tools/list across pages, tools/call, ping, DELETE.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { send } from '../helpers/http.ts';
import { SessionClient, post } from '../helpers/mcp-client.ts';
import { ALICE, BOB, startMcpTestService, type McpTestService } from '../helpers/mcp-service.ts';

let t: McpTestService;
before(async () => { t = await startMcpTestService(); });
after(() => t.service.close());

test('initialize negotiates 2025-11-25, mints Mcp-Session-Id and names the server', async () => {
  const client = new SessionClient(t.url, ALICE);
  const { response, message } = await client.initialize('2025-11-25');
  assert.match(response.headers['content-type'] ?? '', /^application\/json/);
  assert.match(client.sessionId ?? '', /^[\x21-\x7e]+$/);
  assert.deepEqual(message, {
    jsonrpc: '2.0',
    id: 1,
    result: { protocolVersion: '2025-11-25', capabilities: { tools: { listChanged: false } }, serverInfo: { name: 'airlock-mcp-test', version: '1.2.3' }, instructions: 'Test tools only' },
  });
});

test('initialize keeps 2025-06-18 when asked, and answers an unknown version with 2025-11-25', async () => {
  const older = new SessionClient(t.url, ALICE);
  await older.initialize('2025-06-18');
  assert.equal(older.protocolVersion, '2025-06-18');
  const future = new SessionClient(t.url, ALICE);
  await future.initialize('2099-01-01');
  assert.equal(future.protocolVersion, '2025-11-25');
  assert.notEqual(older.sessionId, future.sessionId);
});

test('notifications/initialized is answered 202 with no body', async () => {
  const client = new SessionClient(t.url, ALICE);
  await client.initialize();
  const { response } = await client.notify('notifications/initialized');
  assert.equal(response.status, 202);
  assert.equal(response.text, '');
  assert.equal(t.mcp.sessions.find(client.sessionId!, JSON.stringify('alice'))?.initialized, true);
});

test('tools/list pages through every tool with opaque cursors', async () => {
  const client = new SessionClient(t.url, ALICE);
  await client.initialize();
  const names: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const { response, message } = await client.request('tools/list', cursor === undefined ? {} : { cursor });
    assert.equal(response.status, 200);
    const result = message!['result'];
    assert.ok(result.tools.length <= 3);
    names.push(...result.tools.map((tool: { name: string }) => tool.name));
    cursor = result.nextCursor;
    pages++;
  } while (cursor !== undefined);
  assert.equal(pages, 3);
  assert.deepEqual(names, ['sum', 'whoami', 'refuse', 'explode', 'bad_output', 'noop.a', 'noop.b', 'noop.c']);
  const first = (await client.request('tools/list')).message!['result'].tools[0];
  assert.deepEqual(Object.keys(first), ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations']);
});

test('tools/list refuses a cursor it did not issue with -32602', async () => {
  const client = new SessionClient(t.url, ALICE);
  await client.initialize();
  for (const cursor of ['nonsense', Buffer.from('tools:v1:99').toString('base64url'), Buffer.from('tools:v1:0').toString('base64url'), 7]) {
    const { response, message } = await client.request('tools/list', { cursor });
    assert.equal(response.status, 200);
    assert.equal(message!['error'].code, -32602, String(cursor));
  }
});

test('tools/call returns structuredContent and the same JSON as a text block', async () => {
  const client = new SessionClient(t.url, ALICE);
  await client.initialize();
  const { message } = await client.request('tools/call', { name: 'sum', arguments: { a: 2, b: 40 } });
  assert.deepEqual(message!['result'], { content: [{ type: 'text', text: '{"total":42}' }], structuredContent: { total: 42 }, isError: false });
  const who = await client.request('tools/call', { name: 'whoami' });
  assert.deepEqual(who.message!['result'].structuredContent, { principal: 'alice', protocolVersion: '2025-11-25', session: true });
});

test('tools/call with arguments that break the inputSchema is a tool result with isError', async () => {
  const client = new SessionClient(t.url, ALICE);
  await client.initialize();
  for (const args of [{ a: 'two', b: 1 }, { a: 1 }, { a: 1, b: 2, c: 3 }]) {
    const { response, message } = await client.request('tools/call', { name: 'sum', arguments: args });
    assert.equal(response.status, 200);
    const result = message!['result'];
    assert.equal(result.isError, true, JSON.stringify(args));
    assert.equal(result.structuredContent, undefined);
    assert.match(result.content[0].text, /^Invalid arguments for tool "sum": /);
  }
});

test('tools/call reports a refusal, a throwing handler and a broken result as isError without internals', async () => {
  const client = new SessionClient(t.url, ALICE);
  await client.initialize();
  const refused = (await client.request('tools/call', { name: 'refuse' })).message!['result'];
  assert.deepEqual(refused, { content: [{ type: 'text', text: 'Approval packet "AP-1" is closed: open a new one' }], isError: true });
  const thrown = await client.request('tools/call', { name: 'explode', arguments: {} });
  assert.equal(thrown.response.status, 200);
  assert.equal(thrown.message!['result'].isError, true);
  assert.doesNotMatch(thrown.response.text, /hunter2/);
  assert.match(thrown.message!['result'].content[0].text, /request id [0-9a-f-]{36}/);
  assert.ok(t.logs.some((line) => line.includes('mcp tool failed')));
  const broken = (await client.request('tools/call', { name: 'bad_output' })).message!['result'];
  assert.equal(broken.isError, true);
  assert.match(broken.content[0].text, /does not match its outputSchema/);
});

test('tools/call with an unknown tool or malformed params is a JSON-RPC -32602 error', async () => {
  const client = new SessionClient(t.url, ALICE);
  await client.initialize();
  for (const params of [{ name: 'nope' }, {}, { name: 7 }, { name: 'sum', arguments: [1, 2] }]) {
    const { response, message } = await client.request('tools/call', params);
    assert.equal(response.status, 200);
    assert.equal(message!['error'].code, -32602, JSON.stringify(params));
    assert.equal(message!['id'] !== undefined, true);
  }
});

test('ping answers an empty result; an unknown method is -32601', async () => {
  const client = new SessionClient(t.url, ALICE);
  await client.initialize();
  assert.deepEqual((await client.request('ping')).message!['result'], {});
  for (const method of ['resources/list', 'server/discover', 'tools/unknown']) {
    const { response, message } = await client.request(method);
    assert.equal(response.status, 200);
    assert.equal(message!['error'].code, -32601, method);
  }
});

test('DELETE ends the session; the ended session is 404 afterwards', async () => {
  const client = new SessionClient(t.url, ALICE);
  await client.initialize();
  const deleted = await client.delete();
  assert.equal(deleted.status, 204);
  const after = await client.request('ping');
  assert.equal(after.response.status, 404);
  assert.equal(after.message!['error'].code, -32600);
  assert.equal((await client.delete()).status, 404);
});

test('a request without Mcp-Session-Id is 400, with an unknown one 404, with a malformed one 400', async () => {
  const client = new SessionClient(t.url, ALICE);
  await client.initialize();
  const missing = await client.request('ping', undefined, { 'mcp-session-id': undefined });
  assert.equal(missing.response.status, 400);
  assert.equal(missing.message!['id'], undefined);
  assert.equal((await client.request('ping', undefined, { 'mcp-session-id': 'f0000000-0000-4000-8000-000000000000' })).response.status, 404);
  assert.equal((await client.request('ping', undefined, { 'mcp-session-id': 'has space' })).response.status, 400);
  assert.equal((await client.notify('notifications/initialized')).response.status, 202);
  assert.equal((await send(t.url, { method: 'DELETE', headers: ALICE })).status, 400);
});

test('another principal cannot use or end a session it did not open', async () => {
  const alice = new SessionClient(t.url, ALICE);
  await alice.initialize();
  const stolen = await post(t.url, { jsonrpc: '2.0', id: 1, method: 'ping' }, { ...BOB, 'mcp-session-id': alice.sessionId, 'mcp-protocol-version': '2025-11-25' });
  assert.equal(stolen.response.status, 404);
  assert.equal((await send(t.url, { method: 'DELETE', headers: { ...BOB, 'mcp-session-id': alice.sessionId } })).status, 404);
  assert.equal((await alice.request('ping')).response.status, 200);
});

test('MCP-Protocol-Version must be a known version and the negotiated one; absent, the negotiated one applies', async () => {
  const client = new SessionClient(t.url, ALICE);
  await client.initialize('2025-11-25');
  const other = await client.request('ping', undefined, { 'mcp-protocol-version': '2025-06-18' });
  assert.equal(other.response.status, 400);
  const unknown = await client.request('ping', undefined, { 'mcp-protocol-version': '1999-01-01' });
  assert.equal(unknown.response.status, 400);
  assert.equal(unknown.message!['error'].code, -32022);
  assert.deepEqual(unknown.message!['error'].data.supported, ['2026-07-28', '2025-11-25', '2025-06-18']);
  assert.equal((await client.request('ping', undefined, { 'mcp-protocol-version': undefined })).response.status, 200);
});

test('initialize with Mcp-Session-Id, or with malformed params, is refused', async () => {
  const client = new SessionClient(t.url, ALICE);
  await client.initialize();
  const again = await client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } });
  assert.equal(again.response.status, 400);
  for (const params of [{}, { protocolVersion: 1, capabilities: {}, clientInfo: { name: 'x', version: '1' } }, { protocolVersion: '2025-11-25', capabilities: [], clientInfo: { name: 'x', version: '1' } }, { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x' } }]) {
    const { response, message } = await post(t.url, { jsonrpc: '2.0', id: 9, method: 'initialize', params }, ALICE);
    assert.equal(response.status, 200);
    assert.equal(message!['error'].code, -32602, JSON.stringify(params));
    assert.equal(response.headers['mcp-session-id'], undefined);
  }
});

test('GET is 405: no SSE stream is offered', async () => {
  const response = await send(t.url, { headers: { ...ALICE, accept: 'text/event-stream' } });
  assert.equal(response.status, 405);
  assert.equal(response.headers['allow'], 'POST, DELETE');
});

test('sessions end after the idle time and the oldest goes when the store is full', async () => {
  const { createSessionStore } = await import('../../src/kernel/mcp/session-store.ts');
  let now = 0;
  const store = createSessionStore({ idleMs: 1000, maxSessions: 2, maxPerPrincipal: 2, now: () => now });
  const a = store.open({ protocolVersion: '2025-11-25', principalKey: 'p', clientInfo: {} });
  now = 900;
  assert.equal(store.find(a.id, 'p')?.id, a.id);
  now = 1800;
  assert.equal(store.find(a.id, 'p')?.id, a.id, 'touched at 900, alive at 1800');
  now = 2801;
  assert.equal(store.find(a.id, 'p'), undefined);
  const b = store.open({ protocolVersion: '2025-11-25', principalKey: 'p', clientInfo: {} });
  const c = store.open({ protocolVersion: '2025-11-25', principalKey: 'p', clientInfo: {} });
  store.find(b.id, 'p');
  const d = store.open({ protocolVersion: '2025-11-25', principalKey: 'p', clientInfo: {} });
  assert.equal(store.find(c.id, 'p'), undefined, 'least recently used is evicted');
  assert.ok(store.find(b.id, 'p') && store.find(d.id, 'p'));
  assert.equal(store.size, 2);
});

test('one principal cannot push another principal\'s sessions out', async () => {
  const { createSessionStore } = await import('../../src/kernel/mcp/session-store.ts');
  const store = createSessionStore({ idleMs: 60_000, maxSessions: 4, maxPerPrincipal: 2, now: () => 0 });
  const bob = store.open({ protocolVersion: '2025-11-25', principalKey: 'bob', clientInfo: {} });
  const opened = Array.from({ length: 5 }, () => store.open({ protocolVersion: '2025-11-25', principalKey: 'mallory', clientInfo: {} }));
  assert.ok(store.find(bob.id, 'bob'));
  assert.equal(store.size, 3);
  assert.deepEqual(opened.map((s) => store.find(s.id, 'mallory') !== undefined), [false, false, false, true, true]);
});
