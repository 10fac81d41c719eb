import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { send } from '../helpers/http.ts';
import { READ_ROUTES, WRITE_ROUTES } from '../../src/governance/routes.ts';
import { AUTH, startGovernance } from './_service.ts';
import type { RunningGovernance } from './_service.ts';
import { rootEnv, startCrmDouble, tempRoot } from './_fixtures.ts';
import type { CrmDouble, TempRoot } from './_fixtures.ts';

interface Operation {
  parameters?: { name: string; in: string; required: boolean; example?: string }[];
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
  'x-airlock-listeners': string[];
}

let root: TempRoot;
let crm: CrmDouble;
let running: RunningGovernance;
let exported: Record<string, Record<string, Operation>>;
/** The public reads: GET operations whose route needs no lane token on the platform listener. */
let paths: Record<string, Record<string, Operation>>;
const template = (path: string) => path.replace(/:([a-z_]+)/g, '{$1}');
/** Subsystems whose owner no deployment connects: their readiness is 503 not ready, by design (fail closed). */
const OWNERLESS_READINESS = new Set(['/api/v1/projections/workboard-unified-access/readiness']);

before(async () => {
  root = tempRoot();
  crm = await startCrmDouble();
  running = await startGovernance({
    role: 'test',
    env: { ...rootEnv(root.root), GOVERNANCE_CRM_UPSTREAM_URL: crm.url, GOVERNANCE_CRM_KNOWN_COMPANIES: 'tenant-a/company-1' },
  });
  exported = ((await send(`${running.platform}/api/v1/openapi.json`)).json() as { paths: typeof paths }).paths;
  const publicPaths = new Set(READ_ROUTES.filter((r) => r.auth === undefined).map((r) => template(r.path)));
  paths = Object.fromEntries(Object.entries(exported).filter(([path]) => publicPaths.has(path)).map(([path, ops]) => [path, { get: ops['get']! }]));
});

after(async () => {
  await running.stop();
  await crm.close();
  root.cleanup();
});

/** A concrete URL for an exported path: path samples substituted, required query samples added. */
function sample(path: string, operation: Operation): string {
  let concrete = path;
  const query = new URLSearchParams();
  for (const parameter of operation.parameters ?? []) {
    assert.ok(parameter.example !== undefined, `${path}: parameter "${parameter.name}" has no sample`);
    if (parameter.in === 'path') concrete = concrete.replace(`{${parameter.name}}`, encodeURIComponent(parameter.example));
    // The sample of context_observed_at is fixed, hence stale: a live caller sends its own time.
    else if (parameter.required) query.set(parameter.name, parameter.name === 'context_observed_at' ? String(Math.floor(Date.now() / 1000)) : parameter.example);
  }
  return query.size > 0 ? `${concrete}?${query}` : concrete;
}

test('the export lists every read once on both listeners and every write once on the worker, each with its success schema', () => {
  const gets = Object.keys(exported).filter((path) => exported[path]!['get']).sort();
  assert.deepEqual(gets, READ_ROUTES.map((r) => template(r.path)).sort());
  for (const path of gets) {
    const operation = exported[path]!['get']!;
    assert.deepEqual(operation['x-airlock-listeners'], ['platform', 'worker'], path);
    assert.ok(operation.responses['200']?.content, `${path}: 200 has a schema`);
    assert.ok(operation.responses['503'], `${path}: the fail-closed 503 is documented`);
  }
  const posts = Object.keys(exported).filter((path) => exported[path]!['post']).sort();
  const expected = WRITE_ROUTES.flatMap((w) => (w.members ? w.members.map((m) => `${w.path.slice(0, -1)}${m}`) : [template(w.path)])).sort();
  assert.deepEqual(posts, expected);
  for (const path of posts) {
    const operation = exported[path]!['post']!;
    assert.deepEqual(operation['x-airlock-listeners'], ['worker'], path);
    assert.ok(Object.keys(operation.responses).some((status) => /^20[012]$/.test(status) && operation.responses[status]?.content), `${path}: a success schema`);
    assert.ok(operation.responses['422'] && operation.responses['401'], `${path}: 401 and 422 documented`);
  }
  assert.ok(gets.length >= 110, `${gets.length} read routes`);
});

test('platform listener: a real 200 on every documented route, driven from the export', async () => {
  const failures: string[] = [];
  for (const [path, operations] of Object.entries(paths)) {
    const response = await send(`${running.platform}${sample(path, operations['get']!)}`);
    if (response.status !== (OWNERLESS_READINESS.has(path) ? 503 : 200)) failures.push(`${path}: ${response.status} ${response.text.slice(0, 200)}`);
  }
  assert.deepEqual(failures, []);
});

test('worker listener: the same 200s with the operator token', async () => {
  const failures: string[] = [];
  for (const [path, operations] of Object.entries(paths)) {
    const response = await send(`${running.worker}${sample(path, operations['get']!)}`, { headers: AUTH });
    if (response.status !== (OWNERLESS_READINESS.has(path) ? 503 : 200)) failures.push(`${path}: ${response.status}`);
  }
  assert.deepEqual(failures, []);
});

test('platform listener: 404 on fake routes, also beside real families and parameters', async () => {
  for (const fake of [
    '/api/v1/fake', '/api/v1/contracts/fake', '/api/v1/contracts/registry/extra', '/api/v1/agent/contracts/fake',
    '/api/v1/planning/interaction-lanes/fake-lane', '/api/v1/observability/fake', '/api/v2/contracts/registry', '/healthz',
  ]) {
    const response = await send(`${running.platform}${fake}`);
    assert.equal(response.status, 404, fake);
    assert.equal(response.headers['content-type'], 'application/problem+json');
  }
});

test('platform listener: 405 with Allow for every write method on every documented public read', async () => {
  for (const path of Object.keys(paths)) {
    if (exported[path]!['post']) continue;
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const response = await send(`${running.platform}${sample(path, paths[path]!['get']!)}`, { method });
      assert.equal(response.status, 405, `${method} ${path}`);
      assert.equal(response.headers['allow'], 'GET, HEAD', path);
    }
  }
});

/** Answers that change between two requests (live observations, a fresh timestamp in the query). */
const LIVE = new Set(['/api/v1/tools/host-snapshot', '/api/v1/tools/runtime-status', '/api/v1/acp/assertions/context-capability/{tool_name}']);

test('every read answers a strong ETag and 304 to If-None-Match, and HEAD without a body', async () => {
  for (const [path, operations] of Object.entries(paths)) {
    if (LIVE.has(path) || OWNERLESS_READINESS.has(path)) continue;
    const url = `${running.platform}${sample(path, operations['get']!)}`;
    const first = await send(url);
    const etag = first.headers['etag'];
    assert.match(String(etag), /^"[A-Za-z0-9_-]{43}"$/, path);
    const again = await send(url, { headers: { 'if-none-match': String(etag) } });
    assert.equal(again.status, 304, path);
    assert.equal(again.text, '');
    const head = await send(url, { method: 'HEAD' });
    assert.equal(head.status, 200, path);
    assert.equal(head.text, '');
  }
});

test('published members carry their projection state and the artifact they came from', async () => {
  const registry = (await send(`${running.platform}/api/v1/contracts/registry`)).json() as { artifacts: { id: string; sha256: string; version: string }[] };
  const byId = new Map(registry.artifacts.map((a) => [a.id, a]));
  for (const read of READ_ROUTES.filter((r) => r.publish !== undefined)) {
    const body = (await send(`${running.platform}${read.path}`)).json() as { member: string; projection_state: string; artifact: { id: string; sha256: string; version: string } };
    const [artifact, ...member] = read.publish!.split('/');
    assert.equal(body.member, member.join('/'), read.path);
    assert.ok(['published', 'planned', 'disabled', 'enabled', 'not_deployed', 'awaiting_transport_owner'].includes(body.projection_state), read.path);
    assert.equal(body.artifact.id, artifact);
    assert.equal(body.artifact.sha256, byId.get(artifact!)?.sha256, `${read.path}: same SHA-256 as the registry`);
  }
});

test('GET /health names the service and the role; every readiness route is ready on a consistent root, but one whose owner is missing', async () => {
  const health = (await send(`${running.platform}/health`)).json() as Record<string, unknown>;
  assert.deepEqual([health['status'], health['service'], health['deployment_role']], ['pass', 'governance', 'test']);
  for (const read of READ_ROUTES.filter((r) => r.capability === 'readiness-publication')) {
    const response = await send(`${running.platform}${read.path}`);
    const body = response.json() as { ready: boolean; subsystem_state: string; checks: Record<string, { status: string }[]> };
    if (OWNERLESS_READINESS.has(read.path)) {
      // Missing owner truth is not ready (seed 001: fail closed), whatever else passes.
      assert.deepEqual([response.status, body.ready, body.subsystem_state], [503, false, 'awaiting_transport_owner'], read.path);
      assert.ok(Object.keys(body.checks).some((name) => name.startsWith('owner:')), read.path);
      continue;
    }
    assert.equal(response.status, 200, read.path);
    assert.equal(response.headers['content-type'], 'application/health+json');
    assert.equal(body.ready, true, read.path);
    assert.ok(Object.keys(body.checks).length >= 2, `${read.path}: the artifact plus at least one named check`);
  }
});

test('computed catalogs: drift is empty, the registry lists every artifact with its SHA-256, schemas are served by id', async () => {
  const drift = (await send(`${running.platform}/api/v1/contracts/drift`)).json() as { drift: unknown[]; count: number };
  assert.deepEqual(drift.drift, []);
  const registry = (await send(`${running.platform}/api/v1/contracts/registry`)).json() as { artifacts: { id: string; sha256: string; state: string }[]; count: number; valid: number };
  assert.equal(registry.count, registry.valid);
  assert.ok(registry.artifacts.every((a) => /^[0-9a-f]{64}$/.test(a.sha256) && a.state === 'valid'));
  const schemas = (await send(`${running.platform}/api/v1/contracts/schemas`)).json() as { schemas: { short_id: string; route: string; id: string }[] };
  for (const schema of schemas.schemas) {
    const response = await send(`${running.platform}${schema.route}`);
    assert.equal(response.status, 200);
    assert.equal((response.json() as { $id: string }).$id, schema.id);
  }
  assert.equal((await send(`${running.platform}/api/v1/contracts/schemas/no_such_v1`)).status, 404);
});

test('security readiness fails closed without a CRM upstream: crm_assertion is a failing check, not a pass', async (t) => {
  const bare = tempRoot();
  const alone = await startGovernance({ role: 'platform-api', env: rootEnv(bare.root) });
  t.after(async () => {
    await alone.stop();
    bare.cleanup();
  });
  const response = await send(`${alone.platform}/api/v1/security/readiness`);
  const body = response.json() as { ready: boolean; checks: Record<string, { status: string; output?: string }[]> };
  assert.deepEqual([response.status, body.ready, body.checks['crm_assertion']?.[0]?.status], [503, false, 'fail']);
  assert.match(String(body.checks['crm_assertion']?.[0]?.output), /awaiting_transport_owner/);
});
