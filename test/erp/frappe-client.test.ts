// Drives the service with requests shaped exactly as Frappe's own clients send them: the
// frappe-client library (requests.Session: POST / with cmd=login form, GET /api/resource/<DocType>/
// with JSON-encoded params, GET/POST /api/method/<method>/ with params, token header, GET /?cmd=logout)
// and frappe.call-style form posts to /api/method/login.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { send } from '../helpers/http.ts';
import type { TestResponse } from '../helpers/http.ts';
import { API_KEY, API_SECRET, USER, frappeErrorText, postHouse, startErp, tableCounts } from './_service.ts';
import type { Running } from './_service.ts';

let erp: Running;
before(async () => {
  erp = await startErp();
  for (const email of ['a@x.test', 'b@x.test', 'c@x.test']) await postHouse(erp.url, 'website_contact_intake', { contact: { email, first_name: email[0] }, site: 'example.test' });
});
after(() => erp.stop());

/** A minimal requests.Session: keeps cookies, form-encodes `data`, query-encodes `params`. */
function session(baseHeaders: Record<string, string> = {}) {
  const cookies = new Map<string, string>();
  const remember = (response: TestResponse) => {
    const set = response.headers['set-cookie'] ?? [];
    for (const line of set) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    return response;
  };
  const headers = () => ({ accept: 'application/json', ...baseHeaders, ...(cookies.size > 0 && { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') }) });
  const query = (params?: Record<string, string>) => (params ? `?${new URLSearchParams(params)}` : '');
  return {
    cookies,
    get: async (path: string, params?: Record<string, string>) => remember(await send(`${erp.url}${path}${query(params)}`, { headers: headers() })),
    post: async (path: string, init: { data?: Record<string, string>; params?: Record<string, string> } = {}) =>
      remember(await send(`${erp.url}${path}${query(init.params)}`, {
        method: 'POST',
        headers: { ...headers(), ...(init.data && { 'content-type': 'application/x-www-form-urlencoded' }) },
        ...(init.data && { body: new URLSearchParams(init.data).toString() }),
      })),
  };
}

describe('frappe-client (session login)', () => {
  test('login with cmd=login on /, read with the sid cookie, logout with ?cmd=logout, then Guest', async () => {
    const client = session();
    const login = await client.post('', { data: { cmd: 'login', usr: USER.usr, pwd: USER.pwd } });
    assert.equal(login.status, 200, login.text);
    assert.equal((login.json() as { message: string }).message, 'Logged In');
    assert.ok(client.cookies.get('sid'));
    const me = await client.get('/api/method/frappe.auth.get_logged_user');
    assert.equal((me.json() as { message: string }).message, USER.usr);
    const list = await client.get('/api/resource/Lead/', { fields: JSON.stringify(['name', 'email_id']), filters: JSON.stringify([['Lead', 'email_id', '=', 'b@x.test']]), limit_start: '0', limit_page_length: '20' });
    assert.equal(list.status, 200, list.text);
    assert.deepEqual((list.json() as { data: { email_id: string }[] }).data.map((d) => d.email_id), ['b@x.test']);
    await client.get('', { cmd: 'logout' });
    const after = await client.get('/api/method/frappe.auth.get_logged_user');
    assert.equal(after.status, 403);
    assert.equal(frappeErrorText(after).exc_type, 'PermissionError');
  });

  test('POST /api/method/login (form and JSON) and POST /api/method/logout; the old sid stops working', async () => {
    const client = session();
    const login = await client.post('/api/method/login', { data: { usr: USER.usr, pwd: USER.pwd } });
    assert.equal((login.json() as { full_name: string }).full_name, 'Ops Person');
    const sid = client.cookies.get('sid')!;
    await client.post('/api/method/logout');
    const stale = await send(`${erp.url}/api/method/frappe.auth.get_logged_user`, { headers: { cookie: `sid=${sid}` } });
    assert.equal(stale.status, 401);
    const json = await send(`${erp.url}/api/method/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ usr: USER.usr, pwd: USER.pwd }) });
    assert.equal(json.status, 200);
    assert.match(String(json.headers['set-cookie']), /sid=[A-Za-z0-9_-]+; Path=\/; HttpOnly/);
  });

  test('wrong password, unknown user, missing pwd: AuthenticationError 401, no session stored', async () => {
    const before = Number(erp.service.store.sqlite.prepare('SELECT count(*) AS n FROM sessions').get()!['n']);
    for (const data of [{ usr: USER.usr, pwd: 'wrong' }, { usr: 'nobody@x.test', pwd: USER.pwd }, { usr: USER.usr }]) {
      const response = await session().post('/api/method/login', { data: data as Record<string, string> });
      assert.equal(response.status, 401, response.text);
      assert.equal(frappeErrorText(response).exc_type, 'AuthenticationError');
      assert.equal(response.headers['set-cookie'], undefined);
    }
    assert.equal(Number(erp.service.store.sqlite.prepare('SELECT count(*) AS n FROM sessions').get()!['n']), before);
    assert.equal((await session().post('', { data: { cmd: 'frappe.client.get_list' } })).status, 404);
  });
});

describe('frappe-client (token auth)', () => {
  const client = session({ authorization: `token ${API_KEY}:${API_SECRET}` });

  test('get_api and post_api with params, get_doc, Basic auth too', async () => {
    const status = await client.get('/api/method/erp_core.api.health.integration_status/');
    assert.equal(status.status, 200);
    const first = (await client.get('/api/resource/Lead', { limit_page_length: '1' })).json() as { data: { name: string }[] };
    const doc = await client.get(`/api/resource/Lead/${first.data[0]!.name}`);
    assert.equal((doc.json() as { data: { doctype: string } }).data.doctype, 'Lead');
    const basic = await send(`${erp.url}/api/method/frappe.auth.get_logged_user`, { headers: { authorization: `Basic ${Buffer.from(`${API_KEY}:${API_SECRET}`).toString('base64')}` } });
    assert.equal((basic.json() as { message: string }).message, API_KEY);
  });

  test('list arguments: fields "*", dict filters with operators, order_by, limit_start, limit, limit 0', async () => {
    const all = (await client.get('/api/resource/Lead', { fields: '["*"]', limit: '0', order_by: 'email_id asc' })).json() as { data: { email_id: string; docstatus: number }[] };
    assert.deepEqual(all.data.map((d) => d.email_id), ['a@x.test', 'b@x.test', 'c@x.test']);
    assert.ok(all.data.every((d) => d.docstatus === 0));
    const page = (await client.get('/api/resource/Lead', { fields: '["email_id"]', order_by: 'email_id asc', limit_start: '1', limit: '1' })).json() as { data: unknown[] };
    assert.deepEqual(page.data, [{ email_id: 'b@x.test' }]);
    const filtered = (await client.get('/api/resource/Lead', { fields: '["email_id"]', filters: JSON.stringify({ email_id: ['in', ['a@x.test', 'c@x.test']] }), order_by: 'email_id desc' })).json() as { data: unknown[] };
    assert.deepEqual(filtered.data, [{ email_id: 'c@x.test' }, { email_id: 'a@x.test' }]);
    const like = (await client.get('/api/resource/Lead', { fields: '["email_id"]', filters: '[["email_id","like","b%"]]' })).json() as { data: unknown[] };
    assert.deepEqual(like.data, [{ email_id: 'b@x.test' }]);
    const suppliers = (await client.get('/api/resource/Supplier', { fields: '["name","default_currency"]', order_by: 'name asc' })).json() as { data: unknown[] };
    assert.deepEqual(suppliers.data, [{ name: 'Acme Parts GmbH', default_currency: 'EUR' }, { name: 'Globex LLC', default_currency: null }]);
  });

  test('bad list arguments, unknown DocType or name, writes: Frappe 4xx, nothing changes', async () => {
    const before = tableCounts(erp.service);
    const cases: [Promise<TestResponse>, number][] = [
      [client.get('/api/resource/Lead', { fields: 'name' }), 417],
      [client.get('/api/resource/Lead', { fields: '["name; drop table"]' }), 417],
      [client.get('/api/resource/Lead', { filters: '[["email_id","~","x"]]' }), 417],
      [client.get('/api/resource/Lead', { filters: '[["Supplier","name","=","x"]]' }), 417],
      [client.get('/api/resource/Lead', { limit: '-1' }), 417],
      [client.get('/api/resource/Lead', { order_by: 'name; drop' }), 417],
      [client.get('/api/resource/Lead', { surprise: '1' }), 417],
      [client.get('/api/resource/ToDo'), 404],
      [client.get('/api/resource/Lead/CRM-LEAD-2026-99999'), 404],
      [client.post('/api/resource/Lead', { data: { data: '{}' } }), 405],
      [send(`${erp.url}/api/resource/Lead`), 403],
    ];
    for (const [pending, status] of cases) {
      const response = await pending;
      assert.equal(response.status, status, response.text);
      assert.ok(frappeErrorText(response).message);
    }
    assert.deepEqual(tableCounts(erp.service), before);
  });
});
