// check_docs_contract: README.md and docs/*.md name every command, endpoint and file surface that
// exists, and nothing that does not. Exit 1 names each gap with its file and line.

import { defineCommand, EXIT_FAILED, EXIT_OK, main } from '../src/kernel/index.ts';
import { formatChecks, report } from './_semantic/check-report.ts';
import { checkDocsContract, FILE_SURFACES } from './_semantic/docs-contract.ts';

const command = defineCommand({
  name: 'check_docs_contract',
  summary: 'Verifies that README.md and docs/*.md name every command, endpoint and file surface that exists, and nothing that does not',
  description: [
    'Commands: every bundle (src/<service>/main*.ts, scripts/<name>.ts; in an install prefix dist/bin/<name>.mjs) and every',
    'scripts/<name>.sh, by name, in docs/commands.md (the page that lists every command). Endpoints: every',
    'path of every contracts/api/*_openapi_v1.json, written out, or as its parent path beside its last segment in one',
    `paragraph or table row. File surfaces (named in README.md): ${FILE_SURFACES.join(', ')}.`,
    'The other direction, in code spans and fenced blocks: dist/bin/<name>(.mjs) names an existing command; a path under',
    'contracts/, configs/, docs/, src/, scripts/, test/ or bench/ exists (<x>, {x} and * match any name); "METHOD /path",',
    'a /api/... span and a loopback URL name a served (or, by the manifest, consumed) endpoint; the first word of a cell in',
    'a table column named command or executables names a command. Paragraphs starting with "Planned" or "Reserved" may',
    'name endpoints not served yet.',
  ].join('\n'),
  options: {
    root: { type: 'string', default: '.', valueName: 'DIR', description: 'The checkout' },
  },
  run({ values, json, print, printJson }) {
    const checks = checkDocsContract(values.root);
    const result = report(checks, { root: values.root });
    if (json) printJson(result);
    else for (const line of formatChecks(checks)) print(line);
    return result.ok ? EXIT_OK : EXIT_FAILED;
  },
});

await main(command);
