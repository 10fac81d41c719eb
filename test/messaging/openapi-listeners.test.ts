// The messaging OpenAPI export covers three listeners: each path names the listener (server) it
// is on, so the API does not appear to serve /readyz, and owner-readback's /healthz keeps its
// Bearer requirement beside the mailbox adapter's open /healthz.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildOpenApi } from '../../src/kernel/index.ts';
import { manifest } from '../../src/messaging/manifest.ts';

type PathItem = { servers?: { url: string }[] } & Record<string, { security?: Record<string, unknown>[]; 'x-airlock-auth'?: Record<string, string>; responses: Record<string, unknown> }>;

const committed = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'contracts', 'api', 'messaging_openapi_v1.json'), 'utf8')) as { paths: Record<string, PathItem> };

test('messaging OpenAPI: the committed export is what the route table gives (npm run contracts)', () => {
  assert.deepEqual(committed, JSON.parse(JSON.stringify(buildOpenApi(manifest))));
});

test('messaging OpenAPI: every path names the listener it is on', () => {
  const ports = (path: string) => (committed.paths[path]!.servers ?? []).map((s) => new URL(s.url).port);
  assert.deepEqual(ports('/api/v1/health'), ['18040']);
  assert.deepEqual(ports('/api/v1/status'), ['18040']);
  assert.deepEqual(ports('/api/v1/mailboxes/{mailbox}/messages'), ['18041']);
  assert.deepEqual(ports('/readyz'), ['18087']);
  assert.deepEqual(ports('/api/v1/evidence/plan-studio-review-transport'), ['18087']);
  assert.deepEqual(ports('/healthz'), ['18041', '18087']);
  const onApi = Object.keys(committed.paths).filter((path) => ports(path).includes('18040'));
  assert.deepEqual(onApi.sort(), ['/api/v1/health', '/api/v1/status']);
});

test("messaging OpenAPI: owner-readback's /healthz requires its Bearer token, the adapter's does not", () => {
  const healthz = committed.paths['/healthz']!['get']!;
  assert.deepEqual(healthz['x-airlock-auth'], { mailbox: 'none', 'owner-readback': 'owner-token' });
  assert.deepEqual(healthz.security, [{}, { 'owner-token': [] }]);
  assert.ok(healthz.responses['401']);
  assert.deepEqual(committed.paths['/readyz']!['get']!.security, [{ 'owner-token': [] }]);
});
