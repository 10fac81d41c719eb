// Every GET route of the governance export answers what the export declares: each live answer,
// on the platform listener (and with a lane token where the read is lane-scoped), is validated
// against the schema the served export gives for its status and media type.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { send } from '../helpers/http.ts';
import { declaredResponse, namesFields, samplePath } from '../helpers/export-responses.ts';
import type { ExportDocument } from '../helpers/export-responses.ts';
import { bearer, startGovernance } from './_service.ts';
import type { RunningGovernance, TestLane } from './_service.ts';
import { rootEnv, startCrmDouble, tempRoot } from './_fixtures.ts';
import type { CrmDouble, TempRoot } from './_fixtures.ts';

let running: RunningGovernance;
let root: TempRoot;
let crm: CrmDouble;
let document: ExportDocument;

before(async () => {
  root = tempRoot();
  crm = await startCrmDouble();
  running = await startGovernance({ role: 'test', env: { ...rootEnv(root.root), GOVERNANCE_CRM_UPSTREAM_URL: crm.url, GOVERNANCE_CRM_KNOWN_COMPANIES: 'tenant-a/company-1' } });
  document = (await send(`${running.platform}/api/v1/openapi.json`)).json() as ExportDocument;
});

after(async () => {
  await running.stop();
  await crm.close();
  root.cleanup();
});

/** The lane a lane-scoped read is called with (its export security names the scheme). */
const LANE_OF_SCHEME: Record<string, TestLane> = { bff: 'bff', planning_reader: 'bff', mail_consumer: 'mail_consumer', entitlement_consumer: 'entitlement_consumer' };

test('every GET route of the served export answers a body its declared schema accepts', { timeout: 60_000 }, async () => {
  const failures: string[] = [];
  let checked = 0;
  for (const [path, operations] of Object.entries(document.paths)) {
    const operation = operations['get'];
    if (!operation) continue;
    const scheme = Object.keys(operation.security?.[0] ?? {}).find((name) => name !== 'operator');
    const lane = scheme === undefined ? undefined : LANE_OF_SCHEME[scheme];
    const response = await send(`${running.platform}${samplePath(path, operation, { context_observed_at: String(Math.floor(Date.now() / 1000)) })}`, { headers: lane ? bearer(lane) : {} });
    const contentType = String(response.headers['content-type']).split(';')[0]!;
    const check = declaredResponse(document, { path, method: 'get', status: response.status, contentType });
    if (!check) {
      failures.push(`${path}: ${response.status} ${contentType} is not declared`);
      continue;
    }
    const { valid, errors } = check.validate(JSON.parse(response.text));
    checked++;
    if (!valid) failures.push(`${path} ${response.status}: ${errors.slice(0, 3).map((e) => `${e.instancePath} ${e.message}`).join('; ')}`);
  }
  assert.deepEqual(failures, []);
  assert.ok(checked >= 120, `${checked} answers checked`);
});

test('every GET 200 schema of the export names its fields (not a bare {"type":"object"})', () => {
  const bare = Object.entries(document.paths)
    .filter(([, ops]) => ops['get'])
    .flatMap(([path, ops]) => Object.entries(ops['get']!.responses['200']?.content ?? {}).filter(([, media]) => !namesFields(media.schema, document)).map(([type]) => `${path} ${type}`));
  assert.deepEqual(bare, []);
});
