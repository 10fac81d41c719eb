import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { CASE_REF, CONSUMER_TOKENS, OPERATOR_TOKEN, startTestService } from '../semantic/fixtures/semantic-service.ts';
import { ROOT, runScriptAsync, tempDir } from './fixtures/semantic-root.ts';

const STATUS = '/api/v1/semantic/runtime/status';

function tokenEnv(t: TestContext): Record<string, string> {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'tokens.json'), JSON.stringify(CONSUMER_TOKENS));
  writeFileSync(join(dir, 'operator'), `${OPERATOR_TOKEN}\n`);
  writeFileSync(join(dir, 'gated'), CONSUMER_TOKENS['agent-context-service']!);
  return { SEMANTIC_OPERATOR_TOKEN_FILE: join(dir, 'operator'), SEMANTIC_CONSUMER_TOKENS_FILE: join(dir, 'tokens.json'), GATED: join(dir, 'gated') };
}

/** A loopback double in front of `upstream` that answers like a misconfigured service. */
async function misconfiguredProxy(t: TestContext, upstream: string): Promise<string> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.url === STATUS && req.headers['authorization'] === undefined) {
      // The fault under test: the status readback answers without a credential.
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"activation_stage":"S0"}');
      return;
    }
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name))) as Record<string, string>;
    const answer = await fetch(`${upstream}${req.url}`, { method: req.method!, headers, ...(chunks.length > 0 && { body: Buffer.concat(chunks) }) });
    const out = Object.fromEntries([...answer.headers].filter(([name]) => !['etag', 'content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(name)));
    res.writeHead(answer.status, out).end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test('check_live_runtime_contract passes against the semantic API, projection and gated consumer included', async (t) => {
  const service = await startTestService(t);
  const env = tokenEnv(t);
  const result = await runScriptAsync('check_live_runtime_contract', ['--base-url', service.url, '--case-ref', CASE_REF, '--gated-token-file', env['GATED']!, '--json'], { env });
  assert.equal(result.code, 0, result.stdout + result.stderr);
  const report = result.json() as { ok: boolean; mode: string; requests: number; differences: string[]; checks: { name: string }[] };
  assert.deepEqual([report.ok, report.mode, report.differences], [true, 'full', []]);
  const names = report.checks.map((c) => c.name);
  for (const name of [
    `GET ${STATUS} with valid credentials`,
    `GET ${STATUS} with a downstream-gated consumer token`,
    'POST /api/v1/semantic/projection-verification/runs with valid credentials',
    'POST /api/v1/semantic/projection-verification/runs with a case ref that is not admitted',
    'POST /api/v1/semantic/fixtures/context-security with an unknown member',
    'GET /api/v1/semantic/topology/metrics/readback with the other credential kind only',
    'DELETE /healthz (a method the contract does not declare)',
  ]) assert.ok(names.includes(name), `missing probe: ${name}`);
  assert.ok(report.requests > 60, `${report.requests} requests`);
  assert.doesNotMatch(result.stdout + result.stderr, new RegExp(OPERATOR_TOKEN));
});

test('check_live_runtime_contract accepts the fail-closed 503 without an allowlist, and names it when a case ref was expected', async (t) => {
  const service = await startTestService(t, { SEMANTIC_PROJECTION_CASE_ALLOWLIST: '' });
  const env = tokenEnv(t);
  const closed = await runScriptAsync('check_live_runtime_contract', ['--base-url', service.url], { env });
  assert.equal(closed.code, 0, closed.stdout);
  const expected = await runScriptAsync('check_live_runtime_contract', ['--base-url', service.url, '--case-ref', CASE_REF], { env });
  assert.equal(expected.code, 1);
  assert.match(expected.stdout, /POST \/api\/v1\/semantic\/projection-verification\/runs: expected 200, got 503/);
});

test('check_live_runtime_contract exits 1 listing each difference of a misconfigured service', async (t) => {
  const service = await startTestService(t);
  const proxy = await misconfiguredProxy(t, service.url);
  const result = await runScriptAsync('check_live_runtime_contract', ['--base-url', proxy, '--json'], { env: tokenEnv(t) });
  assert.equal(result.code, 1, result.stderr);
  const differences = result.json()['differences'] as string[];
  assert.ok(differences.includes(`GET ${STATUS} without a credential: expected 401, got 200`), differences.join('\n'));
  assert.ok(differences.includes(`GET ${STATUS}: no strong ETag (none)`));
  assert.ok(differences.includes('GET /api/v1/semantic/context/readback: no strong ETag (none)'));
});

test('check_live_runtime_contract names a consumer token the service does not admit', async (t) => {
  const service = await startTestService(t);
  const dir = tempDir(t);
  writeFileSync(join(dir, 'gated-as-mine'), CONSUMER_TOKENS['agent-context-service']!);
  const result = await runScriptAsync('check_live_runtime_contract', ['--base-url', service.url, '--consumer-token-file', join(dir, 'gated-as-mine')], { env: { SEMANTIC_OPERATOR_TOKEN: OPERATOR_TOKEN } });
  assert.equal(result.code, 1);
  assert.match(result.stdout, new RegExp(`GET ${STATUS}: expected 200, got 403`));
});

test('check_live_runtime_contract --smoke stays within its request budget', async (t) => {
  const service = await startTestService(t);
  const env = tokenEnv(t);
  const smoke = await runScriptAsync('check_live_runtime_contract', ['--base-url', service.url, '--smoke', '--max-requests', '12', '--json'], { env });
  assert.equal(smoke.code, 0, smoke.stdout);
  const report = smoke.json() as { mode: string; requests: number; checks: { name: string }[] };
  assert.equal(report.mode, 'smoke');
  assert.ok(report.requests <= 12, `${report.requests} requests`);
  assert.ok(report.checks.some((c) => c.name === 'POST /api/v1/semantic/fixtures/canary-activation with valid credentials'));
  const spent = await runScriptAsync('check_live_runtime_contract', ['--base-url', service.url, '--smoke', '--max-requests', '3'], { env });
  assert.equal(spent.code, 1);
  assert.match(spent.stdout, /^FAIL request budget$/m);
  assert.match(spent.stdout, /Request budget of 3 spent before/);
});

test('check_live_runtime_contract exits 2 when the service cannot be reached or a token is missing', async (t) => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const env = tokenEnv(t);
  const unreachable = await runScriptAsync('check_live_runtime_contract', ['--base-url', `http://127.0.0.1:${port}`], { env });
  assert.equal(unreachable.code, 2);
  assert.match(unreachable.stderr, new RegExp(`Cannot reach "http://127.0.0.1:${port}/[^"]*": .*ECONNREFUSED`));
  const noTokens = await runScriptAsync('check_live_runtime_contract', ['--base-url', `http://127.0.0.1:${port}`], { env: {} });
  assert.equal(noTokens.code, 2);
  assert.match(noTokens.stderr, /missing the operator token/);
  assert.match(noTokens.stderr, /missing the consumer token of "live-runtime-contract-check"/);
  const badUrl = await runScriptAsync('check_live_runtime_contract', ['--base-url', 'ftp://x'], { env });
  assert.equal(badUrl.code, 2);
});

test('check_live_runtime_contract --openapi FILE checks against that contract, naming an operation the service lacks', async (t) => {
  const service = await startTestService(t);
  const contract = JSON.parse(readFileSync(join(ROOT, 'contracts', 'api', 'semantic_openapi_v1.json'), 'utf8'));
  contract.paths['/api/v1/semantic/graph/summary'] = { get: { ...contract.paths[STATUS].get, operationId: 'getGraphSummary' } };
  const file = join(tempDir(t), 'openapi.json');
  writeFileSync(file, JSON.stringify(contract));
  const result = await runScriptAsync('check_live_runtime_contract', ['--base-url', service.url, '--openapi', file, '--json'], { env: tokenEnv(t) });
  assert.equal(result.code, 1, result.stderr);
  assert.ok((result.json()['differences'] as string[]).includes('GET /api/v1/semantic/graph/summary: expected 200, got 404'));
});
