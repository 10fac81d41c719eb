// check_semantic_cdc_matrix: verifies ts01_consumer_matrix (contracts/api/semantic_cdc_v1.json)
// offline: exactly three admitted consumers, four downstream-gated entries that admit no endpoint
// and claim no green result, every named surface defined by the OpenAPI contract, and the
// service's token rules in agreement with both; optionally a consumer tokens file too.

import { readFileSync } from 'node:fs';
import { AirlockError, defineCommand, EXIT_FAILED, EXIT_OK, main } from '../src/kernel/index.ts';
import { formatChecks, report } from './_semantic/check-report.ts';
import { readJsonFile } from './_semantic/json-file.ts';
import { checkSemanticCdc, matrixConsumers } from './_semantic/semantic-cdc.ts';

const CDC_PATH = 'contracts/api/semantic_cdc_v1.json';
const OPENAPI_PATH = 'contracts/api/semantic_openapi_v1.json';

const command = defineCommand({
  name: 'check_semantic_cdc_matrix',
  summary: 'Verifies the semantic consumer matrix ts01_consumer_matrix against the OpenAPI contract and the service\'s token rules',
  description: [
    `Reads ${CDC_PATH} and ${OPENAPI_PATH} under --root. Checks: exactly three admitted consumers and four`,
    'downstream-gated entries that list no surface and claim no green result; every surface a consumer names is an',
    'operation of the OpenAPI contract; admitted surfaces take a bearer token there, and every bearer operation is',
    'admitted to some consumer; the admission rule compiled into the service admits exactly what the file admits.',
    'With --tokens-file (or SEMANTIC_CONSUMER_TOKENS_FILE) the service\'s consumer tokens file is checked too: every',
    'id listed by the matrix, tokens long enough and distinct. Tokens are never printed.',
  ].join('\n'),
  options: {
    root: { type: 'string', default: '.', valueName: 'DIR', description: 'Checkout or install prefix holding contracts/' },
    'tokens-file': { type: 'string', valueName: 'FILE', description: 'Consumer tokens file to check (default: $SEMANTIC_CONSUMER_TOKENS_FILE if set)' },
  },
  run({ values, json, io, print, printJson }) {
    const cdc = readJsonFile(values.root, CDC_PATH);
    const openapi = readJsonFile(values.root, OPENAPI_PATH);
    const tokensFile = values['tokens-file'] ?? io.env['SEMANTIC_CONSUMER_TOKENS_FILE'];
    let tokens: unknown;
    if (tokensFile !== undefined) {
      try {
        tokens = JSON.parse(readFileSync(tokensFile, 'utf8'));
      } catch (error) {
        // The parser's message could quote a token: only the kind of failure is reported.
        const reason = (error as NodeJS.ErrnoException).code ?? 'not JSON';
        throw new AirlockError('environment', `Cannot read consumer tokens file "${tokensFile}": ${reason}`);
      }
    }
    const checks = checkSemanticCdc({ cdc: cdc.doc, openapi: openapi.doc, ...(tokens !== undefined && { tokens }) });
    const consumers = matrixConsumers(cdc.doc);
    const result = report(checks, {
      root: values.root,
      contracts: { [cdc.path]: cdc.sha256, [openapi.path]: openapi.sha256 },
      consumers: {
        admitted: consumers.filter((c) => c.status === 'admitted').map((c) => c.consumer),
        downstream_gated: consumers.filter((c) => c.status === 'downstream_gated').map((c) => c.consumer),
      },
    });
    if (json) printJson(result);
    else for (const line of formatChecks(checks)) print(line);
    return result.ok ? EXIT_OK : EXIT_FAILED;
  },
});

await main(command);
