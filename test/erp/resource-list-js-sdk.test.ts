// GET /api/resource/<DocType> as frappe-js-sdk's getDocList and getLastDoc send it (axios params:
// undefined dropped, `order_by=` empty when no order is given, `as_dict=true` always, `or_filters`
// when asked): the same list Frappe's frappe.client.get_list answers.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { send } from '../helpers/http.ts';
import { postHouse, startErp, TOKEN } from './_service.ts';
import type { Running } from './_service.ts';

let erp: Running;

/** axios' params serialization of getDocList's object: undefined values are left out. */
function sdkQuery(params: Record<string, string | number | boolean | undefined>): string {
  return new URLSearchParams(Object.entries(params).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)])).toString();
}
const list = async (params: Record<string, string | number | boolean | undefined>) => {
  const answer = await send(`${erp.url}/api/resource/Lead?${sdkQuery(params)}`, { headers: { authorization: TOKEN } });
  assert.equal(answer.status, 200, answer.text);
  return (answer.json() as { data: Record<string, unknown>[] }).data;
};

before(async () => {
  erp = await startErp();
  for (const email of ['a@example.test', 'b@example.test', 'c@example.test']) {
    assert.equal((await postHouse(erp.url, 'website_contact_intake', { contact: { email, name: email[0]! }, interest: 'x' })).status, 200);
  }
});
after(() => erp.stop());

test('getDocList with a limit only: empty order_by is the default order, as_dict=true is accepted', async () => {
  const rows = await list({ fields: undefined, filters: undefined, or_filters: undefined, order_by: '', group_by: undefined, limit: 2, limit_start: undefined, as_dict: true });
  assert.equal(rows.length, 2);
  assert.deepEqual(Object.keys(rows[0]!), ['name']);
});

test('getLastDoc: order_by "creation desc", limit 1, fields ["name"], as_dict', async () => {
  const rows = await list({ fields: JSON.stringify(['name']), order_by: 'creation desc', limit: 1, as_dict: true });
  const all = await list({ fields: JSON.stringify(['name', 'creation']), limit: 0 });
  const newest = [...all].sort((a, b) => String(b['creation']).localeCompare(String(a['creation'])) || String(b['name']).localeCompare(String(a['name'])))[0]!;
  assert.deepEqual(rows, [{ name: newest['name'] }]);
});

test('or_filters: a document matching any of them, and every filter too', async () => {
  const either = JSON.stringify([['email_id', '=', 'a@example.test'], ['email_id', '=', 'c@example.test']]);
  const rows = await list({ fields: JSON.stringify(['email_id']), or_filters: either, order_by: 'email_id asc', as_dict: true });
  assert.deepEqual(rows.map((r) => r['email_id']), ['a@example.test', 'c@example.test']);
  const both = await list({ fields: JSON.stringify(['email_id']), or_filters: either, filters: JSON.stringify([['email_id', '!=', 'a@example.test']]) });
  assert.deepEqual(both.map((r) => r['email_id']), ['c@example.test']);
  const bad = await send(`${erp.url}/api/resource/Lead?${sdkQuery({ or_filters: '[["email_id","regexp","."]]' })}`, { headers: { authorization: TOKEN } });
  assert.equal(bad.status, 417);
});
