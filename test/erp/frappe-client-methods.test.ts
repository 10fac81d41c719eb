// Every read method of frappe-js-sdk's db() (v1.14: getDoc, getDocList, getLastDoc, getCount,
// getValue, getSingleValue) against the bundled erp-api, sending byte for byte what the SDK sends
// (the request lines below were captured from frappe-js-sdk 1.14.1 with axios' own serializer),
// and /api/method/ping. The review got 404 for getCount, getValue and getList's method form.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { send } from '../helpers/http.ts';
import type { TestResponse } from '../helpers/http.ts';
import { DatabaseSync } from 'node:sqlite';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sharedBuild } from '../helpers/shared-build.ts';
import { erpEnv, frappeErrorText, postHouse, tableCounts, TOKEN } from './_service.ts';
import { startBundle } from './_bundle.ts';
import type { RunningBundle } from './_bundle.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'airlock-erp-data-'));
let erp: RunningBundle;
const get = (target: string, auth: string | null = TOKEN): Promise<TestResponse> => send(`${erp.url}${target}`, { headers: auth === null ? {} : { authorization: auth } });
const message = (r: TestResponse) => (r.json() as { message: unknown }).message;
/** Row counts of the bundle's database, read beside it. */
function counts(): Record<string, number> {
  const sqlite = new DatabaseSync(join(dataDir, 'erp.sqlite'), { readOnly: true });
  try {
    return tableCounts({ store: { sqlite } } as unknown as Parameters<typeof tableCounts>[0]);
  } finally {
    sqlite.close();
  }
}

before(async () => {
  erp = await startBundle(join(await sharedBuild(), 'bin', 'erp-api.mjs'), erpEnv(dataDir));
  for (const email of ['a@example.test', 'b@example.test', 'c@example.test']) {
    assert.equal((await postHouse(erp.url, 'website_contact_intake', { contact: { email, name: email[0]! } })).status, 200);
  }
});
after(async () => {
  await erp.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('getCount: GET frappe.client.get_count without filters, with filters, with debug=true', async () => {
  assert.equal(message(await get('/api/method/frappe.client.get_count?doctype=Lead')), 3);
  const filtered = '/api/method/frappe.client.get_count?doctype=Lead&filters=%5B%5B%22email_id%22,%22%3D%22,%22a@example.test%22%5D%5D';
  assert.equal(message(await get(filtered)), 1);
  assert.equal(message(await get(`${filtered}&debug=true`)), 1);
  assert.equal(message(await get('/api/method/frappe.client.get_count?doctype=Lead&filters=%5B%5B%22email_id%22,%22like%22,%22%25example%25%22%5D%5D')), 3);
});

test('getValue: one field, a field list, as_dict=false, a name as filters; no match is {} or no message', async () => {
  const leads = (await get('/api/resource/Lead?fields=%5B%22name%22,%22email_id%22%5D&order_by=email_id+asc')).json() as { data: { name: string; email_id: string }[] };
  const first = leads.data[0]!;
  const byEmail = encodeURIComponent(JSON.stringify([['email_id', '=', first.email_id]]));
  assert.deepEqual(message(await get(`/api/method/frappe.client.get_value?doctype=Lead&fieldname=email_id&filters=${byEmail}&as_dict=true&debug=false`)), { email_id: first.email_id });
  const two = message(await get(`/api/method/frappe.client.get_value?doctype=Lead&fieldname=%5B%22email_id%22,%22name%22%5D&filters=${byEmail}&as_dict=true&debug=false`));
  assert.deepEqual(two, { email_id: first.email_id, name: first.name });
  assert.equal(message(await get(`/api/method/frappe.client.get_value?doctype=Lead&fieldname=%5B%22email_id%22%5D&filters=${byEmail}&as_dict=false&debug=false`)), first.email_id);
  assert.deepEqual(message(await get(`/api/method/frappe.client.get_value?doctype=Lead&fieldname=email_id&filters=${encodeURIComponent(first.name)}`)), { email_id: first.email_id });
  // The SDK's default fieldname '[]' reads the name.
  assert.deepEqual(message(await get(`/api/method/frappe.client.get_value?doctype=Lead&fieldname=%5B%5D&filters=${byEmail}&as_dict=true&debug=false`)), { name: first.name });
  const none = encodeURIComponent(JSON.stringify([['email_id', '=', 'nobody@example.test']]));
  assert.deepEqual(message(await get(`/api/method/frappe.client.get_value?doctype=Lead&fieldname=email_id&filters=${none}&as_dict=true&debug=false`)), {});
  assert.deepEqual((await get(`/api/method/frappe.client.get_value?doctype=Lead&fieldname=email_id&filters=${none}&as_dict=false&debug=false`)).json(), {});
});

test('getDocList, getLastDoc and getDoc (on /api/resource), and frappe.client.get_list answering the same rows', async () => {
  const list = await get('/api/resource/Lead?fields=%5B%22name%22%5D&filters=%5B%5B%22email_id%22,%22!%3D%22,%22a@example.test%22%5D%5D&order_by=creation+desc&limit=5&limit_start=0&as_dict=true');
  assert.equal(list.status, 200);
  const rows = (list.json() as { data: { name: string }[] }).data;
  assert.equal(rows.length, 2);
  const viaMethod = await get('/api/method/frappe.client.get_list?doctype=Lead&fields=%5B%22name%22%5D&filters=%5B%5B%22email_id%22,%22!%3D%22,%22a@example.test%22%5D%5D&order_by=creation+desc&limit_page_length=5&limit_start=0&as_dict=true');
  assert.deepEqual(message(viaMethod), rows);
  const form = await send(`${erp.url}/api/method/frappe.client.get_list`, { method: 'POST', headers: { authorization: TOKEN, 'content-type': 'application/x-www-form-urlencoded' }, body: 'doctype=Lead&fields=%5B%22name%22%5D&filters=%5B%5B%22email_id%22%2C%22!%3D%22%2C%22a%40example.test%22%5D%5D&order_by=creation%20desc' });
  assert.deepEqual(message(form), rows);
  const last = await get('/api/resource/Lead?fields=%5B%22name%22%5D&order_by=creation+desc&limit=1&as_dict=true');
  const lastName = (last.json() as { data: { name: string }[] }).data[0]!.name;
  const doc = await get(`/api/resource/Lead/${encodeURIComponent(lastName)}`);
  assert.equal((doc.json() as { data: { name: string } }).data.name, lastName);
});

test('getSingleValue: a clear ValidationError (no Single DocType here); an unknown DocType is 404', async () => {
  const single = await get('/api/method/frappe.client.get_single_value?doctype=Lead&field=email_id');
  assert.equal(single.status, 417);
  assert.match(frappeErrorText(single).message, /not a Single DocType/);
  const unknown = await get('/api/method/frappe.client.get_single_value?doctype=System+Settings&field=country');
  assert.equal(unknown.status, 404);
});

test('ping answers pong without auth, GET and POST', async () => {
  assert.deepEqual((await get('/api/method/ping', null)).json(), { message: 'pong' });
  assert.deepEqual((await send(`${erp.url}/api/method/ping`, { method: 'POST' })).json(), { message: 'pong' });
});

test('the read methods take the same auth as /api/resource and write nothing', async () => {
  const before = counts();
  for (const path of ['frappe.client.get_list?doctype=Lead', 'frappe.client.get_count?doctype=Lead', 'frappe.client.get_value?doctype=Lead&fieldname=name']) {
    assert.equal((await get(`/api/method/${path}`, null)).status, 403, path);
    assert.equal((await get(`/api/method/${path}`, 'token a1b2c3d4e5:wrong')).status, 401, path);
  }
  assert.deepEqual(counts(), before);
});

test('bad arguments are 417 or 404, never 5xx', async () => {
  const cases: [string, number, RegExp][] = [
    ['frappe.client.get_count', 417, /Missing argument "doctype"/],
    ['frappe.client.get_count?doctype=Nope', 404, /DocType Nope not found/],
    ['frappe.client.get_count?doctype=Lead&filters=%5B1%5D', 417, /Each filter/],
    ['frappe.client.get_count?doctype=Lead&limit=3', 417, /Unexpected argument "limit"/],
    ['frappe.client.get_list?doctype=Lead&group_by=status', 417, /group_by/],
    ['frappe.client.get_list?doctype=Lead&parent=Lead', 417, /child-table/],
    ['frappe.client.get_list?doctype=Lead&limit_page_length=-1', 417, /whole number/],
    ['frappe.client.get_value?doctype=Lead&fieldname=%5B%22Bad%20Field%22%5D', 417, /not permitted/],
    ['frappe.client.get_value?doctype=Lead&fieldname=name&as_dict=maybe', 417, /must be 1 or 0/],
    ['frappe.client.get_value?doctype=Lead&fieldname=name&debug=%7B%7D', 417, /must be 1 or 0/],
  ];
  for (const [path, status, text] of cases) {
    const answer = await get(`/api/method/${path}`);
    assert.equal(answer.status, status, `${path}: ${answer.text}`);
    assert.match(frappeErrorText(answer).message, text, path);
  }
});
