import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { send } from '../helpers/http.ts';
import { startGovernance } from './_service.ts';
import type { RunningGovernance } from './_service.ts';
import { REPO, rootEnv } from './_fixtures.ts';

// Walks the cross-references of the committed contracts as a consumer would: through the routes.
let running: RunningGovernance;
const get = async (path: string) => (await send(`${running.platform}${path}`)).json() as any;

before(async () => {
  running = await startGovernance({ role: 'platform-api', env: rootEnv(REPO) });
});
after(() => running.stop());

test('every family the matrix names exists: as a family of this service, or with a producer in the manifest', async () => {
  const matrix = await get('/api/v1/contracts/matrix');
  const families = new Set((await get('/api/v1/contracts/families')).families.map((f: { family: string }) => f.family));
  assert.ok(matrix.services.includes('governance'));
  for (const row of matrix.families) {
    assert.ok(row.producers.length > 0, `family "${row.family}" has a producer`);
    if (row.producers.includes('governance')) assert.ok(families.has(row.family), `family "${row.family}" is one of /api/v1/contracts/families`);
  }
  for (const family of families) assert.ok(matrix.families.some((r: { family: string; producers: string[] }) => r.family === family && r.producers.includes('governance')), `family "${family}" is in the matrix`);
});

test('the matrix includes the semantic service when the manifest has it, with governance as a consumer', async (t) => {
  const matrix = await get('/api/v1/contracts/matrix');
  if (!matrix.services.includes('semantic')) return t.skip('governance-manifest.json has no semantic entry yet');
  const semantic = matrix.families.find((r: { family: string }) => r.family === 'semantic');
  assert.ok(semantic.producers.includes('semantic'));
  assert.ok(semantic.producers.includes('governance'), 'governance publishes /api/v1/semantic/projection-verification-harness');
  assert.ok(semantic.consumers.some((c: { service: string; surfaces: string[] }) => c.service === 'governance' && c.surfaces.includes('POST /api/v1/semantic/projection-verification/runs')));
});

test('every schema an artifact references resolves through /api/v1/contracts/schemas/{schema_id}', async () => {
  const registry = await get('/api/v1/contracts/registry');
  const referenced = new Set<string>();
  for (const artifact of registry.artifacts) {
    referenced.add(artifact.schema);
    const text = JSON.stringify(await get(`/api/v1/contracts/schemas/${artifact.schema.split(':').at(-1)}`));
    for (const ref of text.match(/urn:airlock:governance:schema:[a-z0-9_]+_v\d+/g) ?? []) referenced.add(ref);
  }
  const admission = await get('/api/v1/contracts/admission-governance');
  referenced.add(admission.dry_run_input_schema);
  for (const id of referenced) {
    const response = await send(`${running.platform}/api/v1/contracts/schemas/${id.split(':').at(-1)}`);
    assert.equal(response.status, 200, id);
    assert.equal((response.json() as { $id: string }).$id, id);
  }
  assert.ok(referenced.size >= 26, `${referenced.size} schemas walked`);
});

test('every tool an assertion, a capability class or a module can name is in the tool-action registry', async () => {
  const registry = new Map((await get('/api/v1/acp/contracts/tool-action-registry')).tools.map((t: { tool_name: string }) => [t.tool_name, t]));
  const named: [string, string][] = [];
  for (const entry of (await get('/api/v1/acp/contracts/capability-registry')).capability_classes) for (const tool of entry.tools) named.push([tool, `class ${entry.class}`]);
  for (const module of (await get('/api/v1/agent/contracts/capability-module-map')).modules) {
    for (const tool of module.tools) named.push([tool, `module ${module.module_key}`]);
    const context = await get(`/api/v1/agent/action-context/${module.module_key}`);
    for (const tool of context.tools) assert.notEqual(tool.state, 'unregistered', `${module.module_key}: ${tool.tool_name}`);
  }
  const assertable = registry.size > 0 ? [...registry.values()].filter((t: any) => t.assertable).map((t: any) => t.tool_name) : [];
  assert.ok(assertable.length > 0);
  for (const tool of assertable) {
    named.push([tool, 'assertion']);
    const query = `tenant_id=t&company_id=c&environment=staging&adapter_instance_id=a&context_observed_at=${Math.floor(Date.now() / 1000)}`;
    const response = await send(`${running.platform}/api/v1/acp/assertions/context-capability/${tool}?${query}`);
    assert.equal((response.json() as { reason: string }).reason, 'unknown_company', `${tool} passes the tool checks and reaches the company check`);
  }
  for (const [tool, where] of named) assert.ok(registry.has(tool), `${where} names "${tool}"`);
});

test('every route a contract or the docs name is served (the drift route lists none unresolved)', async () => {
  const drift = await get('/api/v1/contracts/drift');
  const unresolved = drift.drift.filter((d: { kind: string }) => ['route_ref_unresolved', 'schema_ref_unresolved', 'tool_ref_unknown', 'member_missing', 'member_unpublished', 'doc_route_unknown', 'doc_family_uncovered'].includes(d.kind));
  assert.deepEqual(unresolved, []);
  const lanes = await get('/api/v1/planning/interaction-lanes');
  for (const lane of lanes.lanes) assert.equal((await send(`${running.platform}${lane.route}`)).status, 200, lane.route);
});
