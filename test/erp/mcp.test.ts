// /mcp on the ERP service, driven by the spec-only client of test/helpers/mcp-client.ts under both
// protocol versions: initialize, tools/list, tools/call and DELETE (2025-11-25), server/discover,
// tools/list and tools/call (2026-07-28); Frappe auth as on workflows.*, the Origin allowlist, and
// tool errors as results with isError.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { send } from '../helpers/http.ts';
import { post, SessionClient, statelessRequest } from '../helpers/mcp-client.ts';
import { postStripe, startErp, TOKEN, API_KEY } from './_service.ts';
import type { Running } from './_service.ts';

const ORIGIN = 'http://127.0.0.1:18030';
const AUTH = { authorization: TOKEN };
const TOOLS = ['integration_status', 'get_document', 'open_approval_packets', 'dead_letters', 'support_context', 'request_approval'];
let erp: Running;
let url: string;
let revenueEvent: string;

before(async () => {
  erp = await startErp({ env: { ERP_MCP_ALLOWED_ORIGINS: ORIGIN } });
  url = `${erp.url}/mcp`;
  const staged = await postStripe(erp.url, { id: 'evt_mcp', object: 'event', type: 'payment_intent.succeeded', data: { object: { id: 'pi_mcp', object: 'payment_intent', amount_received: 1200, currency: 'eur', customer: 'cus_9' } } });
  revenueEvent = (staged.json() as { message: { revenue_event: string } }).message.revenue_event;
});
after(() => erp.stop());

describe('MCP 2025-11-25 (sessions)', () => {
  test('initialize, initialized 202, tools/list with schemas, tools/call, DELETE then 404', async () => {
    const client = new SessionClient(url, AUTH);
    const init = await client.initialize();
    assert.equal(client.protocolVersion, '2025-11-25');
    assert.equal(init.message!['result']['serverInfo']['name'], 'airlock-erp');
    assert.ok(client.sessionId);
    assert.equal((await client.notify('notifications/initialized')).response.status, 202);
    const list = await client.request('tools/list');
    const tools = list.message!['result']['tools'] as { name: string; inputSchema: { type: string }; outputSchema: { type: string } }[];
    assert.deepEqual(tools.map((t) => t.name), TOOLS);
    for (const tool of tools) assert.deepEqual([tool.inputSchema.type, tool.outputSchema.type], ['object', 'object'], tool.name);
    const status = await client.request('tools/call', { name: 'integration_status', arguments: {} });
    assert.equal(status.message!['result']['isError'], false);
    assert.equal(status.message!['result']['structuredContent']['service'], 'erp');
    const doc = await client.request('tools/call', { name: 'get_document', arguments: { doctype: 'Revenue Event', name: revenueEvent } });
    assert.equal(doc.message!['result']['structuredContent']['document']['name'], revenueEvent);
    const context = await client.request('tools/call', { name: 'support_context', arguments: { business_refs: [{ doctype: 'Revenue Event', name: revenueEvent }, { doctype: 'Lead', name: 'CRM-LEAD-2026-99999' }] } });
    const structured = context.message!['result']['structuredContent'];
    assert.deepEqual([structured['hydrated'].length, structured['missing'][0]['reason']], [1, 'not_found']);
    const packets = await client.request('tools/call', { name: 'open_approval_packets', arguments: { limit: 10 } });
    assert.deepEqual(packets.message!['result']['structuredContent'], { approval_packets: [], count: 0, truncated: false });
    const letters = await client.request('tools/call', { name: 'dead_letters', arguments: {} });
    assert.equal(letters.message!['result']['structuredContent']['count'], 0);
    assert.equal((await client.delete()).status, 204);
    assert.equal((await client.request('tools/list')).response.status, 404);
  });

  test('tool errors are results with isError: unknown document, bad arguments; an unknown tool is -32602', async () => {
    const client = new SessionClient(url, AUTH);
    await client.initialize();
    const missing = await client.request('tools/call', { name: 'get_document', arguments: { doctype: 'Lead', name: 'nope' } });
    assert.equal(missing.message!['result']['isError'], true);
    assert.match(missing.message!['result']['content'][0]['text'], /not found/);
    for (const args of [{ doctype: 'Spaceship', name: 'x' }, { doctype: 'Lead' }, { doctype: 'Lead', name: 'x', extra: 1 }]) {
      const bad = await client.request('tools/call', { name: 'get_document', arguments: args });
      assert.equal(bad.response.status, 200);
      assert.equal(bad.message!['result']['isError'], true, JSON.stringify(args));
    }
    assert.equal((await client.request('tools/call', { name: 'dead_letters', arguments: { limit: 0 } })).message!['result']['isError'], true);
    assert.equal((await client.request('tools/call', { name: 'approve_everything', arguments: {} })).message!['error']['code'], -32602);
    await client.delete();
  });
});

describe('MCP request_approval (the one writing tool)', () => {
  const packetRows = async () => ((await send(`${erp.url}/api/resource/Approval Packet?limit_page_length=0`, { headers: AUTH })).json() as { data: unknown[] }).data.length;

  test('creates the Approval Packet the workflow route creates: same packet on a repeat, by MCP or by the route, owned by the caller', async () => {
    const client = new SessionClient(url, AUTH);
    await client.initialize();
    const list = await client.request('tools/list');
    const tool = (list.message!['result']['tools'] as { name: string; inputSchema: { required: string[] }; outputSchema: { required: string[] }; annotations: { readOnlyHint: boolean } }[]).find((t) => t.name === 'request_approval')!;
    assert.deepEqual([tool.inputSchema.required, tool.annotations.readOnlyHint], [['doctype', 'docname'], false]);
    assert.ok(tool.outputSchema.required.includes('approval_packet'));
    const first = await client.request('tools/call', { name: 'request_approval', arguments: { doctype: 'Revenue Event', docname: revenueEvent, approval_context: { reason: 'refund above threshold' } } });
    const result = first.message!['result'];
    assert.equal(result['isError'], false, JSON.stringify(result));
    const packet = result['structuredContent'];
    assert.deepEqual([packet['status'], packet['created'], packet['target_doctype'], packet['target_name']], ['requested', true, 'Revenue Event', revenueEvent]);
    assert.deepEqual(JSON.parse(result['content'][0]['text']), packet);
    const again = await client.request('tools/call', { name: 'request_approval', arguments: { doctype: 'Revenue Event', docname: revenueEvent } });
    assert.deepEqual([again.message!['result']['structuredContent']['approval_packet'], again.message!['result']['structuredContent']['created']], [packet['approval_packet'], false]);
    const route = await send(`${erp.url}/api/method/erp_core.api.workflows.request_approval`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: JSON.stringify({ doctype: 'Revenue Event', docname: revenueEvent }) });
    assert.deepEqual([route.status, (route.json() as { message: { approval_packet: string; created: boolean } }).message.approval_packet], [200, packet['approval_packet']]);
    const stored = (await send(`${erp.url}/api/resource/Approval Packet/${encodeURIComponent(packet['approval_packet'])}`, { headers: AUTH })).json() as { data: Record<string, unknown> };
    assert.deepEqual([stored.data['owner'], stored.data['status'], stored.data['approval_context']], [API_KEY, 'requested', { reason: 'refund above threshold' }]);
    const open = await client.request('tools/call', { name: 'open_approval_packets', arguments: {} });
    assert.equal(open.message!['result']['structuredContent']['approval_packets'][0]['name'], packet['approval_packet']);
    await client.delete();
  });

  test('bad input and refused requests are results with isError and store no packet', async () => {
    const client = new SessionClient(url, AUTH);
    await client.initialize();
    const before = await packetRows();
    const bad: Record<string, unknown>[] = [
      {},
      { doctype: 'Revenue Event' },
      { doctype: 'Approval Packet', docname: 'x' },
      { doctype: 'Revenue Event', docname: '' },
      { doctype: 'Revenue Event', docname: 7 },
      { doctype: 'Revenue Event', docname: revenueEvent, approval_context: 'urgent' },
      { doctype: 'Revenue Event', docname: revenueEvent, extra: true },
      { doctype: 'Revenue Event', docname: 'x'.repeat(141) },
      { doctype: 'Lead', docname: 'CRM-LEAD-2026-99999' },
      { doctype: 'Revenue Event', docname: '__proto__' },
    ];
    for (const args of bad) {
      const answer = await client.request('tools/call', { name: 'request_approval', arguments: args });
      assert.equal(answer.response.status, 200);
      assert.equal(answer.message!['result']['isError'], true, JSON.stringify(args));
      assert.equal(answer.message!['result']['structuredContent'], undefined);
    }
    const missing = await client.request('tools/call', { name: 'request_approval', arguments: { doctype: 'Lead', docname: 'CRM-LEAD-2026-99999' } });
    assert.match(missing.message!['result']['content'][0]['text'], /Lead CRM-LEAD-2026-99999 not found/);
    assert.equal(await packetRows(), before);
    await client.delete();
  });

  test('stateless 2026-07-28 call with Mcp-Name answers the open packet', async () => {
    const call = await statelessRequest(url, 'tools/call', { name: 'request_approval', arguments: { doctype: 'Revenue Event', docname: revenueEvent } }, AUTH);
    assert.equal(call.response.status, 200, call.response.text);
    assert.deepEqual([call.message!['result']['isError'], call.message!['result']['structuredContent']['created']], [false, false]);
  });
});

describe('MCP 2026-07-28 (stateless)', () => {
  test('server/discover, tools/list and tools/call with Mcp-Method and Mcp-Name', async () => {
    const discover = await statelessRequest(url, 'server/discover', {}, AUTH);
    assert.equal(discover.response.status, 200, discover.response.text);
    assert.ok((discover.message!['result']['supportedVersions'] as string[]).includes('2026-07-28'));
    const list = await statelessRequest(url, 'tools/list', {}, AUTH);
    assert.deepEqual((list.message!['result']['tools'] as { name: string }[]).map((t) => t.name), TOOLS);
    const call = await statelessRequest(url, 'tools/call', { name: 'get_document', arguments: { doctype: 'Revenue Event', name: revenueEvent } }, AUTH);
    assert.equal(call.message!['result']['structuredContent']['document']['doctype'], 'Revenue Event');
    assert.equal(call.response.headers['mcp-session-id'], undefined);
    const mismatch = await statelessRequest(url, 'tools/call', { name: 'dead_letters', arguments: {} }, { ...AUTH, 'mcp-name': 'integration_status' });
    assert.equal(mismatch.response.status, 400);
    assert.equal((await send(url, { method: 'DELETE', headers: { ...AUTH, 'mcp-protocol-version': '2026-07-28' } })).status, 405);
  });
});

describe('MCP transport guards', () => {
  test('authenticated like workflows.*: no credential 403, a wrong token 401 (Frappe envelope); the session cookie works', async () => {
    const body = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
    const none = await post(url, body);
    assert.equal(none.response.status, 403);
    assert.equal(none.message!['exc_type'], 'PermissionError');
    assert.equal((await post(url, body, { authorization: 'token a1b2c3d4e5:wrong' })).response.status, 401);
    const login = await send(`${erp.url}/api/method/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ usr: 'ops@example.test', pwd: 'correct horse battery staple' }) });
    const sid = String(login.headers['set-cookie']![0]).split(';')[0]!;
    const client = new SessionClient(url, { cookie: sid });
    await client.initialize();
    assert.equal((await client.request('tools/list')).response.status, 200);
    await client.delete();
  });

  test('Origin: the allowlisted origin passes, any other is 403 before authentication', async () => {
    const body = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
    assert.equal((await post(url, body, { ...AUTH, origin: ORIGIN })).response.status, 200);
    assert.equal((await post(url, body, { ...AUTH, origin: 'http://evil.example' })).response.status, 403);
    assert.equal((await post(url, body, { origin: 'http://evil.example' })).response.status, 403);
  });

  test('malformed JSON, a batch, a missing session and GET answer as the transport says', async () => {
    assert.equal((await post(url, '{"jsonrpc": ', AUTH)).response.status, 400);
    assert.equal((await post(url, [{ jsonrpc: '2.0', id: 1, method: 'ping' }], AUTH)).response.status, 400);
    assert.equal((await post(url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, AUTH)).response.status, 400);
    assert.equal((await post(url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { ...AUTH, 'mcp-session-id': 'unknown-session' })).response.status, 404);
    assert.equal((await send(url, { headers: { ...AUTH, accept: 'text/event-stream' } })).status, 405);
  });
});

describe('capability inventory (part 3 surfaces)', () => {
  test('/capability-inventory lists support, identity and /mcp routes with their auth and stability', async () => {
    const inventory = (await send(`${erp.url}/capability-inventory`)).json() as { capabilities: { method: string; path: string; family: string; stability: string; auth: string }[] };
    const find = (method: string, path: string) => inventory.capabilities.find((c) => c.method === method && c.path === path);
    for (const fn of ['support_cases.support_desk_inbound', 'support_cases.support_desk_outbound', 'support_cases.support_context', 'identity_projections.workboard_access_fact', 'identity_projections.workboard_access_fact_batch', 'identity_projections.lifecycle_fact_batch', 'identity_projections.keystore_bootstrap_principal_truth', 'identity_projections.load_identity_truth']) {
      const row = find('POST', `/api/method/erp_core.api.${fn}`);
      assert.ok(row, fn);
      assert.equal(row.stability, 'stable', fn);
    }
    for (const method of ['POST', 'GET', 'DELETE']) assert.equal(find(method, '/mcp')?.family, 'mcp', method);
  });
});
