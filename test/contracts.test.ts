// The seed's contract tests (tests/test_contracts.py): the three semantic contracts of
// contracts/api/ checked against each other and against the route table, the governance manifest,
// the stack contract and the QA feature registry, on this checkout's committed files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildOpenApi } from '../src/kernel/index.ts';
import { CDC_CONTRACT, SEMANTIC_MANIFEST, contractChannels } from '../src/semantic/index.ts';
import { check } from '../scripts/_semantic/check-report.ts';
import { listCommands } from '../scripts/_semantic/command-inventory.ts';
import { FILE_SURFACES } from '../scripts/_semantic/docs-contract.ts';
import { readInstallRoot } from '../scripts/_semantic/install-root.ts';
import { buildAgainstFiles, describeDifference, manifestAgainstContracts, stackAgainstManifest } from '../scripts/_semantic/materialization-drift.ts';
import { REGISTRY_PATH, coverageChecks, shapeReasons, testReasons } from '../scripts/_semantic/module-features.ts';
import { listOperations, surfaceKey } from '../scripts/_semantic/openapi-operations.ts';
import { checkSemanticCdc } from '../scripts/_semantic/semantic-cdc.ts';

const ROOT = join(import.meta.dirname, '..');
const read = (path: string) => JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as Record<string, any>;
const OPENAPI = read('contracts/api/semantic_openapi_v1.json');
const ASYNCAPI = read('contracts/api/semantic_asyncapi_v1.json');
const CDC = read('contracts/api/semantic_cdc_v1.json');
const MANIFEST = read('governance-manifest.json');

/** The seed's command-line surfaces, by the names Airlock gives them. */
const SEED_COMMANDS = [
  'bootstrap.sh', 'install_memory.sh', 'reapply_after_runtime_update.sh', 'plugin_smoke_test.sh', 'vector_store_checks.sh', 'governance-selfcheck.sh',
  'check_live_runtime_contract', 'export_host_runtime_snapshot', 'check_runtime_materialization_drift', 'export-governance-metadata',
  'export_governance_status_bundle', 'verify_ts05_retrieval_gates', 'verify_isolation_domain_walls', 'check_semantic_cdc_matrix',
  'check_docs_contract', 'check_module_features_contract',
];

test('the semantic OpenAPI contract is the export of the route table, and the manifest exposes exactly its operations', () => {
  assert.deepEqual(OPENAPI, JSON.parse(JSON.stringify(buildOpenApi(SEMANTIC_MANIFEST))));
  const semantic = MANIFEST['services'].find((s: { service: string }) => s.service === 'semantic');
  const exposed = [...new Set<string>(semantic.exposed_surfaces.map((s: { method: string; path: string }) => surfaceKey(s.method, s.path)))].sort();
  assert.deepEqual(exposed, listOperations(OPENAPI).map((op) => surfaceKey(op.method, op.path)).sort());
  for (const path of ['contracts/api/semantic_openapi_v1.json', 'contracts/api/semantic_asyncapi_v1.json', 'contracts/api/semantic_cdc_v1.json']) {
    assert.ok(semantic.contracts.includes(path), `the manifest lists ${path}`);
  }
});

test('the CDC matrix names only operations of the OpenAPI contract, and the token rules agree with both', () => {
  const checks = checkSemanticCdc({ cdc: CDC, openapi: OPENAPI });
  assert.deepEqual(checks.filter((c) => !c.ok), []);
  assert.deepEqual(CDC, CDC_CONTRACT, 'the service enforces the committed matrix');
  const consumerOps = listOperations(OPENAPI).filter((op) => op.security.includes('consumer')).map((op) => surfaceKey(op.method, op.path));
  const admitted = CDC['ts01_consumer_matrix'].consumers.filter((c: { status: string }) => c.status === 'admitted');
  for (const consumer of admitted) assert.deepEqual(consumer.surfaces.map((s: { method: string; path: string }) => surfaceKey(s.method, s.path)).sort(), consumerOps.sort(), consumer.consumer);
});

test('the AsyncAPI contract publishes the current channels the service emits, each payload carrying event_id and occurred_at', () => {
  assert.equal(ASYNCAPI['asyncapi'], '3.0.0');
  const channels = [...contractChannels(ASYNCAPI).values()];
  assert.ok(channels.some((c) => c.status === 'current'));
  for (const channel of channels) {
    const schema = channel.payloadSchema as { required?: string[] };
    assert.ok(schema.required?.includes('event_id') && schema.required.includes('occurred_at'), `${channel.address} payload requires event_id and occurred_at`);
  }
  // The projection-verification event reports the one write of the OpenAPI contract's POST /projection-verification/runs.
  assert.ok(channels.some((c) => c.address === 'semantic.projection_verification.recorded' && c.status === 'current'));
  assert.ok(listOperations(OPENAPI).some((op) => op.method === 'POST' && op.path === '/api/v1/semantic/projection-verification/runs'));
  assert.ok(MANIFEST['services'].find((s: { service: string }) => s.service === 'semantic').capabilities.includes('event-outbox'));
});

test('the stack contract, the governance manifest, the contract files and this build agree', () => {
  const root = readInstallRoot(ROOT);
  const differences = [...stackAgainstManifest(root), ...manifestAgainstContracts(root), ...buildAgainstFiles(root, 'checkout')];
  assert.deepEqual(differences.map(describeDifference), []);
});

test('the QA feature registry covers every semantic capability, seed-000 command and file surface with tests that exist', () => {
  const registry = read(REGISTRY_PATH);
  const checks = [check('registry_shape', shapeReasons(registry)), check('tests_exist', testReasons(ROOT, registry)), ...coverageChecks(ROOT, registry, MANIFEST)];
  assert.deepEqual(checks.filter((c) => !c.ok), []);
  const semantic = registry['modules'].find((m: { module: string }) => m.module === 'semantic');
  assert.deepEqual([...semantic.commands].sort(), [...SEED_COMMANDS].sort());
  assert.deepEqual([...semantic.file_surfaces].sort(), [...FILE_SURFACES].sort());
});

test('every seed-000 command-line surface and file surface exists in this checkout', () => {
  const commands = new Set(listCommands(ROOT).map((c) => c.name));
  for (const name of SEED_COMMANDS) assert.ok(commands.has(name), `command ${name}`);
  for (const path of FILE_SURFACES.filter((p) => !p.startsWith('dist/'))) assert.ok(existsSync(join(ROOT, path)), path);
});
