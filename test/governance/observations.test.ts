import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { send, sendJson } from '../helpers/http.ts';
import type { TestResponse } from '../helpers/http.ts';
import { AUTH, serviceOnTempRoot, bearer, evidenceRows, startGovernance } from './_service.ts';
import type { RunningGovernance, TestLane } from './_service.ts';
import { rootEnv, tempRoot } from './_fixtures.ts';

const VERSION = '0.0.0-test';

let running: RunningGovernance;

serviceOnTempRoot((started) => {
  running = started;
});

function post(path: string, body: unknown, lane: TestLane = 'operator', key: string = randomUUID()): Promise<TestResponse> {
  return sendJson(`${running.worker}${path}`, body, { headers: { ...bearer(lane), 'idempotency-key': `"${key}"` } });
}

const now = () => new Date().toISOString();

test('sidecar probes record host observations with their contradictions; the contract readback is unchanged, byte for byte', async () => {
  const posture = await send(`${running.platform}/api/v1/sidecar/posture`);
  const attached = await post('/api/v1/sidecar/state/probe', { sidecar_id: 'sc-1', state: 'attached', observed_at: now() });
  assert.equal(attached.status, 201, attached.text);
  const body = attached.json() as { overrides_contract: boolean; contradicts_contract: string[]; contract_readback: { attached: boolean }; fresh: boolean };
  assert.deepEqual([body.overrides_contract, body.contract_readback.attached, body.fresh], [false, false, true]);
  assert.match(body.contradicts_contract[0]!, /contradicts the contract/);
  const health = await post('/api/v1/sidecar/invocation/self-health/probe', { sidecar_id: 'sc-1', invocation_id: 'inv-9', healthy: true, observed_at: now() });
  assert.equal(health.status, 201);
  assert.equal((health.json() as { contradicts_contract: string[] }).contradicts_contract.length, 1);
  const detached = (await post('/api/v1/sidecar/state/probe', { sidecar_id: 'sc-2', state: 'detached', observed_at: '2020-01-01T00:00:00Z' })).json() as { contradicts_contract: string[]; fresh: boolean };
  assert.deepEqual([detached.contradicts_contract, detached.fresh], [[], false]);

  const after = await send(`${running.platform}/api/v1/sidecar/posture`);
  assert.equal(after.text, posture.text, 'the posture is still the contract\'s');
  assert.equal(after.headers['etag'], posture.headers['etag']);
  const observations = (await send(`${running.platform}/api/v1/tools/runtime-observations`)).json() as { observations: { probe: string; subject: string; overrides_contract: boolean }[]; overrides_contract: boolean };
  assert.deepEqual(observations.observations.map((o) => [o.probe, o.subject, o.overrides_contract]), [['sidecar_state', 'sc-1', false], ['sidecar_self_health', 'sc-1', false], ['sidecar_state', 'sc-2', false]]);
});

test('sidecar probes refuse bad input (422) and other lanes (403)', async () => {
  for (const body of [{ sidecar_id: 'sc-1', state: 'flying', observed_at: now() }, { sidecar_id: 'sc 1', state: 'attached', observed_at: now() }, { sidecar_id: 'sc-1', state: 'attached' }]) {
    assert.equal((await post('/api/v1/sidecar/state/probe', body)).status, 422, JSON.stringify(body));
  }
  assert.equal((await post('/api/v1/sidecar/invocation/self-health/probe', { sidecar_id: 'sc-1', invocation_id: 'i', healthy: 'yes', observed_at: now() })).status, 422);
  assert.equal((await post('/api/v1/sidecar/state/probe', { sidecar_id: 'sc-1', state: 'attached', observed_at: now() }, 'bff')).status, 401);
});

test('POST /api/v1/updates/check compares the installed version with version truth; a contradicting observation leaves version truth unchanged', async () => {
  const truth = await send(`${running.platform}/api/v1/platform/version-truth`);
  const check = async (installed: string, product = 'governance') => (await post('/api/v1/updates/check', { product, installed_version: installed, channel: 'stable' })).json() as { verdict: string; release_version: string; overrides_contract: boolean; update_available: boolean };
  const ahead = await check('9.9.9');
  assert.deepEqual([ahead.verdict, ahead.release_version, ahead.overrides_contract, ahead.update_available], ['installed_ahead', VERSION, false, false]);
  assert.equal((await send(`${running.platform}/api/v1/platform/version-truth`)).text, truth.text, 'version truth is the contract\'s');
  assert.equal((await check(VERSION)).verdict, 'up_to_date');
  assert.equal((await check('0.0.0+abc1234')).verdict, 'different_build');
  assert.equal((await check('9.9.9', 'teleport')).verdict, 'unknown_product');
  assert.equal((await post('/api/v1/updates/check', { product: 'governance', installed_version: 'latest', channel: 'stable' })).status, 422);
  assert.equal((await post('/api/v1/updates/check', { product: 'governance', installed_version: '1.0.0', channel: 'stable' }, 'mail_producer')).status, 401);
});

test('POST /api/v1/updates/rollout-gate opens only at the release version of a known product with empty drift and ready sign-off', async () => {
  const gate = async (body: Record<string, string>) => (await post('/api/v1/updates/rollout-gate', body)).json() as { gate: string; reasons: string[] };
  const open = await gate({ product: 'governance', target_version: VERSION, stage: 'canary' });
  assert.deepEqual([open.gate, open.reasons], ['open', []]);
  const wrong = await gate({ product: 'governance', target_version: '2.0.0', stage: 'fleet' });
  assert.equal(wrong.gate, 'closed');
  assert.match(wrong.reasons.join(), /is not the release version/);
  assert.match((await gate({ product: 'teleport', target_version: VERSION, stage: 'fleet' })).reasons.join(), /neither a manifest service nor a registered product/);
  assert.equal((await sendJson(`${running.worker}/api/v1/updates/rollout-gate`, { product: 'governance', target_version: VERSION, stage: 'fleet' }, { headers: AUTH })).status, 400, 'Idempotency-Key required');
  assert.equal((await post('/api/v1/updates/rollout-gate', { product: 'governance', target_version: VERSION, stage: 'everywhere' })).status, 422);

  const drifted = tempRoot();
  drifted.editJson('contracts/governance/identity_contracts_v1.json', (a) => { a.content['surface-admission'].routes.push('/api/v1/contracts/nowhere'); });
  const other = await startGovernance({ role: 'control-api', env: rootEnv(drifted.root) });
  try {
    const closed = (await sendJson(`${other.worker}/api/v1/updates/rollout-gate`, { product: 'governance', target_version: VERSION, stage: 'canary' }, { headers: { ...AUTH, 'idempotency-key': '"g"' } })).json() as { gate: string; reasons: string[] };
    assert.equal(closed.gate, 'closed');
    assert.ok(closed.reasons.some((r) => /drift list has 1 entry/.test(r)) && closed.reasons.some((r) => /sign-off is not ready/.test(r)), closed.reasons.join('\n'));
  } finally {
    await other.stop();
    drifted.cleanup();
  }
});

test('POST /api/v1/products/register records a product beside the manifest; contradictions are recorded, the catalog keeps the manifest', async () => {
  const catalog = (await send(`${running.platform}/api/v1/products/catalog`)).json() as { products: unknown[] };
  const registered = await post('/api/v1/products/register', { product: 'acme-suite', service: 'governance', title: 'Acme suite', owner: 'someone-else', version: '1.2.3', executables: ['governance-api', 'acme-extra'] });
  assert.equal(registered.status, 201, registered.text);
  const body = registered.json() as { contradictions: string[]; overrides_contract: boolean; contract_readback: { owner: string; executables: string[] } };
  assert.equal(body.overrides_contract, false);
  assert.equal(body.contradictions.length, 2, body.contradictions.join('\n'));
  assert.deepEqual(body.contract_readback.executables, ['governance-api']);
  const after = (await send(`${running.platform}/api/v1/products/catalog`)).json() as { products: unknown[]; registered: { product: string; overrides_contract: boolean }[]; registered_through_api: number };
  assert.deepEqual(after.products, catalog.products, 'the manifest\'s products are unchanged');
  assert.deepEqual([after.registered.map((r) => r.product), after.registered_through_api], [['acme-suite'], 1]);

  const entitled = await post('/api/v1/identity/product-entitlement/projection', { scope: { tenant_id: 't', product: 'acme-suite' }, entitlement: { state: 'active', plan: 'p' }, observed_at: now(), valid_for_seconds: 60, source: { system: 's', record_ref: 'r' } }, 'entitlement_producer');
  assert.equal(entitled.status, 201, 'a registered product is known to the entitlement projection');

  const rows = (await evidenceRows(running))['product_registrations'] ?? 0;
  for (const [body, reason] of [
    [{ product: 'acme-suite', service: 'governance', title: 'x', owner: 'airlock-governance', version: '1.0.0' }, 'already_registered'],
    [{ product: 'ghost', service: 'teleport', title: 'x', owner: 'x', version: '1.0.0' }, 'service_undeclared'],
  ] as const) {
    const refused = await post('/api/v1/products/register', body);
    assert.deepEqual([refused.status, (refused.json() as { reason: string }).reason], [409, reason]);
  }
  assert.equal((await evidenceRows(running))['product_registrations'], rows + 2, 'refusals are recorded too');
  assert.equal((await post('/api/v1/products/register', { product: 'Bad Name', service: 'governance', title: 'x', owner: 'x', version: '1.0.0' })).status, 422);
  assert.equal((await post('/api/v1/products/register', { product: 'p2', service: 'governance', title: 'x', owner: 'x', version: '1.0.0' }, 'bff')).status, 401);
});

test('POST /api/v1/products/register is refused (409) while the drift list is not empty', async () => {
  const drifted = tempRoot();
  drifted.write('docs/governance.md', `${drifted.read('docs/governance.md')}\nSee /api/v1/contracts/secret-sauce.\n`);
  const other = await startGovernance({ role: 'control-api', env: rootEnv(drifted.root) });
  try {
    const refused = await sendJson(`${other.worker}/api/v1/products/register`, { product: 'p3', service: 'governance', title: 'x', owner: 'airlock-governance', version: '1.0.0' }, { headers: { ...AUTH, 'idempotency-key': '"r"' } });
    assert.deepEqual([refused.status, (refused.json() as { reason: string }).reason], [409, 'drift_not_empty']);
  } finally {
    await other.stop();
    drifted.cleanup();
  }
});
