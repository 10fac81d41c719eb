import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { signRequest } from '../../src/kernel/index.ts';
import { send } from '../helpers/http.ts';
import type { TestResponse } from '../helpers/http.ts';
import { SECRETS, TOKEN, WORKSPACE_CALLER, frappeErrorText, startErp, tableCounts } from './_service.ts';
import type { Running } from './_service.ts';

let erp: Running;
before(async () => {
  erp = await startErp();
});
after(() => erp.stop());

const REFS = { tenant_ref: 'tenant-a', company_ref: 'company-1', source_ref: 'crm:lead/42', privacy_ref: 'privacy:internal', acl_ref: 'acl:sales', governance_admission_ref: 'gov:adm-7' };
const path = (fn: string) => `${erp.url}/api/method/erp_core.api.workspace_binding.${fn}`;
const asToken = (fn: string, body: unknown) => send(path(fn), { method: 'POST', headers: { authorization: TOKEN, 'content-type': 'application/json' }, body: JSON.stringify(body) });
function asCaller(fn: string, body: unknown, init: { caller?: string; secret?: string; raw?: string } = {}): Promise<TestResponse> {
  const raw = Buffer.from(init.raw ?? JSON.stringify(body));
  const headers = signRequest('house', { rawBody: raw, secret: init.secret ?? SECRETS.WORKSPACE_SHARED_SECRET, now: Math.floor(Date.now() / 1000) });
  return send(path(fn), { method: 'POST', headers: { ...headers, 'x-workspace-caller': init.caller ?? WORKSPACE_CALLER, 'content-type': 'application/json' }, body: raw });
}
const message = (r: TestResponse) => (r.json() as { message: Record<string, any> }).message;

describe('workspace_binding', () => {
  test('preview is read-only and answers needs_human_review; flat and nested envelopes name the same candidate', async () => {
    const before = tableCounts(erp.service);
    const flat = message(await asToken('preview_workspace_candidate_binding', { ...REFS, title: 'Lead 42' }));
    const nested = message(await asCaller('preview_workspace_candidate_binding', { candidate: REFS }));
    assert.deepEqual(flat['readback'], { materialization_state: 'needs_human_review', review_task: null, closeout_allowed: false });
    assert.equal(flat['owner_readback_route_ref'], nested['owner_readback_route_ref']);
    assert.equal(flat['normalized_candidate'].title, 'Lead 42');
    assert.deepEqual(tableCounts(erp.service), before);
  });

  test('materialize creates exactly one review task however often it is retried; closeout_allowed stays false', async () => {
    const answers = await Promise.all([1, 2, 3].map(() => asCaller('materialize_workspace_candidate_binding', { candidate: REFS })));
    const tasks = new Set(answers.map((a) => message(a)['review_task']));
    assert.equal(tasks.size, 1);
    assert.equal(answers.filter((a) => message(a)['created'] === true).length, 1);
    for (const a of answers) assert.deepEqual([message(a)['readback'].materialization_state, message(a)['readback'].closeout_allowed], ['materialized', false]);
    const again = message(await asToken('materialize_workspace_candidate_binding', REFS));
    assert.equal(again['review_task'], [...tasks][0]);
    const preview = message(await asToken('preview_workspace_candidate_binding', REFS));
    assert.deepEqual([preview['readback'].materialization_state, preview['readback'].closeout_allowed], ['materialized', false]);
    const rows = erp.service.store.sqlite.prepare("SELECT count(*) AS n FROM erp_documents WHERE doctype = 'Workspace Review Task'").get()!;
    assert.equal(Number(rows['n']), 1);
  });

  test('read answers the canonical owner-backed route ref and rejects a mismatching one', async () => {
    const read = message(await asToken('read_workspace_candidate_binding', { candidate: REFS }));
    assert.match(read['owner_readback_route_ref'], /^erp:\/\/workspace-binding\/candidates\/[0-9a-f]{32}$/);
    assert.equal(read['readback'].closeout_allowed, false);
    const matching = await asToken('read_workspace_candidate_binding', { candidate: { ...REFS, readback_ref: read['owner_readback_route_ref'] } });
    assert.equal(matching.status, 200);
    const mismatch = await asToken('read_workspace_candidate_binding', { ...REFS, owner_readback_route_ref: 'erp://workspace-binding/candidates/other' });
    assert.equal(mismatch.status, 417);
    assert.match(frappeErrorText(mismatch).message, /Owner readback ref mismatch/);
  });

  test('missing, conflicting, malformed and unknown fields are rejected; nothing changes', async () => {
    const before = tableCounts(erp.service);
    const { acl_ref: _, ...withoutAcl } = REFS;
    const cases: [unknown, RegExp][] = [
      [withoutAcl, /Missing required field "acl_ref"/],
      [{ ...REFS, candidate: { ...REFS, tenant_ref: 'tenant-b' } }, /Conflicting field "tenant_ref"/],
      [{ ...REFS, tenant_ref: 7 }, /"tenant_ref" must be a reference/],
      [{ ...REFS, tenant_ref: 'has space' }, /"tenant_ref" must be a reference/],
      [{ ...REFS, surprise: true }, /Unknown field "surprise"/],
      [{ candidate: 'x' }, /"candidate" must be an object/],
      [[REFS], /JSON body must be an object/],
    ];
    for (const [body, pattern] of cases) {
      const response = await asToken('materialize_workspace_candidate_binding', body);
      assert.equal(response.status, 417, response.text);
      assert.match(frappeErrorText(response).message, pattern);
    }
    const malformed = await send(path('materialize_workspace_candidate_binding'), { method: 'POST', headers: { authorization: TOKEN, 'content-type': 'application/json' }, body: '{"tenant_ref":' });
    assert.equal(malformed.status, 417);
    assert.deepEqual(tableCounts(erp.service), before);
  });

  test('guest callers need an admitted X-Workspace-Caller and a valid HMAC; no credential at all is refused', async () => {
    const before = tableCounts(erp.service);
    const other = { ...REFS, tenant_ref: 'tenant-z' };
    const unknownCaller = await asCaller('materialize_workspace_candidate_binding', other, { caller: 'stranger' });
    const badSignature = await asCaller('materialize_workspace_candidate_binding', other, { secret: 'wrong-secret' });
    assert.equal(unknownCaller.status, 401);
    assert.equal(badSignature.status, 401);
    assert.equal(unknownCaller.text, badSignature.text, 'one fixed answer');
    const unsigned = await send(path('materialize_workspace_candidate_binding'), { method: 'POST', headers: { 'x-workspace-caller': WORKSPACE_CALLER, 'content-type': 'application/json' }, body: JSON.stringify(other) });
    assert.equal(unsigned.status, 401);
    const anonymous = await send(path('materialize_workspace_candidate_binding'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(other) });
    assert.equal(anonymous.status, 403);
    assert.equal(frappeErrorText(anonymous).exc_type, 'PermissionError');
    const wrongToken = await send(path('materialize_workspace_candidate_binding'), { method: 'POST', headers: { authorization: 'token a:b', 'content-type': 'application/json' }, body: JSON.stringify(other) });
    assert.equal(wrongToken.status, 401);
    assert.deepEqual(tableCounts(erp.service), before);
  });

  test('form bodies and query calls are accepted as on every other token route (they were 415)', async () => {
    const before = tableCounts(erp.service);
    const json = message(await asToken('preview_workspace_candidate_binding', REFS));
    const form = await send(path('preview_workspace_candidate_binding'), { method: 'POST', headers: { authorization: TOKEN, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ ...REFS, cmd: 'erp_core.api.workspace_binding.preview_workspace_candidate_binding' }).toString() });
    assert.equal(form.status, 200, form.text);
    assert.equal(message(form)['owner_readback_route_ref'], json['owner_readback_route_ref']);
    const nestedForm = await send(path('read_workspace_candidate_binding'), { method: 'POST', headers: { authorization: TOKEN, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ candidate: JSON.stringify(REFS) }).toString() });
    assert.equal(message(nestedForm)['owner_readback_route_ref'], json['owner_readback_route_ref']);
    const query = await send(`${path('preview_workspace_candidate_binding')}?${new URLSearchParams(REFS)}`, { method: 'POST', headers: { authorization: TOKEN } });
    assert.equal(query.status, 200, query.text);
    assert.equal(message(query)['owner_readback_route_ref'], json['owner_readback_route_ref']);
    // A signed guest caller signs the form bytes it sends.
    const raw = new URLSearchParams(REFS).toString();
    const headers = signRequest('house', { rawBody: Buffer.from(raw), secret: SECRETS.WORKSPACE_SHARED_SECRET, now: Math.floor(Date.now() / 1000) });
    const guest = await send(path('preview_workspace_candidate_binding'), { method: 'POST', headers: { ...headers, 'x-workspace-caller': WORKSPACE_CALLER, 'content-type': 'application/x-www-form-urlencoded' }, body: raw });
    assert.equal(message(guest)['owner_readback_route_ref'], json['owner_readback_route_ref']);
    const xml = await send(path('preview_workspace_candidate_binding'), { method: 'POST', headers: { authorization: TOKEN, 'content-type': 'application/xml' }, body: '<a/>' });
    assert.equal(xml.status, 415);
    const badForm = await send(path('preview_workspace_candidate_binding'), { method: 'POST', headers: { authorization: TOKEN, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ ...REFS, surprise: 'x' }).toString() });
    assert.match(frappeErrorText(badForm).message, /Unknown field "surprise"/);
    assert.deepEqual(tableCounts(erp.service), before);
  });

  test('the capability inventory names the lane\'s real auth, not none', async () => {
    const inventory = (await send(`${erp.url}/capability-inventory`)).json() as { capabilities: { path: string; auth: string }[] };
    const lanes = inventory.capabilities.filter((c) => c.path.includes('workspace_binding.'));
    assert.equal(lanes.length, 3);
    for (const lane of lanes) assert.equal(lane.auth, 'frappe or signature:house with X-Workspace-Caller', lane.path);
    assert.ok(inventory.capabilities.every((c) => c.auth !== 'none' || !/workspace_binding|workflows|resource|frappe\.client/.test(c.path)), 'no authenticated route says none');
  });

  test('the review task reads back through /api/resource', async () => {
    const list = await send(`${erp.url}/api/resource/Workspace%20Review%20Task?fields=["name","materialization_state","closeout_allowed","tenant_ref"]`, { headers: { authorization: TOKEN } });
    const data = (list.json() as { data: Record<string, unknown>[] }).data;
    assert.equal(data.length, 1);
    assert.deepEqual([data[0]!['materialization_state'], data[0]!['closeout_allowed'], data[0]!['tenant_ref']], ['materialized', 0, 'tenant-a']);
  });
});
