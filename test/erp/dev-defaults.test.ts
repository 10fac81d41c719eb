import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { loadErpConfig } from '../../src/erp/config.ts';
import { erpDevDefaults } from '../../src/erp/dev-defaults.ts';
import { createErpService } from '../../src/erp/service.ts';

test('erpDevDefaults() generates the secrets once, keeps other services\' entries, mode 0600, no secret in a curl line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-erp-dev-'));
  try {
    writeFileSync(join(dir, 'dev-secrets.json'), JSON.stringify({ semantic: { operator_token: 'theirs' } }));
    const first = erpDevDefaults(dir);
    const second = erpDevDefaults(dir);
    assert.deepEqual({ ...second.env, ERP_USERS_FILE: '' }, { ...first.env, ERP_USERS_FILE: '' });
    const secrets = JSON.parse(readFileSync(join(dir, 'dev-secrets.json'), 'utf8'));
    assert.deepEqual(secrets.semantic, { operator_token: 'theirs' });
    assert.equal(statSync(join(dir, 'dev-secrets.json')).mode & 0o777, 0o600);
    for (const value of Object.values<string>(secrets.erp)) assert.ok(first.curl.every((line) => !line.includes(value)));
    assert.ok(!readFileSync(first.env['ERP_USERS_FILE']!, 'utf8').includes(secrets.erp.password));
    assert.doesNotThrow(() => loadErpConfig({ ...first.env, AIRLOCK_DATA_DIR: dir }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('erpDevDefaults() curl lines work against a service started with its environment', async (t) => {
  if (!existsSync('/usr/bin/curl') && !existsSync('/bin/curl')) return t.skip('curl is not installed');
  const dir = mkdtempSync(join(tmpdir(), 'airlock-erp-dev-'));
  // base64url secrets may begin with "-": the signing lines must not let node read one as an option.
  writeFileSync(join(dir, 'dev-secrets.json'), JSON.stringify({ erp: { erp_api_shared_secret: '-dash-first-secret-0123456789', automation_secret: '-Another-dash-secret-abcdef' } }), { mode: 0o600 });
  const { env, curl } = erpDevDefaults(dir);
  const service = await createErpService(loadErpConfig({ ...env, AIRLOCK_DATA_DIR: dir, ERP_LISTEN: '127.0.0.1:0' }));
  await service.listen();
  try {
    for (const line of curl) {
      const command = line.replaceAll('http://127.0.0.1:18030', service.url()).replaceAll('${TMPDIR:-/tmp}', dir);
      // Async: the service runs in this process. The lines call node: put this Node first on PATH.
      const { stdout } = await promisify(execFile)('bash', ['-c', `${command} -o ${dir}/out.json -w '%{http_code}'`], { encoding: 'utf8', timeout: 60_000, env: { PATH: `${dirname(process.execPath)}:${process.env['PATH'] ?? ''}` } });
      const body = readFileSync(join(dir, 'out.json'), 'utf8');
      // npm start runs no governance for the ERP to hand off to: the support inbound fails closed.
      if (line.includes('support_desk_inbound')) {
        assert.equal(stdout, '503', body);
        assert.equal(JSON.parse(body).message.reason, 'governance_support_handoff_failed');
        continue;
      }
      assert.equal(stdout, '200', `${line}\n-> ${stdout} ${body}`);
      if (line.includes('workboard_access_fact')) assert.equal(JSON.parse(body).message.workboard_login_allowed, true, body);
      if (line.includes('post_supplier_intake')) assert.equal(JSON.parse(body).message.status, 'posted', body);
      if (line.includes('get_logged_user')) assert.equal(JSON.parse(body).message, 'dev@airlock.local');
    }
  } finally {
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
