// install.sh on a small hand-made release (no 150 MB binary): profiles, users, idempotence.
// test/delivery/release.test.ts runs it on the real archive.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateUnits, PLACEHOLDERS } from '../../delivery/units.ts';
import { exposure, hasSystemdAnalyze, verifyUnits } from './systemd.ts';

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
for (const unit of generateUnits(stack, { services: [{ service: 'demo', dependencies: [{ kind: 'http' }] }] }, PLACEHOLDERS)) files[`systemd/${unit.file}`] = unit.text;
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

test('--allow-ip lets a service with network peers reach those addresses besides loopback, in the order given', (t) => {
  const base = ['--prefix', join(work, 'peers'), '--data-dir', join(work, 'peers', 'data'), '--unit-dir', join(work, 'peers', 'units'), '--no-users'];
  const result = install([...base, '--allow-ip', '10.1.2.3', '--allow-ip', 'fd00::/8']);
  assert.equal(result.code, 0, result.stderr);
  const unit = readFileSync(join(work, 'peers', 'units', 'airlock-demo-api.service'), 'utf8');
  assert.match(unit, /^IPAddressAllow=localhost\nIPAddressDeny=any\n# Peers off loopback: .*\nIPAddressAllow=10\.1\.2\.3\nIPAddressAllow=fd00::\/8\n/m);
  const probe = readFileSync(join(work, 'peers', 'units', 'airlock-demo-health-api.service'), 'utf8');
  assert.doesNotMatch(probe, /IPAddressAllow=10/, 'a healthcheck probes loopback only');
  assert.match(install([...base, '--allow-ip', '10.1.2.3', '--allow-ip', 'fd00::/8']).stdout, /^install\.sh: 0 changed/, 'the same addresses again: nothing changes');
  for (const bad of ['any', 'example.org', '10.0.0.1;rm -rf /', '10.0.0.1\nUser=root', '', '--no-users']) {
    const refused = install([...base, '--allow-ip', bad]);
    assert.equal(refused.code, 2, `${JSON.stringify(bad)}: ${refused.stderr}`);
  }
  if (!hasSystemdAnalyze()) return t.skip('systemd-analyze is not on PATH (bash scripts/install_systemd_analyze.sh)');
  const file = join(work, 'peers', 'analyze.service');
  writeFileSync(file, unit.replace(/^ExecStart=\S+/m, 'ExecStart=/bin/true'));
  const verified = verifyUnits([file]);
  assert.equal(verified.output, '', 'systemd takes every allow line');
  const { score, output } = exposure(file);
  assert.ok(score <= 2.0, `rates ${score}:\n${output}`);
});

test('a symbolic link SHA256SUMS does not list is refused like any unlisted file: exit 1, nothing installed, no command link made from it', (t) => {
  const link = join(REL, 'dist', 'bin', 'evil.mjs');
  symlinkSync('/etc/passwd', link);
  t.after(() => rmSync(link));
  const prefix = join(work, 'symlinked');
  const result = install(['--prefix', prefix, '--data-dir', join(prefix, 'data'), '--unit-dir', join(prefix, 'units'), '--no-users']);
  assert.equal(result.code, 1, result.stdout);
  assert.match(result.stderr, /differ from SHA256SUMS: dist\/bin\/evil\.mjs/);
  assert.ok(!existsSync(prefix), 'nothing written');
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
