import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONSUMER_TOKENS, startTestService } from '../semantic/fixtures/semantic-service.ts';
import { copyRoot, editJson, fakeDist, runScript, runScriptAsync, tempDir } from './fixtures/semantic-root.ts';

test('export-governance-metadata derives the same bytes twice, with endpoints, executables, bundle hashes and consumers', (t) => {
  const root = copyRoot(t);
  fakeDist(root);
  const first = runScript('export-governance-metadata', ['--root', root]);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(runScript('export-governance-metadata', ['--root', root]).stdout, first.stdout);
  const doc = first.json() as any;
  assert.equal(doc.metadata, 'airlock_governance_metadata');
  assert.deepEqual(doc.release, { status: 'available', version: '0.0.0+test', revision: '0'.repeat(40) });
  const semantic = doc.services.find((s: { service: string }) => s.service === 'semantic');
  assert.equal(semantic.endpoints.length, 14); // the seed's 13 and GET /openapi.json
  assert.deepEqual(semantic.executables.map((e: { name: string; bundle_sha256: string }) => [e.name, /^[0-9a-f]{64}$/.test(e.bundle_sha256)]), [['semantic-api', true], ['semantic-worker', true]]);
  assert.deepEqual(semantic.executables[0].listeners, [{ name: 'main', host: '127.0.0.1', port: 18020, env: 'SEMANTIC_LISTEN' }]);
  assert.equal(semantic.consumer_matrices.ts01_consumer_matrix.consumers.length, 7);
  assert.ok(semantic.contracts.every((c: { sha256?: string; kind?: string }) => c.kind === 'directory' || /^[0-9a-f]{64}$/.test(c.sha256 ?? '')));
  assert.equal(doc.derived_from['governance-manifest.json'].length, 64);
});

test('export-governance-metadata --tsv gives shell rows with "-" for empty fields', (t) => {
  const root = copyRoot(t);
  const rows = runScript('export-governance-metadata', ['--root', root, '--tsv']).stdout.trim().split('\n').map((line) => line.split('\t'));
  assert.deepEqual(rows.find((r) => r[2] === 'semantic-api'), ['executable', 'semantic', 'semantic-api', 'api', 'dist/bin/semantic-api.mjs', '-', 'SEMANTIC_LISTEN=127.0.0.1:18020']);
  assert.deepEqual(rows.find((r) => r[2] === 'semantic-worker'), ['executable', 'semantic', 'semantic-worker', 'worker', 'dist/bin/semantic-worker.mjs', '-', '-']);
  assert.deepEqual(rows.filter((r) => r[0] === 'consumer' && r[3] === 'admitted').map((r) => r[2]), ['live-runtime-contract-check', 'host-runtime-snapshot-export', 'governance-status-bundle-export']);
});

test('export-governance-metadata --check passes on its own output and fails on a hand edit or stale inputs', (t) => {
  const root = copyRoot(t);
  const file = join(tempDir(t), 'metadata.json');
  assert.equal(runScript('export-governance-metadata', ['--root', root, '--output', file]).code, 0);
  assert.equal(runScript('export-governance-metadata', ['--root', root, '--check', file]).code, 0);
  const edited = JSON.parse(readFileSync(file, 'utf8'));
  edited.services[0].capabilities.push('hand-written');
  writeFileSync(file, JSON.stringify(edited));
  const hand = runScript('export-governance-metadata', ['--root', root, '--check', file]);
  assert.equal(hand.code, 1);
  assert.match(hand.stdout, /differs from the metadata derived from .*: regenerate it, never edit it by hand/);
  assert.equal(runScript('export-governance-metadata', ['--root', root, '--output', file]).code, 0);
  editJson(root, 'configs/stack-contract.json', (doc) => (doc.services[1].executables[0].listeners[0].port = 18999));
  assert.equal(runScript('export-governance-metadata', ['--root', root, '--check', file]).code, 1);
});

test('export-governance-metadata exits 1 when a listed contract is missing and 2 without its inputs', (t) => {
  const root = copyRoot(t);
  rmSync(join(root, 'contracts', 'semantic_fixtures_v1.json'));
  const missing = runScript('export-governance-metadata', ['--root', root]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /contract "contracts\/semantic_fixtures_v1\.json" of "semantic" is listed by the manifest but missing/);
  assert.equal(runScript('export-governance-metadata', ['--root', tempDir(t)]).code, 2);
  assert.equal(runScript('export-governance-metadata', ['--root', root, '--check', 'a', '--output', 'b']).code, 2);
});

test('export_governance_status_bundle writes one sealed file that --verify accepts, and refuses a changed or stale one', (t) => {
  const root = copyRoot(t);
  fakeDist(root);
  const file = join(tempDir(t), 'bundle.json');
  const written = runScript('export_governance_status_bundle', ['--root', root, '--output', file]);
  assert.equal(written.code, 0, written.stdout);
  const bundle = JSON.parse(readFileSync(file, 'utf8'));
  assert.equal(bundle.bundle, 'airlock_governance_status_bundle');
  assert.match(bundle.content_sha256, /^[0-9a-f]{64}$/);
  assert.deepEqual(bundle.status.checks.map((c: { name: string; ok: boolean }) => [c.name, c.ok]), [['semantic_cdc_matrix', true], ['materialization_drift', true]]);
  assert.deepEqual(bundle.status.live, { status: 'unavailable', reason: 'not requested (--check-live)' });
  assert.equal(runScript('export_governance_status_bundle', ['--root', root]).stdout, readFileSync(file, 'utf8'), 'offline bundles are deterministic');
  assert.equal(runScript('export_governance_status_bundle', ['--root', root, '--verify', file]).code, 0);
  bundle.status.ok = true;
  bundle.status.checks[1].reasons = [];
  bundle.metadata.release.version = '9.9.9';
  writeFileSync(file, JSON.stringify(bundle));
  const changed = runScript('export_governance_status_bundle', ['--root', root, '--verify', file, '--json']);
  assert.equal(changed.code, 1);
  assert.deepEqual((changed.json()['checks'] as { name: string; ok: boolean }[]).map((c) => [c.name, c.ok]), [['content_sha256', false], ['metadata_current', false]]);
  assert.equal(runScript('export_governance_status_bundle', ['--root', root, '--output', file]).code, 0);
  editJson(root, 'governance-manifest.json', (doc) => doc.services[1].capabilities.push('new-capability'));
  const stale = runScript('export_governance_status_bundle', ['--root', root, '--verify', file]);
  assert.equal(stale.code, 1);
  assert.match(stale.stdout, /^ok {3}content_sha256$/m);
  assert.match(stale.stdout, /the bundle is stale/);
});

test('export_governance_status_bundle still writes the bundle when a check fails, and exits 1', (t) => {
  const root = copyRoot(t);
  fakeDist(root);
  editJson(root, 'contracts/api/semantic_cdc_v1.json', (doc) => (doc.ts01_consumer_matrix.consumers[5].claims_green = true));
  const file = join(tempDir(t), 'bundle.json');
  const result = runScript('export_governance_status_bundle', ['--root', root, '--output', file]);
  assert.equal(result.code, 1);
  const bundle = JSON.parse(readFileSync(file, 'utf8'));
  assert.equal(bundle.status.ok, false);
  assert.ok(bundle.status.checks[0].reasons.includes('downstream-gated consumer "agent-context-service" must not claim a green result'));
});

test('export_governance_status_bundle --check-live reads the status through its own consumer token', async (t) => {
  const service = await startTestService(t);
  const root = copyRoot(t);
  fakeDist(root);
  const dir = tempDir(t);
  writeFileSync(join(dir, 'token'), CONSUMER_TOKENS['governance-status-bundle-export']!);
  const result = await runScriptAsync('export_governance_status_bundle', ['--root', root, '--check-live', '--base-url', service.url, '--consumer-token-file', join(dir, 'token')]);
  assert.equal(result.code, 0, result.stderr);
  const bundle = result.json() as any;
  assert.equal(bundle.status.live.runtime_status.activation_stage, 'S0');
  assert.equal(bundle.status.live.runtime_status.schema_integrity, 'pass');
  assert.deepEqual(bundle.status.live.runtime_status.reconciliation_worker_snapshot, { status: 'unavailable', reason: 'projection_reconciliation_readback holds no run yet' });
  assert.equal(bundle.status.live.context_readback.authority_boundary.policy_owner, 'governance');
  writeFileSync(join(dir, 'token'), CONSUMER_TOKENS['agent-context-service']!);
  const gated = await runScriptAsync('export_governance_status_bundle', ['--root', root, '--check-live', '--base-url', service.url, '--consumer-token-file', join(dir, 'token')]);
  assert.equal(gated.code, 1);
  assert.deepEqual((gated.json() as any).status.checks.at(-1).reasons, ['GET /api/v1/semantic/runtime/status answered 403', 'GET /api/v1/semantic/context/readback answered 403']);
  const closed = await runScriptAsync('export_governance_status_bundle', ['--root', root, '--check-live', '--base-url', 'http://127.0.0.1:9', '--consumer-token-file', join(dir, 'token')]);
  assert.equal(closed.code, 2);
});
