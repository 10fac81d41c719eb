// write_contracts: regenerates governance-manifest.json, configs/stack-contract.json and every
// service's OpenAPI export from the manifests and route tables; --check only compares.

import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { defineCommand, EXIT_FAILED, EXIT_OK, main } from '../src/kernel/index.ts';
import { generatedFiles, ROOT } from './_generated-contracts.ts';

const command = defineCommand({
  name: 'write_contracts',
  summary: 'Regenerates the manifest, the stack contract and the OpenAPI exports from the route tables',
  options: {
    check: { type: 'boolean', description: 'Change nothing; exit 1 naming each file that differs' },
  },
  async run({ values, json, print, printJson }) {
    const drifted: string[] = [];
    for (const [path, text] of await generatedFiles()) {
      const file = join(ROOT, path);
      const current = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
      if (current === text) continue;
      drifted.push(path);
      if (!values.check) {
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, text);
      }
    }
    if (json) printJson({ ok: values.check ? drifted.length === 0 : true, [values.check ? 'drifted' : 'written']: drifted });
    else for (const path of drifted) print(`${values.check ? 'drifted' : 'wrote'} ${path}`);
    return values.check && drifted.length > 0 ? EXIT_FAILED : EXIT_OK;
  },
});

await main(command);
