import { test } from 'node:test';
import assert from 'node:assert/strict';
import { send } from '../helpers/http.ts';
import { startGovernance } from './_service.ts';
import { REPO, rootEnv, startCrmDouble, tempRoot } from './_fixtures.ts';
import type { TempRoot } from './_fixtures.ts';

interface DriftItem {
  kind: string;
  subject: string;
  detail: string;
}

async function driftOf(root: TempRoot | string): Promise<DriftItem[]> {
  const running = await startGovernance({ role: 'platform-api', env: rootEnv(typeof root === 'string' ? root : root.root) });
  try {
    return ((await send(`${running.platform}/api/v1/contracts/drift`)).json() as { drift: DriftItem[] }).drift;
  } finally {
    await running.stop();
  }
}

const DIR = 'contracts/governance';

// Each case seeds one contradiction into an otherwise consistent root; the drift route must list it.
interface Expected {
  kind: string;
  subject?: string;
  detail?: RegExp;
}

const SEEDED: [string, (root: TempRoot) => void, Expected][] = [
  ['the manifest lacks a served surface', (r) => r.editJson('governance-manifest.json', (m) => { m.services[0].exposed_surfaces = m.services[0].exposed_surfaces.filter((s: { path: string }) => s.path !== '/api/v1/contracts/drift'); }), { kind: 'surface_undeclared', detail: /\/api\/v1\/contracts\/drift/ }],
  ['the manifest declares a surface nobody serves', (r) => r.editJson('governance-manifest.json', (m) => { m.services[0].exposed_surfaces.push({ listener: 'platform', method: 'GET', path: '/api/v1/contracts/ghost', auth: 'none' }); }), { kind: 'surface_unserved', detail: /ghost/ }],
  ['the manifest misses a capability', (r) => r.editJson('governance-manifest.json', (m) => { m.services[0].capabilities = m.services[0].capabilities.filter((c: string) => c !== 'drift-detection'); }), { kind: 'capability_undeclared', detail: /drift-detection/ }],
  ['a consumer declares a surface its owner does not expose', (r) => r.editJson('governance-manifest.json', (m) => { m.services.push({ service: 'telephony', consumed_surfaces: [{ owner: 'governance', method: 'GET', path: '/api/v1/voice/contracts/calls', description: 'x' }], exposed_surfaces: [] }); }), { kind: 'consumed_surface_unexposed', subject: 'telephony' }],
  ['the manifest lists a contract file that does not exist', (r) => r.editJson('governance-manifest.json', (m) => { m.services[0].contracts.push('contracts/governance/gone_v1.json'); }), { kind: 'contract_file_missing', detail: /gone_v1/ }],
  ['the committed export differs from the route table', (r) => r.editJson('contracts/api/governance_openapi_v1.json', (o) => { delete o.paths['/api/v1/contracts/matrix']; }), { kind: 'openapi_drift', detail: /\/api\/v1\/contracts\/matrix/ }],
  ['an artifact names a route that is not served', (r) => r.editJson(`${DIR}/identity_contracts_v1.json`, (a) => { a.content['consumers-onboarding'].routes.push('/api/v1/contracts/nowhere'); }), { kind: 'route_ref_unresolved', subject: 'identity_contracts', detail: /nowhere/ }],
  ['an artifact names a schema that does not exist', (r) => r.editJson(`${DIR}/contracts_governance_v1.json`, (a) => { a.content['admission-governance'].dry_run_input_schema = 'urn:airlock:governance:schema:missing_v1'; }), { kind: 'schema_ref_unresolved', detail: /missing_v1/ }],
  ['a module names a tool the registry lacks', (r) => r.editJson(`${DIR}/agent_contracts_v1.json`, (a) => { a.content['capability-module-map'].modules[0].tools.push('shadow_tool'); }), { kind: 'tool_ref_unknown', detail: /shadow_tool/ }],
  ['the assertion contract names a tool the registry does not mark assertable', (r) => r.editJson(`${DIR}/acp_context_assertion_v1.json`, (a) => { a.content['context-capability'].assertable_tools.push('governance_contract_read'); }), { kind: 'tool_ref_unknown', detail: /governance_contract_read/ }],
  ['an artifact gains a member its schema forbids', (r) => r.editJson(`${DIR}/sidecar_v1.json`, (a) => { a.content.extra = { summary: 'x', projection_state: 'planned' }; }), { kind: 'artifact_invalid', subject: 'sidecar' }],
  ['an artifact and its schema gain a member no route publishes', (r) => {
    r.editJson(`${DIR}/schemas/sidecar_v1.schema.json`, (s) => { delete s.properties.content.additionalProperties; });
    r.editJson(`${DIR}/sidecar_v1.json`, (a) => { a.content.extra = { summary: 'x', projection_state: 'planned' }; });
  }, { kind: 'member_unpublished', subject: 'sidecar', detail: /"extra"/ }],
  ['an artifact file is published by no route', (r) => {
    r.write(`${DIR}/schemas/orphan_v1.schema.json`, JSON.stringify({ $schema: 'https://json-schema.org/draft/2020-12/schema', $id: 'urn:airlock:governance:schema:orphan_v1', $ref: 'urn:airlock:governance:schema:artifact_envelope_v1' }));
    r.write(`${DIR}/orphan_v1.json`, JSON.stringify({ artifact_id: 'orphan', version: '1.0.0', owner: 'x', family: 'orphan', schema: 'urn:airlock:governance:schema:orphan_v1', summary: 'x', content: { a: { summary: 'x', projection_state: 'planned' } } }));
  }, { kind: 'artifact_unused', subject: 'orphan' }],
  ['the doc lacks a docs-standard section', (r) => r.write('docs/governance.md', r.read('docs/governance.md').replace('## OSS inventory', '## Open source')), { kind: 'doc_section_missing', detail: /OSS inventory/ }],
  ['the doc mentions a route that does not exist', (r) => r.write('docs/governance.md', `${r.read('docs/governance.md')}\nTry /api/v1/contracts/secret-sauce too.\n`), { kind: 'doc_route_unknown', detail: /secret-sauce/ }],
  ['the doc is missing', (r) => r.remove('docs/governance.md'), { kind: 'doc_missing', subject: 'docs/governance.md' }],
  ['the docs catalog covers a family with no route', (r) => r.editJson(`${DIR}/docs_publication_v1.json`, (a) => { a.content.catalog.documents[0].covers.push('teleport'); }), { kind: 'doc_family_unknown', detail: /teleport/ }],
  ['the manifest is missing', (r) => r.remove('governance-manifest.json'), { kind: 'manifest_missing' }],
];

test('GET /api/v1/contracts/drift is empty on a consistent root', async () => {
  const root = tempRoot();
  try {
    assert.deepEqual(await driftOf(root), []);
  } finally {
    root.cleanup();
  }
});

for (const [name, seed, expected] of SEEDED) {
  test(`GET /api/v1/contracts/drift lists it when ${name}`, async () => {
    const root = tempRoot();
    try {
      seed(root);
      const drift = await driftOf(root);
      const hit = drift.find((d) => d.kind === expected.kind
        && (expected.subject === undefined || d.subject === expected.subject)
        && (expected.detail === undefined || expected.detail.test(d.detail)));
      assert.ok(hit, `expected ${JSON.stringify(expected, (_, v) => (v instanceof RegExp ? String(v) : v))} in ${JSON.stringify(drift, null, 1)}`);
    } finally {
      root.cleanup();
    }
  });
}

test('a seeded contradiction turns signoff and control-plane readiness red, naming drift_empty', async () => {
  const root = tempRoot();
  root.editJson(`${DIR}/identity_contracts_v1.json`, (a) => { a.content['surface-admission'].routes.push('/api/v1/contracts/nowhere'); });
  const crm = await startCrmDouble();
  const running = await startGovernance({ role: 'platform-api', env: { ...rootEnv(root.root), GOVERNANCE_CRM_UPSTREAM_URL: crm.url, GOVERNANCE_CRM_KNOWN_COMPANIES: 'tenant-a/company-1' } });
  try {
    for (const path of ['/api/v1/signoff/readiness', '/api/v1/production-readiness/control-plane']) {
      const response = await send(`${running.platform}${path}`);
      assert.equal(response.status, 503, path);
      const body = response.json() as { ready: boolean; checks: Record<string, { status: string; output?: string }[]> };
      assert.equal(body.ready, false);
      assert.equal(body.checks['drift_empty']?.[0]?.status, 'fail');
      assert.match(String(body.checks['drift_empty']?.[0]?.output), /route_ref_unresolved/);
    }
    assert.equal((await send(`${running.platform}/api/v1/security/readiness`)).status, 200, 'security does not depend on drift');
  } finally {
    await running.stop();
    await crm.close();
    root.cleanup();
  }
});

test('the repository itself has no drift that this service owns', async (t) => {
  const drift = await driftOf(REPO);
  // Another service's manifest may be wrong about governance; that is listed, and reported here.
  const foreign = drift.filter((d) => d.kind === 'consumed_surface_unexposed' && d.subject !== 'governance');
  for (const item of foreign) t.diagnostic(`another service's drift: ${item.subject}: ${item.detail}`);
  assert.deepEqual(drift.filter((d) => !foreign.includes(d)), []);
});
