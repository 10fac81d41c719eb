// ERP_SUPPLIERS_FILE is re-read when it changes (review: it was read only at start, yet the
// posting error told the operator to edit it): add a supplier, retry with force=1, and the intake
// posts without a restart; a file that turns invalid keeps the last good list.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { send } from '../helpers/http.ts';
import type { TestResponse } from '../helpers/http.ts';
import { TOKEN, callMethod, postHouse, startErp } from './_service.ts';
import type { Running } from './_service.ts';

let erp: Running;
before(async () => {
  erp = await startErp();
});
after(() => erp.stop());

const message = (r: TestResponse) => (r.json() as { message: Record<string, any> }).message;
const supplierNames = async () => ((await send(`${erp.url}/api/resource/Supplier?limit=0`, { headers: { authorization: TOKEN } })).json() as { data: { name: string }[] }).data.map((d) => d.name).sort();

test('an unknown supplier posts after it is added to ERP_SUPPLIERS_FILE, with force=1 and no restart', async () => {
  const staged = await postHouse(erp.url, 'supplier_intake', { vendor: { name: 'Newco AG' }, invoice: { number: 'N-1', currency: 'EUR' }, totals: { grand_total: '2.00' }, line_items: [{ description: 'x', amount: '2.00' }] });
  const name = message(staged)['supplier_intake'];
  const error = message(await callMethod(erp.url, 'workflows.post_supplier_intake', { name }));
  assert.equal(error['status'], 'error');
  assert.match(error['errors'][0], /add it to ERP_SUPPLIERS_FILE \(re-read when it changes, no restart\) and retry with force=1/);
  const file = join(erp.dir, 'suppliers.json');
  writeFileSync(file, JSON.stringify({ suppliers: [{ name: 'Acme Parts GmbH', default_currency: 'EUR', tax_id: 'DE123' }, { name: 'Globex LLC' }, { name: 'Newco AG', default_currency: 'EUR' }] }));
  const posted = message(await callMethod(erp.url, 'workflows.post_supplier_intake', { name, force: 1 }));
  assert.equal(posted['status'], 'posted', JSON.stringify(posted));
  assert.deepEqual(await supplierNames(), ['Acme Parts GmbH', 'Globex LLC', 'Newco AG']);
  const status = message(await send(`${erp.url}/api/method/erp_core.api.health.integration_status`));
  assert.equal(status['auth'].suppliers, 3);
});

test('a suppliers file that turns invalid keeps the last good list', async () => {
  writeFileSync(join(erp.dir, 'suppliers.json'), '{"suppliers": [{"name": ""}]}');
  assert.deepEqual(await supplierNames(), ['Acme Parts GmbH', 'Globex LLC', 'Newco AG']);
  writeFileSync(join(erp.dir, 'suppliers.json'), 'not json at all');
  assert.deepEqual(await supplierNames(), ['Acme Parts GmbH', 'Globex LLC', 'Newco AG']);
  writeFileSync(join(erp.dir, 'suppliers.json'), JSON.stringify({ suppliers: [{ name: 'Globex LLC' }] }));
  assert.deepEqual(await supplierNames(), ['Globex LLC']);
});
