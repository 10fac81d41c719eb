// Every GET route of the semantic export answers what the export declares: each live answer is
// validated against the schema the committed export (the route table's own) gives for its status
// and media type.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { send } from '../helpers/http.ts';
import { declaredResponse, namesFields, samplePath } from '../helpers/export-responses.ts';
import type { ExportDocument } from '../helpers/export-responses.ts';
import { startTestService } from './fixtures/semantic-service.ts';

const EXPORT = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'contracts', 'api', 'semantic_openapi_v1.json'), 'utf8')) as ExportDocument;

test('every GET route of the semantic export answers a body its declared schema accepts, and each 200 schema names its fields', async (t) => {
  const s = await startTestService(t);
  const failures: string[] = [];
  let checked = 0;
  for (const [path, operations] of Object.entries(EXPORT.paths)) {
    const operation = operations['get'];
    if (!operation) continue;
    const scheme = Object.keys(operation.security?.[0] ?? {})[0];
    const headers = scheme === undefined ? {} : scheme === 'consumer' ? s.consumer() : s.operator;
    const response = await send(`${s.url}${samplePath(path, operation)}`, { headers });
    const contentType = String(response.headers['content-type']).split(';')[0]!;
    const check = declaredResponse(EXPORT, { path, method: 'get', status: response.status, contentType });
    if (!check) {
      failures.push(`${path}: ${response.status} ${contentType} is not declared (${response.text.slice(0, 120)})`);
      continue;
    }
    const { valid, errors } = check.validate(JSON.parse(response.text));
    checked++;
    if (!valid) failures.push(`${path} ${response.status}: ${errors.slice(0, 3).map((e) => `${e.instancePath} ${e.message}`).join('; ')}`);
    for (const [type, media] of Object.entries(operation.responses['200']?.content ?? {})) if (!namesFields(media.schema, EXPORT)) failures.push(`${path} 200 ${type}: the schema names no field`);
  }
  assert.deepEqual(failures, []);
  assert.ok(checked >= 5, `${checked} answers checked`);
});
