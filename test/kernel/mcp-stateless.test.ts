// The MCP endpoint under the stateless revision 2026-07-28: server/discover, tools/list and
// tools/call with the version in `_meta`, the Mcp-Method and Mcp-Name headers checked against
// the body, and no session.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { send } from '../helpers/http.ts';
import { STATELESS, post, statelessMeta, statelessRequest } from '../helpers/mcp-client.ts';
import { ALICE, startMcpTestService, type McpTestService } from '../helpers/mcp-service.ts';

let t: McpTestService;
before(async () => { t = await startMcpTestService(); });
after(() => t.service.close());

const SERVER_META = { 'io.modelcontextprotocol/serverInfo': { name: 'airlock-mcp-test', version: '1.2.3' } };

test('server/discover lists the versions, capabilities and identity, with cache hints', async () => {
  const { response, message } = await statelessRequest(t.url, 'server/discover', {}, ALICE);
  assert.equal(response.status, 200);
  assert.equal(response.headers['mcp-session-id'], undefined);
  assert.deepEqual(message, {
    jsonrpc: '2.0',
    id: 'req-server/discover',
    result: {
      resultType: 'complete',
      supportedVersions: ['2026-07-28', '2025-11-25', '2025-06-18'],
      capabilities: { tools: { listChanged: false } },
      instructions: 'Test tools only',
      ttlMs: 60000,
      cacheScope: 'private',
      _meta: SERVER_META,
    },
  });
});

test('tools/list pages with cursors and carries resultType, ttlMs, cacheScope and serverInfo', async () => {
  const names: string[] = [];
  let cursor: string | undefined;
  do {
    const { response, message } = await statelessRequest(t.url, 'tools/list', cursor === undefined ? {} : { cursor }, ALICE);
    assert.equal(response.status, 200);
    const result = message!['result'];
    assert.equal(result.resultType, 'complete');
    assert.equal(result.ttlMs, 60000);
    assert.equal(result.cacheScope, 'private');
    assert.deepEqual(result._meta, SERVER_META);
    names.push(...result.tools.map((tool: { name: string }) => tool.name));
    cursor = result.nextCursor;
  } while (cursor !== undefined);
  assert.equal(names.length, 8);
});

test('tools/call answers without a session; bad arguments and failures are isError results', async () => {
  const ok = await statelessRequest(t.url, 'tools/call', { name: 'sum', arguments: { a: 1, b: 2 } }, ALICE);
  assert.equal(ok.response.status, 200);
  assert.deepEqual(ok.message!['result'], { resultType: 'complete', content: [{ type: 'text', text: '{"total":3}' }], structuredContent: { total: 3 }, isError: false, _meta: SERVER_META });
  const who = await statelessRequest(t.url, 'tools/call', { name: 'whoami', arguments: {} }, ALICE);
  assert.deepEqual(who.message!['result'].structuredContent, { principal: 'alice', protocolVersion: STATELESS, session: false });
  const bad = await statelessRequest(t.url, 'tools/call', { name: 'sum', arguments: { a: 1 } }, ALICE);
  assert.equal(bad.response.status, 200);
  assert.equal(bad.message!['result'].isError, true);
  const thrown = await statelessRequest(t.url, 'tools/call', { name: 'explode' }, ALICE);
  assert.equal(thrown.message!['result'].isError, true);
  const unknown = await statelessRequest(t.url, 'tools/call', { name: 'nope' }, ALICE);
  assert.equal(unknown.response.status, 200);
  assert.equal(unknown.message!['error'].code, -32602);
});

test('Mcp-Name may carry the Base64 sentinel form', async () => {
  const encoded = `=?base64?${Buffer.from('sum').toString('base64')}?=`;
  const { response } = await statelessRequest(t.url, 'tools/call', { name: 'sum', arguments: { a: 1, b: 1 } }, { ...ALICE, 'mcp-name': encoded });
  assert.equal(response.status, 200);
});

const mismatches: [string, string, Record<string, unknown>, Record<string, string | undefined>][] = [
  ['missing MCP-Protocol-Version', 'tools/list', {}, { 'mcp-protocol-version': undefined }],
  ['MCP-Protocol-Version other than the _meta claim', 'tools/list', {}, { 'mcp-protocol-version': '2025-11-25' }],
  ['missing Mcp-Method', 'tools/list', {}, { 'mcp-method': undefined }],
  ['Mcp-Method other than the body method', 'tools/list', {}, { 'mcp-method': 'tools/call' }],
  ['Mcp-Method in another case', 'tools/list', {}, { 'mcp-method': 'TOOLS/LIST' }],
  ['missing Mcp-Name on tools/call', 'tools/call', { name: 'sum', arguments: { a: 1, b: 1 } }, { 'mcp-name': undefined }],
  ['Mcp-Name other than params.name', 'tools/call', { name: 'sum', arguments: { a: 1, b: 1 } }, { 'mcp-name': 'explode' }],
  ['malformed Base64 sentinel', 'tools/call', { name: 'sum', arguments: { a: 1, b: 1 } }, { 'mcp-name': '=?base64?%%%?=' }],
];

for (const [label, method, params, headers] of mismatches) {
  test(`a 2026-07-28 request with ${label} is 400 HeaderMismatch (-32020)`, async () => {
    const { response, message } = await statelessRequest(t.url, method, params, { ...ALICE, ...headers });
    assert.equal(response.status, 400);
    assert.equal(message!['error'].code, -32020);
    assert.equal(message!['id'], `req-${method}`);
  });
}

test('a 2026-07-28 request without clientCapabilities, or with only the header, is 400 -32602', async () => {
  const meta: Record<string, unknown> = statelessMeta();
  delete meta['io.modelcontextprotocol/clientCapabilities'];
  const noCaps = await post(t.url, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta } }, { ...ALICE, 'mcp-protocol-version': STATELESS, 'mcp-method': 'tools/list' });
  assert.equal(noCaps.response.status, 400);
  assert.equal(noCaps.message!['error'].code, -32602);
  const noMeta = await post(t.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { ...ALICE, 'mcp-protocol-version': STATELESS, 'mcp-method': 'tools/list' });
  assert.equal(noMeta.response.status, 400);
  assert.equal(noMeta.message!['error'].code, -32602);
  const badClaim = await post(t.url, { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: { ...statelessMeta(), 'io.modelcontextprotocol/protocolVersion': 20260728 } } }, { ...ALICE, 'mcp-protocol-version': STATELESS, 'mcp-method': 'tools/list' });
  assert.equal(badClaim.response.status, 400);
  assert.equal(badClaim.message!['error'].code, -32602);
});

test('an unsupported version claim is 400 UnsupportedProtocolVersion (-32022) listing the supported ones', async () => {
  for (const version of ['2099-01-01', '2025-11-25']) {
    const { response, message } = await post(t.url, { jsonrpc: '2.0', id: 5, method: 'tools/list', params: { _meta: statelessMeta(version) } }, { ...ALICE, 'mcp-protocol-version': version, 'mcp-method': 'tools/list' });
    assert.equal(response.status, 400, version);
    assert.deepEqual(message!['error'], {
      code: -32022,
      message: `Unsupported protocol version "${version}": use one of 2026-07-28, 2025-11-25, 2025-06-18`,
      data: { supported: ['2026-07-28', '2025-11-25', '2025-06-18'], requested: version },
    });
  }
});

test('a method this revision does not define is 404 with -32601 (ping and initialize included)', async () => {
  for (const method of ['ping', 'initialize', 'resources/list', 'subscriptions/listen']) {
    const { response, message } = await statelessRequest(t.url, method, {}, ALICE);
    assert.equal(response.status, 404, method);
    assert.equal(message!['error'].code, -32601, method);
  }
});

test('Mcp-Session-Id is ignored and never minted; DELETE and GET are 405', async () => {
  const { response } = await statelessRequest(t.url, 'tools/list', {}, { ...ALICE, 'mcp-session-id': 'whatever' });
  assert.equal(response.status, 200);
  assert.equal(response.headers['mcp-session-id'], undefined);
  const deleted = await send(t.url, { method: 'DELETE', headers: { ...ALICE, 'mcp-protocol-version': STATELESS } });
  assert.equal(deleted.status, 405);
  assert.equal(deleted.headers['allow'], 'POST');
  assert.equal((await send(t.url, { headers: { ...ALICE, 'mcp-protocol-version': STATELESS } })).status, 405);
});

test('a 2026-07-28 notification is accepted with 202; one whose Mcp-Method disagrees is 400', async () => {
  const note = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } };
  const ok = await post(t.url, note, { ...ALICE, 'mcp-protocol-version': STATELESS, 'mcp-method': 'notifications/cancelled' });
  assert.equal(ok.response.status, 202);
  assert.equal(ok.response.text, '');
  const wrong = await post(t.url, note, { ...ALICE, 'mcp-protocol-version': STATELESS, 'mcp-method': 'tools/list' });
  assert.equal(wrong.response.status, 400);
  assert.equal(wrong.message!['error'].code, -32020);
  assert.equal(wrong.message!['id'], undefined);
});
