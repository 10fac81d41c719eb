// install.sh on a small hand-made release (no 150 MB binary): profiles, users, idempotence.
// test/delivery/release.test.ts runs it on the real archive.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateUnits, PLACEHOLDERS } from '../../delivery/units.ts';

const work = mkdtempSync(join(tmpdir(), 'airlock-install-'));
process.once('exit', () => rmSync(work, { recursive: true, force: true }));
const REL = join(work, 'release');
const stack = {
  services: [{
    service: 'demo',
    executables: [{ name: 'demo-api', role: 'api', listeners: [{ name: 'main', port: 18990, env: 'DEMO_LISTEN' }] }],
    healthchecks: [{ name: 'api', probe: 'http://127.0.0.1:18990/healthz', intervals: { default: 30, low_cpu: 120 } }],
  }],
};
const files: Record<string, string> = {
  'bin/airlock': '#!/bin/sh\necho airlock "$@"\n',
  'dist/bin/demo-api.mjs': '// demo\n',
  'dist/bin/airlock.mjs': '// all\n',
  'configs/stack-contract.json': JSON.stringify(stack),
};
for (const unit of generateUnits(stack, { services: [{ service: 'demo', dependencies: [] }] }, PLACEHOLDERS)) files[`systemd/${unit.file}`] = unit.text;
for (const [path, text] of Object.entries(files)) {
  mkdirSync(join(REL, path, '..'), { recursive: true });
  writeFileSync(join(REL, path), text);
}
chmodSync(join(REL, 'bin', 'airlock'), 0o755);
copyFileSync(join(import.meta.dirname, '..', '..', 'delivery', 'install.sh'), join(REL, 'install.sh'));
writeFileSync(join(REL, 'SHA256SUMS'), execFileSync('bash', ['-c', 'find . -type f ! -name SHA256SUMS -printf "%P\\n" | LC_ALL=C sort | xargs sha256sum'], { cwd: REL, encoding: 'utf8' }));
const stubs = join(work, 'stubs');
mkdirSync(stubs);
writeFileSync(join(stubs, 'useradd'), `#!/bin/sh\nfor last; do :; done\necho "$last" >> ${stubs}/useradd.log\n`);
writeFileSync(join(stubs, 'getent'), '#!/bin/sh\nexit 2\n');
for (const stub of ['useradd', 'getent']) chmodSync(join(stubs, stub), 0o755);

function install(args: string[]) {
  const result = spawnSync('bash', [join(REL, 'install.sh'), ...args], { encoding: 'utf8', env: { PATH: `${stubs}:${process.env['PATH'] ?? ''}` } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

test('--profile picks the timer interval the manifest names for it; the default elsewhere', () => {
  const base = (name: string) => ['--prefix', join(work, name), '--data-dir', join(work, name, 'data'), '--unit-dir', join(work, name, 'units'), '--no-users'];
  assert.equal(install([...base('low'), '--profile', 'low_cpu']).code, 0);
  assert.match(readFileSync(join(work, 'low', 'units', 'airlock-demo-health-api.timer'), 'utf8'), /^OnUnitActiveSec=120s$/m);
  assert.equal(install([...base('prod'), '--profile', 'production']).code, 0);
  assert.match(readFileSync(join(work, 'prod', 'units', 'airlock-demo-health-api.timer'), 'utf8'), /^OnUnitActiveSec=30s$/m, 'no production interval: the default');
  assert.equal(install([...base('bad'), '--profile', 'x;rm']).code, 2);
});

test('a user per service, created once; a second run reports nothing changed', () => {
  const args = ['--prefix', join(work, 'opt'), '--data-dir', join(work, 'data'), '--unit-dir', join(work, 'units')];
  const first = install(args);
  assert.equal(first.code, 0, first.stderr);
  assert.deepEqual(readFileSync(join(stubs, 'useradd.log'), 'utf8').trim().split('\n'), ['airlock-demo']);
  assert.match(readFileSync(join(work, 'units', 'airlock-demo-api.service'), 'utf8'), new RegExp(`^ExecStart=${work}/opt/bin/airlock demo-api$`, 'm'));
  assert.equal(execFileSync(join(work, 'opt', 'bin', 'demo-api'), ['x'], { encoding: 'utf8' }), 'airlock x\n', 'the link runs bin/airlock');
  writeFileSync(join(stubs, 'getent'), '#!/bin/sh\necho "$2:x:999:999::/nonexistent:/usr/sbin/nologin"\n');
  const second = install(args);
  assert.match(second.stdout, /^install\.sh: 0 changed, \d+ unchanged/);
});

test('--uninstall removes its files and the folders they leave empty, nothing else', () => {
  const prefix = join(work, 'opt');
  mkdirSync(join(prefix, 'operator-empty'), { recursive: true });
  mkdirSync(join(prefix, 'etc'), { recursive: true });
  writeFileSync(join(prefix, 'etc', 'airlock.env'), 'DEMO_TOKEN=x\n');
  const result = install(['--prefix', prefix, '--data-dir', join(work, 'data'), '--unit-dir', join(work, 'units'), '--uninstall']);
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(execFileSync('find', [prefix, '-mindepth', '1', '-printf', '%P\\n'], { encoding: 'utf8' }).trim().split('\n').sort(), ['etc', 'etc/airlock.env', 'operator-empty']);
  assert.deepEqual(execFileSync('find', [join(work, 'data'), '-mindepth', '1', '-printf', '%P\\n'], { encoding: 'utf8' }).trim().split('\n').sort(), ['demo']);
  assert.equal(install(['--prefix', prefix, '--uninstall']).code, 2, 'nothing recorded: nothing to uninstall');
});
