// vector_store_checks: collection and search verification against a vector store's HTTP API
// (Qdrant-compatible: GET /collections/{name}, POST /collections/{name}/points/search). The engine
// of scripts/vector_store_checks.sh. Exit 0 both pass, 1 a check failed, 2 unreachable or usage.

import { defineCommand, EXIT_FAILED, EXIT_OK, EXIT_USAGE, main, usageError } from '../src/kernel/index.ts';
import { formatChecks, report } from './_semantic/check-report.ts';
import { createHttpClient, parseBaseUrl, Unreachable } from './_semantic/http-client.ts';
import { checkVectorStore } from './_semantic/vector-store.ts';
import { consumerToken } from './_semantic/tokens.ts';

const command = defineCommand({
  name: 'vector_store_checks',
  summary: 'Verifies a vector store collection and a search against its HTTP API (Qdrant-compatible)',
  description: [
    'GET /collections/<name>: 200, status green, yellow or grey, a vector size (the --vector-size one if given).',
    'POST /collections/<name>/points/search with a unit probe vector of that size and --limit: 200 and a list of scored',
    'points, not empty when the collection holds points. The API key, if any, is sent as the api-key header.',
  ].join('\n'),
  options: {
    url: { type: 'string', valueName: 'URL', description: 'Base URL of the vector store (default: $SEMANTIC_VECTOR_STORE_URL)' },
    collection: { type: 'string', valueName: 'NAME', description: 'Collection to check (required)' },
    'vector-size': { type: 'string', valueName: 'N', description: 'Expected vector size' },
    'api-key-file': { type: 'string', valueName: 'FILE', description: 'File holding the API key' },
    limit: { type: 'string', default: '3', valueName: 'N', description: 'Points the probe search asks for' },
    'timeout-ms': { type: 'string', default: '5000', valueName: 'MS', description: 'Timeout of each request' },
  },
  async run({ values, json, io, print, printJson }) {
    const raw = values.url ?? io.env['SEMANTIC_VECTOR_STORE_URL'];
    if (raw === undefined) usageError('Missing --url: give the vector store\'s base URL (or set SEMANTIC_VECTOR_STORE_URL)');
    const baseUrl = parseBaseUrl(raw);
    if (baseUrl === undefined) usageError(`Invalid --url "${raw}": use an http(s) URL without query`);
    if (values.collection === undefined || values.collection === '') usageError('Missing --collection NAME');
    const number = (text: string | undefined, flag: string) => {
      if (text === undefined) return undefined;
      const value = Number(text);
      if (!Number.isSafeInteger(value) || value <= 0) usageError(`Invalid ${flag} "${text}": use a positive whole number`);
      return value;
    };
    const apiKey = values['api-key-file'] === undefined ? undefined : consumerToken('', {}, { tokenFile: values['api-key-file'] });
    const client = createHttpClient(baseUrl, { timeoutMs: number(values['timeout-ms'], '--timeout-ms')! });
    try {
      const { checks, collection } = await checkVectorStore(client, { collection: values.collection, apiKey, expectedSize: number(values['vector-size'], '--vector-size'), limit: number(values.limit, '--limit')! });
      const result = report(checks, { url: baseUrl, collection });
      if (json) printJson(result);
      else for (const line of formatChecks(checks)) print(line);
      return result.ok ? EXIT_OK : EXIT_FAILED;
    } catch (error) {
      if (!(error instanceof Unreachable)) throw error;
      if (json) printJson({ ok: false, url: baseUrl, error: error.message });
      io.stderr.write(`vector_store_checks: ${error.message}\n`);
      return EXIT_USAGE;
    }
  },
});

await main(command);
