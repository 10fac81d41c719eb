import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CDC_CONTRACT } from '../../src/semantic/index.ts';
import { checkTokenRules } from '../../scripts/_semantic/semantic-cdc.ts';
import { ROOT, copyRoot, editJson, runScript, tempDir } from './fixtures/semantic-root.ts';

const CDC = 'contracts/api/semantic_cdc_v1.json';
const OPENAPI = 'contracts/api/semantic_openapi_v1.json';
const STATUS = '/api/v1/semantic/runtime/status';

test('check_semantic_cdc_matrix exits 0 on this checkout and lists the consumers with --json', () => {
  const text = runScript('check_semantic_cdc_matrix', ['--root', ROOT]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^ok {3}ts01_consumer_matrix$/m);
  assert.match(text.stdout, /^all 3 checks passed$/m);
  const json = runScript('check_semantic_cdc_matrix', ['--root', ROOT, '--json']);
  assert.equal(json.code, 0);
  const result = json.json();
  assert.equal(result['ok'], true);
  assert.deepEqual(result['consumers'], {
    admitted: ['live-runtime-contract-check', 'host-runtime-snapshot-export', 'governance-status-bundle-export'],
    downstream_gated: ['governance-service', 'erp-workflow-service', 'agent-context-service', 'memory-to-graph-migration'],
  });
});

const BROKEN: [string, (root: string) => void, string, RegExp][] = [
  ['a gated entry admits an endpoint', (root) => editJson(root, CDC, (doc) => (doc.ts01_consumer_matrix.consumers[3].surfaces = [{ method: 'GET', path: STATUS }])),
    'ts01_consumer_matrix', /downstream-gated consumer "governance-service" must admit no endpoint, but lists 1/],
  ['a gated entry claims green', (root) => editJson(root, CDC, (doc) => (doc.ts01_consumer_matrix.consumers[6].claims_green = true)),
    'ts01_consumer_matrix', /downstream-gated consumer "memory-to-graph-migration" must not claim a green result/],
  ['a fourth consumer is admitted', (root) => editJson(root, CDC, (doc) => (doc.ts01_consumer_matrix.consumers[4].status = 'admitted', doc.ts01_consumer_matrix.consumers[4].claims_green = true, doc.ts01_consumer_matrix.consumers[4].surfaces = [{ method: 'GET', path: STATUS }])),
    'ts01_consumer_matrix', /4 consumers are admitted, expected exactly 3/],
  ['a consumer names an endpoint the OpenAPI contract lacks', (root) => editJson(root, CDC, (doc) => doc.ts01_consumer_matrix.consumers[0].surfaces.push({ method: 'GET', path: '/api/v1/semantic/graph' })),
    'surfaces_in_openapi', /consumer "live-runtime-contract-check" names GET \/api\/v1\/semantic\/graph, which the OpenAPI contract does not define/],
  ['the OpenAPI contract secures the status with the operator token', (root) => editJson(root, OPENAPI, (doc) => (doc.paths[STATUS].get.security = [{ operator: [] }])),
    'token_rules', /admitted to GET \/api\/v1\/semantic\/runtime\/status, but the OpenAPI contract secures it with operator instead of a bearer token/],
  ['the file drops an admitted surface the service still admits', (root) => editJson(root, CDC, (doc) => doc.ts01_consumer_matrix.consumers[1].surfaces.pop()),
    'token_rules', /the service admits consumer "host-runtime-snapshot-export" on GET \/api\/v1\/semantic\/context\/readback, the contract refuses it/],
];

for (const [name, breakIt, failing, reason] of BROKEN) {
  test(`check_semantic_cdc_matrix exits 1 when ${name}`, (t) => {
    const root = copyRoot(t);
    breakIt(root);
    const result = runScript('check_semantic_cdc_matrix', ['--root', root, '--json']);
    assert.equal(result.code, 1, result.stderr);
    const checks = result.json()['checks'] as { name: string; ok: boolean; reasons: string[] }[];
    const failed = checks.find((c) => c.name === failing)!;
    assert.equal(failed.ok, false);
    assert.ok(failed.reasons.some((r) => reason.test(r)), failed.reasons.join('\n'));
  });
}

test('check_semantic_cdc_matrix --tokens-file checks the consumer tokens without printing them', (t) => {
  const dir = tempDir(t);
  const good = join(dir, 'good.json');
  writeFileSync(good, JSON.stringify({ 'live-runtime-contract-check': 'A'.repeat(30), 'agent-context-service': 'B'.repeat(30) }));
  assert.equal(runScript('check_semantic_cdc_matrix', ['--root', ROOT, '--tokens-file', good]).code, 0);
  const bad = join(dir, 'bad.json');
  writeFileSync(bad, JSON.stringify({ 'live-runtime-contract-check': 'secret-shared-token-0123456789', 'host-runtime-snapshot-export': 'secret-shared-token-0123456789', stranger: 'C'.repeat(30) }));
  const result = runScript('check_semantic_cdc_matrix', ['--root', ROOT], { env: { SEMANTIC_CONSUMER_TOKENS_FILE: bad } });
  assert.equal(result.code, 1);
  assert.match(result.stdout, /FAIL consumer_tokens/);
  assert.match(result.stdout, /entry \d+ names a consumer that ts01_consumer_matrix does not list/);
  assert.match(result.stdout, /consumers "live-runtime-contract-check" and "host-runtime-snapshot-export" share one token/);
  assert.doesNotMatch(result.stdout + result.stderr, /secret-shared-token/);
  writeFileSync(bad, '{"live-runtime-contract-check": "secret-unterminated');
  const unreadable = runScript('check_semantic_cdc_matrix', ['--root', ROOT, '--tokens-file', bad]);
  assert.equal(unreadable.code, 2);
  assert.doesNotMatch(unreadable.stderr, /secret-unterminated/);
});

test('check_semantic_cdc_matrix exits 2 without the contract files, and answers --help', (t) => {
  const missing = runScript('check_semantic_cdc_matrix', ['--root', tempDir(t)]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /Cannot read ".*contracts\/api\/semantic_cdc_v1\.json": ENOENT/);
  const help = runScript('check_semantic_cdc_matrix', ['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: check_semantic_cdc_matrix \[options\]/);
});

test('checkTokenRules() names a service rule that admits a gated consumer', () => {
  const openapi = JSON.parse(readFileSync(join(ROOT, OPENAPI), 'utf8'));
  const reasons = checkTokenRules({ cdc: CDC_CONTRACT, openapi, admission: (consumer) => consumer !== 'nobody', serviceConsumers: ['live-runtime-contract-check', 'rogue'] });
  assert.ok(reasons.includes('the service knows consumer "rogue", which the contract\'s matrix does not list'));
  assert.ok(reasons.includes(`the service admits consumer "agent-context-service" on GET ${STATUS}, the contract refuses it`));
});
