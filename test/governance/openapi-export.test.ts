import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { send } from '../helpers/http.ts';
import { buildOpenApi } from '../../src/kernel/index.ts';
import { manifest } from '../../src/governance/manifest.ts';
import { SECURITY_SCHEMES } from '../../src/governance/lanes.ts';
import { WRITE_ROUTES } from '../../src/governance/routes.ts';
import { startGovernance } from './_service.ts';
import { REPO, rootEnv } from './_fixtures.ts';

const COMMITTED = join(REPO, 'contracts', 'api', 'governance_openapi_v1.json');

test('GET /api/v1/openapi.json is the committed contracts/api/governance_openapi_v1.json (run npm run contracts on drift)', async () => {
  const running = await startGovernance({ role: 'platform-api', env: rootEnv(REPO) });
  try {
    const served = (await send(`${running.platform}/api/v1/openapi.json`)).json();
    const committed = JSON.parse(readFileSync(COMMITTED, 'utf8'));
    assert.deepEqual(served, committed);
    assert.deepEqual(buildOpenApi(manifest), committed, 'the manifest export and the served export are one document');
  } finally {
    await running.stop();
  }
});

test('the export is OpenAPI 3.1 with a sample for every path parameter and a security scheme for every route authenticator', () => {
  const doc = JSON.parse(readFileSync(COMMITTED, 'utf8'));
  assert.equal(doc.openapi, '3.1.0');
  const used = new Set(manifest.routes.filter((r) => r.auth !== 'none').map((r) => r.auth));
  assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), [...used].sort());
  for (const name of used) assert.deepEqual(doc.components.securitySchemes[name], SECURITY_SCHEMES[name as keyof typeof SECURITY_SCHEMES]);
  const sampled = new Set<string>();
  for (const [path, operations] of Object.entries<Record<string, { parameters?: { name: string; in: string; example?: string; required: boolean }[] }>>(doc.paths)) {
    const names = [...path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]);
    for (const [method, operation] of Object.entries(operations)) {
      const documented = (operation.parameters ?? []).filter((p) => p.in === 'path');
      assert.deepEqual(documented.map((p) => p.name), names, `${method} ${path}`);
      for (const parameter of documented) {
        assert.ok(parameter.example && parameter.required, `${method} ${path} {${parameter.name}} has a sample`);
        sampled.add(parameter.name);
      }
    }
  }
  assert.deepEqual([...sampled].sort(), ['module_key', 'schema_id', 'session_id', 'tool_name']);
});

test('the export publishes Idempotency-Key on every write, and which writes require it', () => {
  const doc = JSON.parse(readFileSync(COMMITTED, 'utf8'));
  for (const write of WRITE_ROUTES) {
    const paths = write.members ? write.members.map((m) => `${write.path.slice(0, -1)}${m}`) : [write.path.replace(/:([a-z_]+)/g, '{$1}')];
    for (const path of paths) {
      const post = doc.paths[path].post;
      if (write.idempotency === 'delivery_id') {
        assert.equal(post['x-airlock-idempotency'], undefined, path);
        continue;
      }
      assert.deepEqual(post['x-airlock-idempotency'], { required: write.idempotency === 'required', retention_seconds: 86_400 }, path);
      assert.ok(post.parameters.some((p: { name: string; in: string }) => p.name === 'Idempotency-Key' && p.in === 'header'), path);
      assert.ok(post.requestBody.content['application/json'].schema, path);
    }
  }
});
