// check_runtime_materialization_drift: cross-layer drift verification of an install root. Compares
// the stack contract, the governance manifest, the OpenAPI contracts, the installed bundles
// (dist/package-metadata.json hashes) and the contracts this build carries; with --check-live also
// the running semantic API. Each difference names its subject and what both sides say.

import { defineCommand, EXIT_FAILED, EXIT_OK, EXIT_USAGE, main, versionTruth } from '../src/kernel/index.ts';
import { check, formatChecks, report } from './_semantic/check-report.ts';
import type { Check } from './_semantic/check-report.ts';
import { Unreachable } from './_semantic/http-client.ts';
import { readInstallRoot } from './_semantic/install-root.ts';
import { liveClient } from './_semantic/live-target.ts';
import {
  buildAgainstFiles, bundlesAgainstMetadata, describeDifference, liveAgainstRoot, manifestAgainstContracts, stackAgainstManifest,
} from './_semantic/materialization-drift.ts';
import type { Difference } from './_semantic/materialization-drift.ts';

const command = defineCommand({
  name: 'check_runtime_materialization_drift',
  summary: 'Compares the stack contract, governance manifest, OpenAPI contracts, installed bundles and (live) the running service',
  description: [
    'Layers under --root: configs/stack-contract.json, governance-manifest.json, the OpenAPI contract each manifest service',
    'lists, dist/package-metadata.json and the files it hashes. Checks: the same services and executables in the stack',
    'contract and the manifest; every contract file the manifest lists exists, and its exposed surfaces are exactly the',
    'OpenAPI operations; every declared bundle is listed and every listed file has its hash (no unlisted file in dist/bin);',
    'the semantic contracts and manifest sections this build carries equal the files. --check-live adds the running',
    'semantic API: its /healthz version is the installed one and every OpenAPI operation is served (not 404/405).',
    'Exit 1 names each difference with both sides; 2 when a layer file is missing or the service cannot be reached.',
  ].join('\n'),
  options: {
    root: { type: 'string', default: '.', valueName: 'DIR', description: 'Checkout or install prefix' },
    'skip-bundles': { type: 'boolean', description: 'Leave out the installed-bundle layer (a checkout that was not built)' },
    'check-live': { type: 'boolean', description: 'Also compare the running semantic API' },
    'base-url': { type: 'string', valueName: 'URL', description: 'Base URL of the semantic API (default: its listener in the stack contract)' },
    'timeout-ms': { type: 'string', default: '5000', valueName: 'MS', description: 'Timeout of each live request' },
  },
  async run({ values, json, io, print, printJson }) {
    const root = readInstallRoot(values.root);
    const groups: [string, Difference[]][] = [
      ['stack_contract_vs_manifest', stackAgainstManifest(root)],
      ['manifest_vs_contracts', manifestAgainstContracts(root)],
      ...(values['skip-bundles'] ? [] : [['bundles_vs_metadata', bundlesAgainstMetadata(root)] as [string, Difference[]]]),
      ['build_vs_files', buildAgainstFiles(root, versionTruth())],
    ];
    if (values['check-live']) {
      const client = liveClient(root, values);
      try {
        groups.push(['live_vs_install', await liveAgainstRoot(root, client)]);
      } catch (error) {
        if (!(error instanceof Unreachable)) throw error;
        if (json) printJson({ ok: false, root: values.root, error: error.message });
        io.stderr.write(`check_runtime_materialization_drift: ${error.message}\n`);
        return EXIT_USAGE;
      }
    }
    const checks: Check[] = groups.map(([name, differences]) => check(name, differences.map(describeDifference)));
    const result = report(checks, {
      root: values.root,
      layers: {
        [root.stack.path]: root.stack.sha256,
        [root.manifest.path]: root.manifest.sha256,
        ...Object.fromEntries([...root.openapi.values()].map((f) => [f.path, f.sha256])),
        'dist/package-metadata.json': root.metadata?.sha256 ?? null,
      },
      differences: groups.flatMap(([, differences]) => differences),
    });
    if (json) printJson(result);
    else for (const line of formatChecks(checks)) print(line);
    return result.ok ? EXIT_OK : EXIT_FAILED;
  },
});

await main(command);
