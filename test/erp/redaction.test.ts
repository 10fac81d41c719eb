// One redaction for every read path: a test that reads every document of every DocType through
// every read path (/api/resource list and one, frappe.client.get_list / get_value / get_count /
// get, the MCP tools, support_context, integration_status, the capability inventory) after a
// packet was requested and dispatched, and a dispatch died, and finds neither a callback token nor
// its digest anywhere. The review read the job's plaintext token through MCP get_document.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { send } from '../helpers/http.ts';
import { SessionClient } from '../helpers/mcp-client.ts';
import { READABLE_DOCTYPES } from '../../src/erp/resources/routes.ts';
import { TOKEN, callMethod, postHouse, postStandard, startErp } from './_service.ts';
import type { Running } from './_service.ts';

let erp: Running;
const secrets: string[] = [];

before(async () => {
  // Port 9 on loopback refuses: one failed attempt makes the job Dead with a Dead Letter.
  erp = await startErp({ env: { AGENT_RUNTIME_URL: 'http://127.0.0.1:9/agent', ERP_DISPATCH_MAX_ATTEMPTS: '1', ERP_WORKER_INTERVAL_MS: '60000' } });
  const staged = await postHouse(erp.url, 'supplier_intake', { vendor: { name: 'Globex LLC' }, invoice: { number: 'R-1', currency: 'USD' }, totals: { grand_total: '5.00' }, line_items: [{ description: 'x', amount: '5.00' }] });
  const intake = (staged.json() as { message: { supplier_intake: string } }).message.supplier_intake;
  await postStandard(erp.url, { type: 'payment.succeeded', data: { id: 'pay_red', amount: 500, currency: 'USD', customer: 'c' } });
  const requested = (await callMethod(erp.url, 'workflows.request_supplier_intake_approval', { name: intake })).json() as { message: { approval_packet: string; dispatch_bundle: { callback: { callback_token: string } } } };
  secrets.push(requested.message.dispatch_bundle.callback.callback_token);
  assert.equal((await callMethod(erp.url, 'workflows.dispatch_approval_packet', { approval_packet: requested.message.approval_packet })).status, 200);
  await erp.service.dispatchWorker.tick();
  const sqlite = erp.service.store.sqlite;
  for (const row of sqlite.prepare("SELECT json_extract(payload, '$.callback_token') AS t FROM dispatch_jobs").all()) if (row['t']) secrets.push(String(row['t']));
  for (const row of sqlite.prepare("SELECT json_extract(payload, '$.callback_token_sha256') AS t FROM approval_packets").all()) if (row['t']) secrets.push(String(row['t']));
  assert.ok(secrets.length >= 4, `tokens and digests were stored: ${secrets.length}`);
  assert.equal(Number(sqlite.prepare('SELECT count(*) AS n FROM dead_letters').get()!['n']), 1);
});
after(() => erp.stop());

function assertClean(where: string, text: string): void {
  for (const secret of secrets) assert.ok(!text.includes(secret), `${where} shows a callback token or its digest`);
  assert.ok(!text.includes('callback_token_sha256'), `${where} names the token digest field`);
}

const get = (path: string) => send(`${erp.url}${path}`, { headers: { authorization: TOKEN } });

test('every read path shows every document of every DocType without a callback token or its digest', async () => {
  const names: { doctype: string; name: string }[] = [];
  for (const doctype of READABLE_DOCTYPES) {
    const list = await get(`/api/resource/${encodeURIComponent(doctype)}?fields=${encodeURIComponent('["*"]')}&limit=0`);
    assert.equal(list.status, 200, doctype);
    assertClean(`/api/resource/${doctype}`, list.text);
    for (const doc of (list.json() as { data: { name: string }[] }).data) names.push({ doctype, name: doc.name });
    const viaMethod = await get(`/api/method/frappe.client.get_list?doctype=${encodeURIComponent(doctype)}&fields=${encodeURIComponent('["*"]')}&limit_page_length=0`);
    assert.equal(viaMethod.status, 200, `get_list ${doctype}`);
    assertClean(`frappe.client.get_list ${doctype}`, viaMethod.text);
  }
  assert.ok(names.some((n) => n.doctype === 'Dispatch Job') && names.some((n) => n.doctype === 'Approval Packet') && names.some((n) => n.doctype === 'Dead Letter'));
  const mcp = new SessionClient(`${erp.url}/mcp`, { authorization: TOKEN });
  await mcp.initialize();
  for (const { doctype, name } of names) {
    const one = await get(`/api/resource/${encodeURIComponent(doctype)}/${encodeURIComponent(name)}`);
    assert.equal(one.status, 200, `${doctype} ${name}`);
    assertClean(`/api/resource/${doctype}/${name}`, one.text);
    const value = await get(`/api/method/frappe.client.get_value?doctype=${encodeURIComponent(doctype)}&filters=${encodeURIComponent(JSON.stringify({ name }))}&fieldname=${encodeURIComponent('["*"]')}`);
    assertClean(`frappe.client.get_value ${doctype}`, value.text);
    const tool = await mcp.request('tools/call', { name: 'get_document', arguments: { doctype, name } });
    assert.equal(tool.message!['result']['isError'], false, `get_document ${doctype} ${name}`);
    assertClean(`MCP get_document ${doctype} ${name}`, JSON.stringify(tool.message));
  }
  const refs = names.slice(0, 50).map(({ doctype, name }) => ({ doctype, name }));
  for (const [where, text] of [
    ['MCP open_approval_packets', JSON.stringify((await mcp.request('tools/call', { name: 'open_approval_packets', arguments: { limit: 200 } })).message)],
    ['MCP dead_letters', JSON.stringify((await mcp.request('tools/call', { name: 'dead_letters', arguments: {} })).message)],
    ['MCP support_context', JSON.stringify((await mcp.request('tools/call', { name: 'support_context', arguments: { business_refs: refs } })).message)],
    ['MCP integration_status', JSON.stringify((await mcp.request('tools/call', { name: 'integration_status', arguments: {} })).message)],
    ['support_context', (await callMethod(erp.url, 'support_cases.support_context', { business_refs: refs })).text],
    ['integration_status', (await send(`${erp.url}/api/method/erp_core.api.health.integration_status`)).text],
    ['capability inventory', (await send(`${erp.url}/capability-inventory`)).text],
  ] as const) assertClean(where, text);
});

test('readback keeps every other field of a Dispatch Job', async () => {
  const jobs = (await get(`/api/resource/Dispatch%20Job?fields=${encodeURIComponent('["*"]')}`)).json() as { data: Record<string, unknown>[] };
  assert.equal(jobs.data.length, 1);
  assert.deepEqual([jobs.data[0]!['status'], 'callback_token' in jobs.data[0]!, jobs.data[0]!['document_type']], ['Dead', false, 'Approval Packet']);
});
