// export-governance-metadata: metadata for consumers, derived from the governance manifest, the
// stack contract, the OpenAPI and other contract files and the build's package metadata of an
// install root (never hand-written). Prints JSON (or --tsv for shell consumers), writes --output
// atomically, or with --check compares a file with a fresh derivation.

import { canonicalJson, defineCommand, EXIT_FAILED, EXIT_OK, main, usageError, writeFileAtomic } from '../src/kernel/index.ts';
import { deriveGovernanceMetadata, metadataTsv } from './_semantic/governance-metadata.ts';
import { readInstallRoot } from './_semantic/install-root.ts';
import { readJsonAt } from './_semantic/json-file.ts';

const command = defineCommand({
  name: 'export-governance-metadata',
  summary: 'Exports governance metadata for consumers, derived from the manifest, the stack contract and the contracts',
  description: [
    'Per service: identity, capabilities, executables (bundle, SHA-256 from dist/package-metadata.json, arguments, listeners),',
    'endpoints from its OpenAPI contract, contract files with their SHA-256, consumer matrices (*_consumer_matrix members),',
    'dependencies and consumed surfaces; plus the release version and the SHA-256 of every input. The same inputs give the',
    'same bytes. --tsv prints "executable" and "consumer" rows for shell scripts. --check FILE exits 1 when FILE is not',
    'what the derivation gives (a hand edit or stale inputs). Exit 1 also when a contract the manifest lists is missing.',
  ].join('\n'),
  options: {
    root: { type: 'string', default: '.', valueName: 'DIR', description: 'Checkout or install prefix' },
    output: { type: 'string', valueName: 'FILE', description: 'Write the JSON document to FILE (atomically) instead of stdout' },
    check: { type: 'string', valueName: 'FILE', description: 'Compare FILE with the derivation; write nothing' },
    tsv: { type: 'boolean', description: 'Print tab-separated executable and consumer rows instead of JSON' },
  },
  run({ values, json, io, print, printJson }) {
    if (values.check !== undefined && values.output !== undefined) usageError('Give --check or --output, not both');
    const { doc, reasons } = deriveGovernanceMetadata(readInstallRoot(values.root));
    const text = `${JSON.stringify(doc, null, 2)}\n`;
    if (values.check !== undefined) {
      const existing = readJsonAt(values.check).doc;
      const same = canonicalJson(existing) === canonicalJson(doc);
      const problems = [...reasons, ...(same ? [] : [`"${values.check}" differs from the metadata derived from "${values.root}": regenerate it, never edit it by hand`])];
      if (json) printJson({ ok: problems.length === 0, file: values.check, reasons: problems });
      else print(problems.length === 0 ? `${values.check}: matches the derivation` : problems.join('\n'));
      return problems.length === 0 ? EXIT_OK : EXIT_FAILED;
    }
    for (const reason of reasons) io.stderr.write(`export-governance-metadata: ${reason}\n`);
    if (values.output !== undefined) {
      writeFileAtomic(values.output, text);
      if (json) printJson({ ok: reasons.length === 0, output: values.output, reasons });
      else print(`wrote ${values.output}`);
    } else if (values.tsv) io.stdout.write(metadataTsv(doc));
    else if (json) printJson(doc);
    else io.stdout.write(text);
    return reasons.length === 0 ? EXIT_OK : EXIT_FAILED;
  },
});

await main(command);
