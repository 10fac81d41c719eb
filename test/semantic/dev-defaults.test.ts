import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadApiConfig } from '../../src/semantic/config.ts';
import { DEV_CASE_REF, semanticDevDefaults } from '../../src/semantic/dev-defaults.ts';
import { createSemanticService } from '../../src/semantic/service.ts';
import { createLogger } from '../../src/kernel/index.ts';
import { tempDir } from './fixtures/semantic-fixtures.ts';

test('semanticDevDefaults() writes private secrets, a tokens file and a sample artifact, keeping other services\' secrets', (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'dev-secrets.json'), JSON.stringify({ governance: { token: 'kept' } }), { mode: 0o644 });
  const first = semanticDevDefaults(dir);
  const secrets = JSON.parse(readFileSync(join(dir, 'dev-secrets.json'), 'utf8'));
  assert.equal(secrets.governance.token, 'kept');
  assert.equal(statSync(join(dir, 'dev-secrets.json')).mode & 0o777, 0o600);
  assert.equal(statSync(join(dir, 'semantic-consumer-tokens.json')).mode & 0o777, 0o600);
  assert.deepEqual(Object.keys(secrets.semantic.consumer_tokens), ['live-runtime-contract-check', 'host-runtime-snapshot-export', 'governance-status-bundle-export']);
  assert.equal(first.env['SEMANTIC_OPERATOR_TOKEN'], secrets.semantic.operator_token);
  assert.equal(first.env['SEMANTIC_PROJECTION_CASE_ALLOWLIST'], DEV_CASE_REF);
  assert.equal(first.env['SEMANTIC_LISTEN'], '127.0.0.1:18020');
  assert.ok(existsSync(first.env['SEMANTIC_RUNTIME_OWNER_ARTIFACT']!));
  const again = semanticDevDefaults(dir);
  assert.deepEqual(again, first, 'a second start keeps the tokens');
  for (const line of first.curl) assert.ok(!line.includes(secrets.semantic.operator_token) && !Object.values(secrets.semantic.consumer_tokens).some((v) => line.includes(String(v))), 'no token printed');
  const config = loadApiConfig({ ...first.env, AIRLOCK_DATA_DIR: dir });
  assert.equal(config.consumerTokens.length, 3);
});

test('semanticDevDefaults() curl lines work against the service started with its environment', async (t) => {
  const dir = tempDir(t);
  const { env } = semanticDevDefaults(dir, { listen: '127.0.0.1:0' });
  const service = createSemanticService(loadApiConfig({ ...env, AIRLOCK_DATA_DIR: dir }), { log: createLogger({ write: () => {} }) });
  await service.listen();
  t.after(() => service.close());
  const { curl } = semanticDevDefaults(dir, { listen: new URL(service.url()).host });
  assert.equal(curl.length, 6);
  for (const line of curl) {
    // Each line runs in a shell, as an operator pastes it (asynchronously: the service shares this
    // process); `-w` adds the status on a last line.
    const { stdout: output } = await promisify(execFile)('sh', ['-c', `${line} -w '\\n%{http_code}'`], { encoding: 'utf8', timeout: 20_000, env: { ...process.env, PATH: `${join(process.execPath, '..')}:${process.env['PATH']}` } });
    const status = output.trim().split('\n').at(-1);
    assert.equal(status, '200', `${line}\n${output}`);
  }
});
