import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { TestContext } from 'node:test';
import { enqueueRecords, openControlDatabase, reconcileOnce } from '../../src/semantic/index.ts';
import { CONTROL_SCHEMA_VERSION } from '../../src/semantic/control-schema.ts';
import { CONSUMER_TOKENS, startTestService } from '../semantic/fixtures/semantic-service.ts';
import { copyRoot, fakeDist, runScript, runScriptAsync, tempDir } from './fixtures/semantic-root.ts';

/** Every file under `dir` with its size, mtime and SHA-256: equal before and after means nothing was written. */
function treeDigest(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, encoding: 'utf8' }) as string[]).sort().map((name) => {
    const path = join(dir, name);
    const stat = statSync(path);
    return stat.isDirectory() ? `${name}/` : `${name} ${stat.size} ${stat.mtimeMs} ${createHash('sha256').update(readFileSync(path)).digest('hex')}`;
  });
}

async function dataDir(t: TestContext): Promise<string> {
  const dir = tempDir(t);
  const store = openControlDatabase(join(dir, 'semantic.sqlite'));
  await enqueueRecords(store, [
    JSON.stringify({ record_id: 'r1', tenant_id: 't', isolation_domain_ref: 'payments', kind: 'node', node_id: 'a', label: 'A' }),
    JSON.stringify({ record_id: 'r2', tenant_id: 't', kind: 'node', node_id: 'b', label: 'B' }),
  ], { source: 'test' });
  await reconcileOnce(store, { batchSize: 10 });
  await store.close();
  return dir;
}

test('export_host_runtime_snapshot reads every part and writes nothing but its output', async (t) => {
  const root = copyRoot(t);
  fakeDist(root);
  const data = await dataDir(t);
  const before = [treeDigest(root), treeDigest(data)];
  const result = runScript('export_host_runtime_snapshot', ['--root', root, '--data-dir', data, '--json']);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  assert.deepEqual([treeDigest(root), treeDigest(data)], before, 'root and data directory unchanged');
  const snapshot = result.json() as any;
  assert.equal(snapshot.snapshot, 'airlock_host_runtime_snapshot');
  assert.deepEqual(snapshot.service_versions.installed, { status: 'available', version: '0.0.0+test', revision: '0'.repeat(40) });
  assert.ok(snapshot.service_versions.bundles.every((b: { intact: boolean }) => b.intact));
  const contracted = JSON.parse(readFileSync(join(root, 'configs', 'stack-contract.json'), 'utf8')).services.map((s: { service: string }) => s.service);
  assert.deepEqual(snapshot.stack_contract.services.map((s: { service: string }) => s.service), contracted);
  assert.ok(contracted.includes('semantic'));
  assert.equal(snapshot.database.user_version, CONTROL_SCHEMA_VERSION);
  assert.equal(snapshot.database.expected_user_version, CONTROL_SCHEMA_VERSION);
  assert.equal(snapshot.database.schema_integrity.status, 'pass');
  assert.deepEqual(snapshot.database.inbox, { records: 2, undecided: 0, quarantined: 1 });
  assert.deepEqual(snapshot.database.evidence_chains.map((c: { table: string; ok: boolean; rows: number }) => [c.table, c.ok, c.rows]),
    [['event_outbox_log', true, 2], ['ingest_inbox_records', true, 2], ['projection_reconciliation_readback', true, 1], ['projection_reconciliation_receipts', true, 1], ['projection_verification_ledger', true, 0]]);
  assert.equal(snapshot.memory_lane.source, 'configuration');
  assert.equal(snapshot.memory_lane.stage, 'S0');
  assert.equal(snapshot.memory_lane.lanes.graph.mode, 'synthetic_fixtures_only');
  assert.deepEqual(snapshot.rollback_window, { status: 'unavailable', reason: 'install-state.json is missing: not a prefix installed by install_memory.sh' });
  assert.equal(snapshot.legacy_retirement.state, 'legacy_memory_retained');
  assert.deepEqual(snapshot.legacy_retirement.gate.status, 'downstream_gated');
  assert.deepEqual(snapshot.service_versions.live, { status: 'unavailable', reason: 'not requested (--check-live)' });
});

test('export_host_runtime_snapshot marks a missing database unavailable and reads the stage from the environment', (t) => {
  const root = copyRoot(t);
  const result = runScript('export_host_runtime_snapshot', ['--root', root, '--json'], { env: { AIRLOCK_DATA_DIR: tempDir(t), SEMANTIC_ACTIVATION_STAGE: 'S1_read_only', SEMANTIC_VECTOR_STORE_URL: 'http://127.0.0.1:6333' } });
  assert.equal(result.code, 0, result.stderr);
  const snapshot = result.json() as any;
  assert.equal(snapshot.database.status, 'unavailable');
  assert.equal(snapshot.service_versions.installed.status, 'unavailable');
  assert.deepEqual([snapshot.memory_lane.stage, snapshot.memory_lane.lanes.vector.mode], ['S1_read_only', 'read_only']);
});

test('export_host_runtime_snapshot exits 1 when an evidence chain is broken or a bundle changed', async (t) => {
  const root = copyRoot(t);
  fakeDist(root);
  const data = await dataDir(t);
  const sqlite = new DatabaseSync(join(data, 'semantic.sqlite'));
  sqlite.exec("DROP TRIGGER projection_reconciliation_receipts_no_update; UPDATE projection_reconciliation_receipts SET payload = '{}' WHERE seq = 1");
  sqlite.close();
  appendFileSync(join(root, 'dist', 'bin', 'semantic-worker.mjs'), '// patched\n');
  const result = runScript('export_host_runtime_snapshot', ['--root', root, '--data-dir', data, '--json']);
  assert.equal(result.code, 1);
  const checks = Object.fromEntries((result.json()['checks'] as { name: string; reasons: string[] }[]).map((c) => [c.name, c.reasons]));
  assert.deepEqual(checks['bundles'], ['bundle "dist/bin/semantic-worker.mjs" does not match its package-metadata hash']);
  assert.match(checks['database']![0]!, /^evidence chain "projection_reconciliation_receipts" is broken at seq 1: /);
});

test('export_host_runtime_snapshot reads the rollback window of an installed prefix and checks each retained release', (t) => {
  const root = copyRoot(t);
  fakeDist(root, '0.0.2');
  // A retained release is a copy of the dist/ it had, under rollback/<version>/.
  const retained = join(root, 'rollback', '0.0.1');
  const state = {
    install_state: 1,
    current: { version: '0.0.2', revision: '0'.repeat(40), installed_at: '2026-01-02T00:00:00Z' },
    retention: 1,
    rollback: [{ version: '0.0.1', revision: '1'.repeat(40), path: 'rollback/0.0.1', retained_at: '2026-01-02T00:00:00Z' }],
  };
  writeFileSync(join(root, 'install-state.json'), JSON.stringify(state));
  const copyDist = () => {
    mkdirSync(join(retained, 'dist', 'bin'), { recursive: true });
    for (const name of readdirSync(join(root, 'dist', 'bin'))) writeFileSync(join(retained, 'dist', 'bin', name), readFileSync(join(root, 'dist', 'bin', name)));
    writeFileSync(join(retained, 'dist', 'package-metadata.json'), readFileSync(join(root, 'dist', 'package-metadata.json')));
  };
  copyDist();
  const intact = runScript('export_host_runtime_snapshot', ['--root', root, '--data-dir', tempDir(t), '--json']);
  assert.equal(intact.code, 0, intact.stdout);
  const window = (intact.json() as any).rollback_window;
  assert.deepEqual([window.status, window.current.version, window.retention], ['available', '0.0.2', 1]);
  assert.deepEqual(window.rollback.map((r: { version: string; intact: boolean }) => [r.version, r.intact]), [['0.0.1', true]]);
  appendFileSync(join(retained, 'dist', 'bin', 'semantic-api.mjs'), 'x');
  const broken = runScript('export_host_runtime_snapshot', ['--root', root, '--data-dir', tempDir(t), '--json']);
  assert.equal(broken.code, 1);
  assert.deepEqual((broken.json() as any).checks.find((c: { name: string }) => c.name === 'rollback_window').reasons, ['retained release "0.0.1" under "rollback/0.0.1" is not intact']);
});

test('export_host_runtime_snapshot --check-live reads version, stage and lanes through its own consumer', async (t) => {
  const service = await startTestService(t);
  const root = copyRoot(t);
  const dir = tempDir(t);
  writeFileSync(join(dir, 'tokens.json'), JSON.stringify(CONSUMER_TOKENS));
  const result = await runScriptAsync('export_host_runtime_snapshot', ['--root', root, '--data-dir', service.dir, '--check-live', '--base-url', service.url, '--consumer-tokens-file', join(dir, 'tokens.json'), '--json']);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  const snapshot = result.json() as any;
  assert.deepEqual(snapshot.service_versions.live, { status: 'available', base_url: service.url, version: '0.0.0+test', activation_stage: 'S0' });
  assert.equal(snapshot.memory_lane.source, 'live');
  assert.equal(snapshot.memory_lane.graph_memory_runtime_profile.base_url, service.url);
  const closed = await runScriptAsync('export_host_runtime_snapshot', ['--root', root, '--check-live', '--base-url', 'http://127.0.0.1:9', '--consumer-tokens-file', join(dir, 'tokens.json')]);
  assert.equal(closed.code, 2);
  const noToken = await runScriptAsync('export_host_runtime_snapshot', ['--root', root, '--check-live', '--base-url', service.url]);
  assert.equal(noToken.code, 2);
  assert.match(noToken.stderr, /without the consumer token of "host-runtime-snapshot-export"/);
});
