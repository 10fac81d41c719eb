// check_module_features_contract: verifies the QA feature registry
// (contracts/qa_feature_registry_v1.json): every feature lists the tests that cover it, every
// listed test exists by file and name, and each declared module is covered (its service's
// published capabilities, its commands, its file surfaces). Exit 1 names each gap.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { defineCommand, EXIT_FAILED, EXIT_OK, main } from '../src/kernel/index.ts';
import { check, formatChecks, report } from './_semantic/check-report.ts';
import { isInstallPrefix } from './_semantic/command-inventory.ts';
import { MANIFEST_PATH } from './_semantic/install-root.ts';
import { readJsonFile } from './_semantic/json-file.ts';
import { REGISTRY_PATH, coverageChecks, shapeReasons, testReasons } from './_semantic/module-features.ts';

const command = defineCommand({
  name: 'check_module_features_contract',
  summary: 'Verifies the QA feature registry: each feature with the tests that cover it, every listed test existing',
  description: [
    `Reads ${REGISTRY_PATH} and ${MANIFEST_PATH} under --root (a checkout: the tests are read from test/; an install prefix`,
    'ships no tests, so there tests_exist is skipped and said to be).',
    'Checks: the registry\'s shape (unique ids, known kinds and modules, at least one test per feature); each listed test',
    'file exists and declares a test() / it() / describe() of exactly that name (a row of a table-driven test matches its',
    'template); each module is covered: every capability its service publishes in the manifest, every command it lists (which',
    'must exist as a bundle or script) and every file surface it lists (which must exist, unless the build makes it).',
  ].join('\n'),
  options: {
    root: { type: 'string', default: '.', valueName: 'DIR', description: 'The checkout' },
  },
  run({ values, json, print, printJson }) {
    const registry = readJsonFile(values.root, REGISTRY_PATH);
    const manifest = readJsonFile(values.root, MANIFEST_PATH);
    // An install prefix (install_memory.sh) ships no tests: their existence is the checkout's check, said, not faked.
    const testsShipped = !isInstallPrefix(values.root) || existsSync(join(values.root, 'test'));
    const skipped = testsShipped ? [] : [{ name: 'tests_exist', reason: 'an install prefix ships no tests: run this on the checkout to check them' }];
    const checks = [
      check('registry_shape', shapeReasons(registry.doc)),
      ...(testsShipped ? [check('tests_exist', testReasons(values.root, registry.doc))] : []),
      ...coverageChecks(values.root, registry.doc, manifest.doc),
    ];
    const result = report(checks, { root: values.root, registry_sha256: registry.sha256, skipped });
    if (json) printJson(result);
    else {
      for (const { name, reason } of skipped) print(`skip ${name}: ${reason}`);
      for (const line of formatChecks(checks)) print(line);
    }
    return result.ok ? EXIT_OK : EXIT_FAILED;
  },
});

await main(command);
