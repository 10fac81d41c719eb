import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { send } from '../helpers/http.ts';
import { buildOpenApi } from '../../src/kernel/index.ts';
import { manifest } from '../../src/governance/manifest.ts';
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

test('the export is OpenAPI 3.1 with a sample for every path parameter and the operator scheme', () => {
  const doc = JSON.parse(readFileSync(COMMITTED, 'utf8'));
  assert.equal(doc.openapi, '3.1.0');
  assert.deepEqual(Object.keys(doc.components.securitySchemes), ['operator']);
  let parameters = 0;
  for (const [path, operations] of Object.entries<Record<string, { parameters?: { name: string; in: string; example?: string; required: boolean }[] }>>(doc.paths)) {
    const names = [...path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]);
    const documented = (operations['get']?.parameters ?? []).filter((p) => p.in === 'path');
    assert.deepEqual(documented.map((p) => p.name), names, path);
    for (const parameter of documented) {
      parameters++;
      assert.ok(parameter.example && parameter.required, `${path} {${parameter.name}} has a sample`);
    }
  }
  assert.equal(parameters, 3, 'schema_id, tool_name, module_key');
});
