// GET /api/resource/<DocType> with hostile list arguments: Object.prototype member names as
// fields, filters and order_by read nothing but the document's own fields, and a filter value
// that is not a scalar (an object, or a list outside in / not in) is refused, not stringified.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { send } from '../helpers/http.ts';
import { frappeErrorText, postHouse, startErp, TOKEN } from './_service.ts';
import type { Running } from './_service.ts';

let erp: Running;
const list = (query: Record<string, string>) => send(`${erp.url}/api/resource/Lead?${new URLSearchParams(query)}`, { headers: { authorization: TOKEN } });

before(async () => {
  erp = await startErp();
  for (const email of ['a@example.test', 'b@example.test']) {
    const staged = await postHouse(erp.url, 'website_contact_intake', { contact: { email, name: 'A' }, interest: 'x' });
    assert.equal(staged.status, 200, staged.text);
  }
});
after(() => erp.stop());

test('prototype member names as fields read as absent (null), never Object.prototype', async () => {
  const answer = await list({ fields: '["name","__proto__","constructor"]' });
  assert.equal(answer.status, 200, answer.text);
  const rows = (answer.json() as { data: Record<string, unknown>[] }).data;
  assert.equal(rows.length, 2);
  for (const row of rows) {
    assert.deepEqual(Object.keys(row), ['name', '__proto__', 'constructor']);
    assert.equal(Object.getOwnPropertyDescriptor(row, '__proto__')?.value, null);
    assert.equal(row['constructor'], null);
  }
});

test('a filter on a prototype member matches no document', async () => {
  for (const filters of ['[["constructor","=","function Object() { [native code] }"]]', '[["__proto__","=","[object Object]"]]', '[["constructor","is","set"]]']) {
    const answer = await list({ filters });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual((answer.json() as { data: unknown[] }).data, [], filters);
  }
});

test('a filter value that is an object, or a list outside in / not in, is a ValidationError', async () => {
  for (const filters of ['{"__proto__":{"x":1}}', '[["email_id","=",{"a":1}]]', '[["email_id","=",["a@example.test"]]]', '[["email_id","like",["%"]]]', '[["name","in",["x",{"b":1}]]]', '[["name","not in",[["x"]]]]']) {
    const answer = await list({ filters });
    assert.equal(answer.status, 417, `${filters}: ${answer.text}`);
    assert.equal(frappeErrorText(answer).exc_type, 'ValidationError');
  }
  const scalars = await list({ filters: '[["email_id","in",["a@example.test",7,null]]]' });
  assert.deepEqual((scalars.json() as { data: unknown[] }).data.length, 1);
});
