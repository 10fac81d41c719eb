// check_live_runtime_contract: fail-closed live verification of a running semantic API against its
// OpenAPI contract. Every operation is probed with valid credentials and in its fail-closed cases
// (401, 403, 503, 422, 400); exit 1 lists each difference, 2 when the service cannot be reached
// or a token is missing. --smoke runs a short subset under a request budget (plugin_smoke_test.sh).

import { AirlockError, defineCommand, EXIT_FAILED, EXIT_OK, EXIT_USAGE, main, usageError, wholeNumberOption } from '../src/kernel/index.ts';
import OPENAPI from '../contracts/api/semantic_openapi_v1.json' with { type: 'json' };
import { formatChecks, report } from './_semantic/check-report.ts';
import { createHttpClient, parseBaseUrl, Unreachable } from './_semantic/http-client.ts';
import { readJsonAt } from './_semantic/json-file.ts';
import { planLiveProbes, runLiveProbes } from './_semantic/live-contract.ts';
import { consumerToken, operatorToken, TOKEN_OPTIONS } from './_semantic/tokens.ts';

const CONSUMER = 'live-runtime-contract-check';

const command = defineCommand({
  name: 'check_live_runtime_contract',
  summary: 'Verifies a running semantic API against its OpenAPI contract, fail-closed cases included',
  description: [
    'Probes every operation of the contract: with valid credentials (status, media type, response schema, strong ETag and 304',
    'for readbacks, receipt TTL at most 3600 s, the same projection receipt twice), and refused: 401 without a credential,',
    'with a wrong token and with the other kind of credential, 403 for a downstream-gated consumer (--gated-token-file),',
    '403 for a case ref not admitted or 503 without an allowlist, 422 for an unknown member, 400 for a query parameter;',
    'then 404 outside the contract and 405 for a wrong method. The consumer token is the one of',
    `"${CONSUMER}". With --case-ref the projection run itself is probed (it records one replayable run).`,
    'Exit 1 lists each difference; exit 2 when the service cannot be reached or a token is missing.',
  ].join('\n'),
  options: {
    'base-url': { type: 'string', default: 'http://127.0.0.1:18020', valueName: 'URL', description: 'Base URL of the semantic API' },
    'check-live': { type: 'boolean', description: 'Accepted for uniformity with the other verifiers: this one is always live' },
    openapi: { type: 'string', valueName: 'FILE', description: 'OpenAPI contract to check against (default: the one this build carries)' },
    'case-ref': { type: 'string', valueName: 'REF', description: 'An admitted ts02: case ref, to probe the projection run itself' },
    'gated-token-file': { type: 'string', valueName: 'FILE', description: 'File holding a downstream-gated consumer\'s token, to probe its 403' },
    ...TOKEN_OPTIONS,
    smoke: { type: 'boolean', description: 'Only the valid answer of each read, one fixture and one 401' },
    'max-requests': { type: 'string', default: '1000', valueName: 'N', description: 'Most requests to send; running out is a failure' },
    'timeout-ms': { type: 'string', default: '5000', valueName: 'MS', description: 'Timeout of each request' },
  },
  async run({ values, json, io, print, printJson }) {
    const baseUrl = parseBaseUrl(values['base-url']);
    if (baseUrl === undefined) usageError(`Invalid --base-url "${values['base-url']}": use an http(s) URL without query`);
    const maxRequests = wholeNumberOption('--max-requests', values['max-requests']);
    const timeoutMs = wholeNumberOption('--timeout-ms', values['timeout-ms']);
    const openapi = values.openapi === undefined ? OPENAPI : readJsonAt(values.openapi).doc;
    const operator = operatorToken(io.env, values['operator-token-file']);
    const consumer = consumerToken(CONSUMER, io.env, { tokenFile: values['consumer-token-file'], tokensFile: values['consumer-tokens-file'] });
    const missing = [
      ...(operator === undefined ? ['the operator token (--operator-token-file, SEMANTIC_OPERATOR_TOKEN or SEMANTIC_OPERATOR_TOKEN_FILE)'] : []),
      ...(consumer === undefined ? [`the consumer token of "${CONSUMER}" (--consumer-token-file, SEMANTIC_CONSUMER_TOKEN(_FILE) or a consumer tokens file)`] : []),
    ];
    if (missing.length > 0) throw new AirlockError('environment', 'Cannot check the live contract without its tokens', { details: missing.map((m) => `missing ${m}`) });
    const gated = values['gated-token-file'] === undefined ? undefined : consumerToken('', {}, { tokenFile: values['gated-token-file'] });
    const client = createHttpClient(baseUrl, { timeoutMs, maxRequests });
    const probes = planLiveProbes({ client, openapi, operatorToken: operator!, consumerToken: consumer!, gatedToken: gated, caseRef: values['case-ref'], smoke: values.smoke === true });
    let checks;
    try {
      checks = await runLiveProbes(probes);
    } catch (error) {
      if (!(error instanceof Unreachable)) throw error;
      if (json) printJson({ ok: false, base_url: baseUrl, error: error.message });
      io.stderr.write(`check_live_runtime_contract: ${error.message}\n`);
      return EXIT_USAGE;
    }
    const differences = checks.flatMap((c) => c.reasons);
    const result = report(checks, { base_url: baseUrl, mode: values.smoke ? 'smoke' : 'full', requests: client.count(), differences });
    if (json) printJson(result);
    else for (const line of formatChecks(checks)) print(line);
    return result.ok ? EXIT_OK : EXIT_FAILED;
  },
});

await main(command);
