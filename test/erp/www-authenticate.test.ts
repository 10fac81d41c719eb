// Every ERP 401 carries WWW-Authenticate (RFC 9110 11.6.1) in Frappe's style: routes of Frappe's
// token or session auth challenge with its token scheme and Basic; signed surfaces name their
// signature scheme and headers. Each route of the table is called with a credential that does not
// verify; other 401s (a login with a wrong password, a wrong callback token, a refused workspace
// caller, MCP) are called too.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { signRequest } from '../../src/kernel/index.ts';
import { send } from '../helpers/http.ts';
import type { TestResponse } from '../helpers/http.ts';
import { SECRETS, USER, callMethod, postHouse, startErp } from './_service.ts';
import type { Running } from './_service.ts';

let erp: Running;
before(async () => {
  erp = await startErp({ env: { AGENT_RUNTIME_URL: 'http://127.0.0.1:9/agent' } });
});
after(() => erp.stop());

const FRAPPE = 'token realm="erp", Basic realm="erp"';
const concrete = (path: string) => path.replace(':doctype', 'Lead').replace(':name', 'CRM-LEAD-2026-00001');
function assertChallenge(response: TestResponse, expected: RegExp | string, where: string): void {
  assert.equal(response.status, 401, `${where}: ${response.text}`);
  const header = response.headers['www-authenticate'];
  if (typeof expected === 'string') assert.equal(header, expected, where);
  else assert.match(String(header), expected, where);
}

test('every route of the table answers a credential that does not verify with 401 and a challenge', async () => {
  let checked = 0;
  for (const route of erp.service.routes as readonly { method: string; path: string; auth: string; signature?: { scheme: string } }[]) {
    const url = `${erp.url}${concrete(route.path)}`;
    const body = route.method === 'POST' ? '{}' : undefined;
    if (route.signature) {
      const stale = signRequest(route.signature.scheme as 'house', { rawBody: Buffer.from('{}'), secret: route.signature.scheme === 'standard-webhooks' ? SECRETS.PAYMENT_B_WEBHOOK_SECRET : 'not-the-secret', now: 1_000_000_000, id: 'msg_1' });
      const answer = await send(url, { method: route.method, headers: { ...stale, 'content-type': 'application/json' }, ...(body !== undefined && { body }) });
      assertChallenge(answer, `Signature realm="erp", scheme="${route.signature.scheme}", headers="${{ stripe: 'Stripe-Signature', 'standard-webhooks': 'webhook-id webhook-timestamp webhook-signature', house: 'X-Signature X-Signature-Timestamp' }[route.signature.scheme]}"`, `${route.method} ${route.path}`);
      checked += 1;
    } else if (route.auth !== 'none' || route.path.includes('workspace_binding.')) {
      const answer = await send(url, { method: route.method, headers: { authorization: 'token nobody:wrong', 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, ...(body !== undefined && { body }) });
      assertChallenge(answer, FRAPPE, `${route.method} ${route.path}`);
      checked += 1;
    }
  }
  assert.ok(checked >= 30, `checked ${checked} routes`);
});

test('a stale session, a wrong password, a wrong callback token, a refused workspace caller: 401 with a challenge', async () => {
  assertChallenge(await send(`${erp.url}/api/resource/Lead`, { headers: { cookie: 'sid=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' } }), FRAPPE, 'stale sid');
  assertChallenge(await send(`${erp.url}/api/method/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ usr: USER.usr, pwd: 'wrong' }) }), FRAPPE, 'wrong password');
  const staged = await postHouse(erp.url, 'supplier_intake', { vendor: { name: 'Globex LLC' }, invoice: { number: 'W-1', currency: 'USD' }, totals: { grand_total: '1.00' }, line_items: [{ description: 'x', amount: '1.00' }] });
  const name = (staged.json() as { message: { supplier_intake: string } }).message.supplier_intake;
  const packet = ((await callMethod(erp.url, 'workflows.request_supplier_intake_approval', { name })).json() as { message: { approval_packet: string } }).message.approval_packet;
  const raw = Buffer.from(JSON.stringify({ approval_packet: packet, callback_token: 'not-the-token', decision: 'approved' }));
  const headers = signRequest('house', { rawBody: raw, secret: SECRETS.AGENT_RUNTIME_CALLBACK_SECRET, now: Math.floor(Date.now() / 1000) });
  const wrongToken = await send(`${erp.url}/api/method/erp_core.api.callbacks.agent_runtime_approval`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: raw });
  assertChallenge(wrongToken, /^Signature realm="erp", scheme="house"/, 'wrong callback token');
  const guest = await send(`${erp.url}/api/method/erp_core.api.workspace_binding.preview_workspace_candidate_binding`, { method: 'POST', headers: { 'x-workspace-caller': 'stranger', 'content-type': 'application/json' }, body: '{}' });
  assertChallenge(guest, `${FRAPPE}, Signature realm="erp", scheme="house", headers="X-Signature X-Signature-Timestamp"`, 'workspace caller');
});
