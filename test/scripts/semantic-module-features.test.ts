import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { TestContext } from 'node:test';
import { listCommands } from '../../scripts/_semantic/command-inventory.ts';
import { declaredTests, declares } from '../../scripts/_semantic/test-names.ts';
// @ts-ignore -- build.mjs is plain JavaScript without declarations.
import { listEntries } from '../../build.mjs';
import { ROOT, editJson, failedChecks, runScript, tempDir } from './fixtures/semantic-root.ts';

function tree(t: TestContext, files: Record<string, string>): string {
  const root = tempDir(t);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const REGISTRY = {
  registry: 'qa_feature_registry',
  version: 1,
  modules: [{ module: 'demo', service: 'demo', commands: ['demo_check', 'demo.sh'], file_surfaces: ['governance-manifest.json', 'dist/package-metadata.json'] }],
  features: [
    { id: 'demo.a', module: 'demo', kind: 'capability', subject: 'alpha', tests: [{ file: 'test/demo.test.ts', name: 'alpha works' }] },
    { id: 'demo.b', module: 'demo', kind: 'capability', subject: 'beta', tests: [{ file: 'test/demo.test.ts', name: 'beta refuses a bad "input"' }] },
    { id: 'demo.check', module: 'demo', kind: 'command', subject: 'demo_check', tests: [{ file: 'test/demo.test.ts', name: 'demo_check exits 1 when x is missing' }] },
    { id: 'demo.sh', module: 'demo', kind: 'command', subject: 'demo.sh', tests: [{ file: 'test/demo.test.ts', name: 'demo.sh --help' }] },
    { id: 'demo.manifest', module: 'demo', kind: 'file_surface', subject: 'governance-manifest.json', tests: [{ file: 'test/demo.test.ts', name: 'alpha works' }] },
    { id: 'demo.metadata', module: 'demo', kind: 'file_surface', subject: 'dist/package-metadata.json', tests: [{ file: 'test/demo.test.ts', name: 'alpha works' }] },
  ],
};

function demoTree(t: TestContext): string {
  return tree(t, {
    'governance-manifest.json': JSON.stringify({ manifest_version: 1, services: [{ service: 'demo', capabilities: ['alpha', 'beta'] }] }),
    'contracts/qa_feature_registry_v1.json': JSON.stringify(REGISTRY),
    'scripts/demo_check.ts': '',
    'scripts/demo.sh': '',
    'scripts/_lib.ts': '',
    'test/demo.test.ts': [
      "test('alpha works', () => {});",
      "test(\"beta refuses a bad \\\"input\\\"\", () => {});",
      'for (const x of xs) test(`demo_check exits 1 when ${x} is missing`, () => {});',
      "  it('demo.sh --help', () => {});",
    ].join('\n'),
  });
}

function failures(root: string): Record<string, string[]> {
  return failedChecks(runScript('check_module_features_contract', ['--root', root, '--json']));
}

test('check_module_features_contract passes a registry whose features, tests and modules all line up', (t) => {
  const result = runScript('check_module_features_contract', ['--root', demoTree(t)]);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  assert.match(result.stdout, /^all 5 checks passed$/m);
});

const GAPS: [string, (root: string) => void, Record<string, string[]>][] = [
  ['a listed test was renamed', (root) => writeFileSync(join(root, 'test', 'demo.test.ts'), "test('alpha works', () => {});\n test('beta refuses a bad \"input\"', () => {}); it('demo.sh --help', () => {}); test(`demo_check exits 1 when ${x} is missing`, () => {});".replace("alpha works", 'alpha still works')),
    { tests_exist: ['feature "demo.a": "test/demo.test.ts" declares no test named "alpha works"', 'feature "demo.manifest": "test/demo.test.ts" declares no test named "alpha works"', 'feature "demo.metadata": "test/demo.test.ts" declares no test named "alpha works"'] }],
  ['a test file is gone', (root) => editJson(root, 'contracts/qa_feature_registry_v1.json', (doc) => (doc.features[1].tests[0].file = 'test/gone.test.ts')),
    { tests_exist: ['feature "demo.b": test file "test/gone.test.ts" does not exist'] }],
  ['a published capability has no feature', (root) => editJson(root, 'governance-manifest.json', (doc) => doc.services[0].capabilities.push('gamma')),
    { capabilities_covered: ['module "demo": capability "gamma" has no feature'] }],
  ['a feature names a capability nobody publishes', (root) => editJson(root, 'contracts/qa_feature_registry_v1.json', (doc) => (doc.features[1].subject = 'beat')),
    { capabilities_covered: ['module "demo": capability "beta" has no feature', 'feature "demo.b": capability "beat" is not published by service "demo"'] }],
  ['a listed command does not exist', (root) => editJson(root, 'contracts/qa_feature_registry_v1.json', (doc) => (doc.modules[0].commands.push('demo_gone'), doc.features.push({ id: 'demo.gone', module: 'demo', kind: 'command', subject: 'demo_gone', tests: [{ file: 'test/demo.test.ts', name: 'alpha works' }] }))),
    { commands_covered: ['feature "demo.gone": command "demo_gone" does not exist', 'module "demo": command "demo_gone" does not exist'] }],
  ['a file surface does not exist', (root) => editJson(root, 'contracts/qa_feature_registry_v1.json', (doc) => (doc.modules[0].file_surfaces.push('configs/stack-contract.json'))),
    { file_surfaces_covered: ['module "demo": file surface "configs/stack-contract.json" has no feature', 'module "demo": file surface "configs/stack-contract.json" does not exist'] }],
  ['a feature has no test and another repeats an id', (root) => editJson(root, 'contracts/qa_feature_registry_v1.json', (doc) => (doc.features[0].tests = [], doc.features[2].id = 'demo.b')),
    { registry_shape: ['feature "demo.a" lists no test', 'feature "demo.b" is listed twice'] }],
];

for (const [name, breakIt, expected] of GAPS) {
  test(`check_module_features_contract exits 1 when ${name}`, (t) => {
    const root = demoTree(t);
    breakIt(root);
    assert.deepEqual(failures(root), expected);
    assert.equal(runScript('check_module_features_contract', ['--root', root]).code, 1);
  });
}

test('check_module_features_contract exits 2 without a registry', (t) => {
  const result = runScript('check_module_features_contract', ['--root', tempDir(t)]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /Cannot read ".*contracts\/qa_feature_registry_v1\.json": ENOENT/);
});

test('declaredTests() reads test, it and describe names, escapes and templates', () => {
  const tests = declaredTests("test('a \\'quoted\\' name', () => {});\ndescribe(\"group\", () => { it(`row ${n} of ${m}`, () => {}); });\ntest(`plain template`, () => {});");
  assert.deepEqual([...tests.names], ["a 'quoted' name", 'group', 'plain template']);
  assert.ok(declares(tests, 'row 3 of 4'));
  assert.ok(!declares(tests, 'row of'));
});

test('listCommands() names the bundles exactly as build.mjs does, plus the shell scripts', () => {
  const commands = listCommands(ROOT);
  assert.deepEqual(commands.filter((c) => c.kind === 'bundle').map((c) => c.name), listEntries(ROOT).map((e: { name: string }) => e.name));
  assert.ok(commands.filter((c) => c.kind === 'bash').every((c) => c.name.endsWith('.sh') && !c.name.startsWith('_')));
});
