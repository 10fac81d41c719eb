import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadApiConfig, loadWorkerConfig } from '../../src/semantic/config.ts';
import { checkConsumerTokens } from '../../src/semantic/consumer-tokens.ts';
import { tempDir } from './fixtures/semantic-fixtures.ts';
import { compileCache } from '../helpers/compile-cache.ts';

const MAIN = fileURLToPath(new URL('../../src/semantic/main.ts', import.meta.url));
const TOKEN = 'a-consumer-token-of-enough-length';
const OP = 'an-operator-token-of-enough-length';

test('loadApiConfig() reads defaults: loopback 18020, stage S0, 900 s receipts, no allowlist', () => {
  const config = loadApiConfig({ SEMANTIC_OPERATOR_TOKEN: OP });
  assert.deepEqual(config.listen, { host: '127.0.0.1', port: 18020 });
  assert.equal(config.stage, 'S0');
  assert.equal(config.receiptTtlSeconds, 900);
  assert.deepEqual(config.caseAllowlist, []);
  assert.equal(config.databasePath, join('./var', 'semantic.sqlite'));
});

test('loadApiConfig() lists every problem at once', () => {
  assert.throws(
    () => loadApiConfig({
      SEMANTIC_PROJECTION_CASE_ALLOWLIST: 'ts02:ok,ts03:bad,ts02:',
      SEMANTIC_MODEL_RUNTIME_URL: 'http://10.1.2.3:8080',
      SEMANTIC_GOVERNANCE_URL: 'ftp://127.0.0.1',
      SEMANTIC_ACTIVATION_STAGE: 'S9',
      SEMANTIC_RECEIPT_TTL_SECONDS: '3601',
    }),
    (error: Error & { details: string[] }) => {
      assert.deepEqual(error.details, [
        'SEMANTIC_ACTIVATION_STAGE: "S9" is not one of S0, S1_read_only, stage_2',
        'SEMANTIC_GOVERNANCE_URL: "ftp://127.0.0.1" is not an http(s) URL',
        'SEMANTIC_MODEL_RUNTIME_URL: "http://10.1.2.3:8080" is not a loopback URL; set SEMANTIC_ALLOW_NON_LOOPBACK_UPSTREAMS=1 to opt in',
        'SEMANTIC_OPERATOR_TOKEN: missing; set SEMANTIC_OPERATOR_TOKEN or SEMANTIC_OPERATOR_TOKEN_FILE',
        'SEMANTIC_PROJECTION_CASE_ALLOWLIST: case ref "ts02:" must start with "ts02:" and name a case',
        'SEMANTIC_PROJECTION_CASE_ALLOWLIST: case ref "ts03:bad" must start with "ts02:" and name a case',
        'SEMANTIC_RECEIPT_TTL_SECONDS: "3601" is above the maximum 3600',
      ]);
      return true;
    },
  );
});

test('loadApiConfig() admits a non-loopback upstream only with the opt-in', () => {
  const config = loadApiConfig({ SEMANTIC_OPERATOR_TOKEN: OP, SEMANTIC_VECTOR_STORE_URL: 'http://vectors.internal:6333/', SEMANTIC_ALLOW_NON_LOOPBACK_UPSTREAMS: '1' });
  assert.equal(config.upstreams.vector_store, 'http://vectors.internal:6333');
});

test('checkConsumerTokens() refuses consumers the matrix does not list, short or shared tokens', () => {
  assert.deepEqual(checkConsumerTokens({ 'live-runtime-contract-check': TOKEN, 'agent-context-service': `${TOKEN}-2` }).reasons, [], 'a gated consumer may hold a token');
  assert.deepEqual(checkConsumerTokens({
    'live-runtime-contract-check': TOKEN,
    'host-runtime-snapshot-export': TOKEN,
    'governance-status-bundle-export': 'short',
    'random-consumer': `${TOKEN}-3`,
  }).reasons, [
    'consumers "live-runtime-contract-check" and "host-runtime-snapshot-export" share one token',
    'token of consumer "governance-status-bundle-export" must be a bearer token68 of at least 22 characters',
    'entry 4 names a consumer that ts01_consumer_matrix does not list',
  ]);
  assert.deepEqual(checkConsumerTokens(['x']).reasons, ['the file must hold a JSON object of consumer id -> token']);
});

test('semantic-api exits 2 at start when the tokens file names a consumer the matrix does not list, never echoing a token', (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'tokens.json');
  writeFileSync(file, JSON.stringify({ 'live-runtime-contract-check': TOKEN, 'shadow-consumer': 'shadow-token-0123456789abcdef' }));
  const run = spawnSync(process.execPath, [MAIN], {
    env: { PATH: process.env['PATH'] ?? '', ...compileCache(), AIRLOCK_DATA_DIR: dir, SEMANTIC_OPERATOR_TOKEN: OP, SEMANTIC_CONSUMER_TOKENS_FILE: file, SEMANTIC_LISTEN: '127.0.0.1:0' },
    encoding: 'utf8',
    timeout: 20_000,
  });
  assert.equal(run.status, 2);
  assert.equal(run.stdout, '');
  assert.match(run.stderr, /SEMANTIC_CONSUMER_TOKENS_FILE: entry \d+ names a consumer that ts01_consumer_matrix does not list/);
  assert.ok(!run.stderr.includes('shadow-token') && !run.stderr.includes(TOKEN));
});

test('loadWorkerConfig() bounds the batch to 1..1000', () => {
  assert.equal(loadWorkerConfig({}).batchSize, 100);
  assert.equal(loadWorkerConfig({ SEMANTIC_WORKER_BATCH: '1000' }).batchSize, 1000);
  assert.throws(() => loadWorkerConfig({ SEMANTIC_WORKER_BATCH: '1001' }), /Invalid configuration/);
  assert.throws(() => loadWorkerConfig({ SEMANTIC_WORKER_INTERVAL_MS: '10' }), /Invalid configuration/);
});

test('loadApiConfig() refuses an operator token shorter than the consumer-token minimum, never quoting it', () => {
  assert.throws(() => loadApiConfig({ SEMANTIC_OPERATOR_TOKEN: 'short-op-token' }), (error: Error & { details: string[] }) => {
    assert.deepEqual(error.details, ['SEMANTIC_OPERATOR_TOKEN is shorter than 22 characters (the consumer-token minimum): generate a longer one']);
    return true;
  });
  assert.throws(() => loadApiConfig({ SEMANTIC_OPERATOR_TOKEN: `${OP},tiny` }), /config/i, 'every rotated value counts');
});

test('semantic-api exits 2 at start when the operator token equals a consumer token, or is short', (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'tokens.json');
  writeFileSync(file, JSON.stringify({ 'live-runtime-contract-check': TOKEN }));
  const start = (operator: string) => spawnSync(process.execPath, [MAIN], {
    env: { PATH: process.env['PATH'] ?? '', ...compileCache(), AIRLOCK_DATA_DIR: dir, SEMANTIC_OPERATOR_TOKEN: operator, SEMANTIC_CONSUMER_TOKENS_FILE: file, SEMANTIC_LISTEN: '127.0.0.1:0' },
    encoding: 'utf8',
    timeout: 20_000,
  });
  const same = start(TOKEN);
  assert.equal(same.status, 2);
  assert.equal(same.stdout, '');
  assert.match(same.stderr, /SEMANTIC_OPERATOR_TOKEN equals the token of consumer "live-runtime-contract-check"/);
  assert.ok(!same.stderr.includes(TOKEN));
  const short = start('op');
  assert.equal(short.status, 2);
  assert.match(short.stderr, /SEMANTIC_OPERATOR_TOKEN is shorter than 22 characters/);
});

test('semantic-api --bogus prints one line and exits 2, no stack', () => {
  const run = spawnSync(process.execPath, [MAIN, '--bogus'], { env: { PATH: process.env['PATH'] ?? '', ...compileCache(), SEMANTIC_OPERATOR_TOKEN: OP }, encoding: 'utf8', timeout: 20_000 });
  assert.equal(run.status, 2);
  assert.equal(run.stdout, '');
  assert.equal(run.stderr, "Cannot start: Unknown option '--bogus': run with --help for usage\n");
});
