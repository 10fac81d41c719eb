import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestService } from '../semantic/fixtures/semantic-service.ts';
import { copyRoot, editJson, fakeDist, runScript, runScriptAsync, tempDir } from './fixtures/semantic-root.ts';

type Report = { ok: boolean; checks: { name: string; ok: boolean; reasons: string[] }[]; differences: { subject: string; a: { layer: string; says: string }; b: { layer: string; says: string } }[] };

function drift(root: string, ...args: string[]) {
  const result = runScript('check_runtime_materialization_drift', ['--root', root, '--json', ...args]);
  return { code: result.code, report: result.json() as Report, stderr: result.stderr };
}

function reasonsOf(report: Report, check: string): string[] {
  return report.checks.find((c) => c.name === check)?.reasons ?? [];
}

test('check_runtime_materialization_drift passes on a consistent root and names its layers', (t) => {
  const root = copyRoot(t);
  fakeDist(root);
  const { code, report } = drift(root);
  assert.equal(code, 0, JSON.stringify(report.differences));
  assert.deepEqual(report.checks.map((c) => [c.name, c.ok]), [['stack_contract_vs_manifest', true], ['manifest_vs_contracts', true], ['bundles_vs_metadata', true], ['build_vs_files', true]]);
  const text = runScript('check_runtime_materialization_drift', ['--root', root]);
  assert.match(text.stdout, /^all 4 checks passed$/m);
});

const DRIFTS: [string, (root: string) => void, string, RegExp][] = [
  ['a bundle changed after install', (root) => appendFileSync(join(root, 'dist', 'bin', 'semantic-api.mjs'), '// patched\n'),
    'bundles_vs_metadata', /^file "dist\/bin\/semantic-api\.mjs": package-metadata says sha256 [0-9a-f]{16}…; installed file says sha256 [0-9a-f]{16}…$/],
  ['a bundle is missing', (root) => rmSync(join(root, 'dist', 'bin', 'semantic-worker.mjs')),
    'bundles_vs_metadata', /^file "dist\/bin\/semantic-worker\.mjs": package-metadata says sha256 .*; installed file says missing$/],
  ['an unlisted file sits among the bundles', (root) => writeFileSync(join(root, 'dist', 'bin', 'stray.mjs'), ''),
    'bundles_vs_metadata', /^file "dist\/bin\/stray\.mjs": package-metadata says not listed; installed file says present$/],
  ['the metadata does not list a declared bundle', (root) => editJson(root, 'dist/package-metadata.json', (doc) => (doc.files = doc.files.filter((f: { path: string }) => f.path !== 'bin/semantic-api.mjs'))),
    'bundles_vs_metadata', /^bundle "dist\/bin\/semantic-api\.mjs": stack-contract says declared; package-metadata says not listed$/],
  ['the manifest drops an exposed surface', (root) => editJson(root, 'governance-manifest.json', (doc) => doc.services.find((s: { service: string }) => s.service === 'semantic').exposed_surfaces.shift()),
    'manifest_vs_contracts', /^surface GET \/api\/v1\/semantic\/context\/readback of "semantic": governance-manifest says absent; contracts\/api\/semantic_openapi_v1\.json says exposed$/],
  ['the manifest lists a contract file that is gone', (root) => rmSync(join(root, 'contracts', 'semantic_fixtures_v1.json')),
    'manifest_vs_contracts', /^contract "contracts\/semantic_fixtures_v1\.json" of "semantic": governance-manifest says listed; files says missing$/],
  ['the stack contract loses an executable', (root) => editJson(root, 'configs/stack-contract.json', (doc) => doc.services.find((s: { service: string }) => s.service === 'semantic').executables.pop()),
    'stack_contract_vs_manifest', /^executables of "semantic": stack-contract says semantic-api; governance-manifest says semantic-api, semantic-worker$/],
  ['the stack contract loses a service', (root) => editJson(root, 'configs/stack-contract.json', (doc) => (doc.services = doc.services.filter((s: { service: string }) => s.service !== 'semantic'))),
    'stack_contract_vs_manifest', /^service "semantic": stack-contract says absent; governance-manifest says present$/],
  ['a contract file differs from the one the build carries', (root) => editJson(root, 'contracts/api/semantic_cdc_v1.json', (doc) => (doc.description = 'edited by hand')),
    'build_vs_files', /^contract "contracts\/api\/semantic_cdc_v1\.json": this build \(.*\) says canonical sha256 [0-9a-f]{16}…; files says canonical sha256 [0-9a-f]{16}…$/],
];

test('check_runtime_materialization_drift takes a route family of the manifest as its members in the export', (t) => {
  const root = copyRoot(t);
  fakeDist(root);
  const semantic = (doc: { services: { service: string; exposed_surfaces: { path: string }[] }[] }) => doc.services.find((s) => s.service === 'semantic')!;
  editJson(root, 'governance-manifest.json', (doc) => {
    const surfaces = semantic(doc).exposed_surfaces;
    semantic(doc).exposed_surfaces = [...surfaces.filter((s) => !s.path.startsWith('/api/v1/semantic/fixtures/')), { listener: 'main', method: 'POST', path: '/api/v1/semantic/fixtures/*', auth: 'operator' } as never];
  });
  const family = drift(root, '--skip-bundles');
  assert.deepEqual(reasonsOf(family.report, 'manifest_vs_contracts'), []);
  editJson(root, 'governance-manifest.json', (doc) => semantic(doc).exposed_surfaces.push({ listener: 'main', method: 'POST', path: '/api/v1/semantic/imports/*', auth: 'operator' } as never));
  assert.deepEqual(reasonsOf(drift(root, '--skip-bundles').report, 'manifest_vs_contracts'), [
    'surface POST /api/v1/semantic/imports/* of "semantic": governance-manifest says exposed; contracts/api/semantic_openapi_v1.json says no member',
  ]);
});

for (const [name, breakIt, failing, reason] of DRIFTS) {
  test(`check_runtime_materialization_drift exits 1 when ${name}`, (t) => {
    const root = copyRoot(t);
    fakeDist(root);
    breakIt(root);
    const { code, report } = drift(root);
    assert.equal(code, 1);
    const reasons = reasonsOf(report, failing);
    assert.ok(reasons.some((r) => reason.test(r)), `${failing}: ${reasons.join('\n')}`);
    assert.ok(report.differences.every((d) => d.a.layer !== d.b.layer), 'each difference names two layers');
  });
}

test('check_runtime_materialization_drift without a build: the bundle layer says so, --skip-bundles leaves it out', (t) => {
  const root = copyRoot(t);
  const { code, report } = drift(root);
  assert.equal(code, 1);
  assert.match(reasonsOf(report, 'bundles_vs_metadata')[0] ?? '', /^installed bundles: stack-contract says \d+ executables; package-metadata says missing/);
  const skipped = drift(root, '--skip-bundles');
  assert.equal(skipped.code, 0);
  assert.ok(!skipped.report.checks.some((c) => c.name === 'bundles_vs_metadata'));
});

test('check_runtime_materialization_drift --check-live compares the running service with the install', async (t) => {
  const service = await startTestService(t);
  const root = copyRoot(t);
  fakeDist(root, '0.0.0+test');
  const same = await runScriptAsync('check_runtime_materialization_drift', ['--root', root, '--check-live', '--base-url', service.url, '--json']);
  assert.equal(same.code, 0, same.stdout);
  fakeDist(root, '0.0.1+other');
  editJson(root, 'contracts/api/semantic_openapi_v1.json', (doc) => (doc.paths['/api/v1/semantic/graph/admin'] = { get: { responses: { 200: { description: 'x' } } } }));
  editJson(root, 'governance-manifest.json', (doc) => doc.services.find((s: { service: string }) => s.service === 'semantic').exposed_surfaces.push({ listener: 'main', method: 'GET', path: '/api/v1/semantic/graph/admin', auth: 'none' }));
  const other = await runScriptAsync('check_runtime_materialization_drift', ['--root', root, '--check-live', '--base-url', service.url, '--json']);
  assert.equal(other.code, 1);
  const live = (other.json() as Report).checks.find((c) => c.name === 'live_vs_install')!;
  assert.deepEqual(live.reasons, [
    `version: package-metadata says 0.0.1+other; running service (${service.url}) says 0.0.0+test`,
    `GET /api/v1/semantic/graph/admin: contracts/api/semantic_openapi_v1.json says defined; running service (${service.url}) says 404`,
  ]);
});

test('check_runtime_materialization_drift exits 2 without its layer files or when the service cannot be reached', (t) => {
  const empty = runScript('check_runtime_materialization_drift', ['--root', tempDir(t)]);
  assert.equal(empty.code, 2);
  assert.match(empty.stderr, /Cannot read ".*configs\/stack-contract\.json": ENOENT/);
  const root = copyRoot(t);
  const closed = runScript('check_runtime_materialization_drift', ['--root', root, '--skip-bundles', '--check-live', '--base-url', 'http://127.0.0.1:9']);
  assert.equal(closed.code, 2);
  assert.match(closed.stderr, /Cannot reach "http:\/\/127\.0\.0\.1:9\/healthz"/);
});
