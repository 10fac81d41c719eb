import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileSchema } from '../../src/kernel/index.ts';
import { manifest } from '../../src/erp/manifest.ts';
import { WORKFLOW_SURFACE_PATH, workflowSurface } from '../../src/erp/workflows/surface-contract.ts';
import { callMethod, frappeErrorText, postHouse, startErp, tableCounts } from './_service.ts';
import type { Running } from './_service.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const committed = JSON.parse(readFileSync(join(ROOT, WORKFLOW_SURFACE_PATH), 'utf8')) as { workflows: { path: string; input_schema: unknown; output_schema: unknown; stability: string }[] };
let erp: Running;
before(async () => {
  erp = await startErp();
});
after(() => erp.stop());

test('the committed workflow-surface contract is the route table\'s, and names every workflows.* route', () => {
  assert.deepEqual(committed, workflowSurface(manifest.routes as Parameters<typeof workflowSurface>[0]));
  const table = erp.service.routes.filter((r) => r.path.includes('.api.workflows.')).map((r) => r.path).sort();
  assert.deepEqual(committed.workflows.map((w) => w.path), table);
  for (const w of committed.workflows) assert.equal(w.stability, w.path.endsWith('materialize_dispatch_callback_job') ? 'stable' : 'internal');
});

test('requests are validated against the contract, and answers satisfy its output schemas', async () => {
  const before = tableCounts(erp.service);
  const refused = await callMethod(erp.url, 'workflows.post_revenue_event', { name: 42 });
  assert.equal(refused.status, 417);
  assert.match(frappeErrorText(refused).message, /workflow-surface contract/);
  const extra = await callMethod(erp.url, 'workflows.request_approval', { doctype: 'Lead', docname: 'x', priority: 'high' });
  assert.match(frappeErrorText(extra).message, /workflow-surface contract/);
  assert.deepEqual(tableCounts(erp.service), before);

  const staged = await postHouse(erp.url, 'supplier_intake', { vendor: { name: 'Globex LLC' }, invoice: { number: 'WS-1', currency: 'USD' }, totals: { grand_total: '1.00' }, line_items: [{ description: 'x', amount: '1.00' }] });
  const name = (staged.json() as { message: { supplier_intake: string } }).message.supplier_intake;
  const answers: [string, Record<string, unknown>][] = [
    ['workflows.post_supplier_intake', { name }],
    ['workflows.request_supplier_intake_approval', { name }],
    ['workflows.materialize_dispatch_callback_job', { dispatch_job: 'ws-job' }],
  ];
  for (const [dotted, args] of answers) {
    const response = await callMethod(erp.url, dotted, args);
    assert.equal(response.status, 200, response.text);
    const schema = committed.workflows.find((w) => w.path.endsWith(dotted))!.output_schema;
    const result = compileSchema(schema).validate(response.json());
    assert.ok(result.valid, `${dotted}: ${JSON.stringify(result.errors)}`);
  }
});
