// One release (bundles, the 150 MB standalone binary, the archive) shared by every test here:
// making it is the slow part. Byte-for-byte reproducibility of two whole releases is checked by
// .ci/run; test/delivery/tar.test.ts checks the writer itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { createHash } from 'node:crypto';
import { listEntries } from '../../scripts/_bundle-entries.ts';
import { release } from '../../delivery/release.ts';
import { readPin } from '../../delivery/toolchain.ts';
import { exposure, hasSystemdAnalyze, INSTALL_HINT, verifyUnits } from './systemd.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const work = mkdtempSync(join(tmpdir(), 'airlock-release-'));
process.once('exit', () => rmSync(work, { recursive: true, force: true }));
const made = await release({ outdir: join(work, 'dist') });
const unpacked = join(work, 'unpacked');
mkdirSync(unpacked);
execFileSync('tar', ['-xzf', made.archive, '-C', unpacked]);
const [top] = readdirSync(unpacked);
const REL = join(unpacked, top as string);
const COMMANDS = listEntries(ROOT).map((e) => e.name);

// useradd and getent stand-ins: the test records the users install.sh creates instead of adding them to this host.
const stubs = join(work, 'stubs');
mkdirSync(stubs);
writeFileSync(join(stubs, 'useradd'), `#!/bin/sh\nfor last; do :; done\necho "$*" >> ${stubs}/useradd.log\ntouch ${stubs}/user-$last\n`);
writeFileSync(join(stubs, 'getent'), `#!/bin/sh\n[ -e ${stubs}/user-$2 ] && echo "$2:x:999:999::/nonexistent:/usr/sbin/nologin"\n`);
writeFileSync(join(stubs, 'systemctl'), `#!/bin/sh\necho "$*" >> ${stubs}/systemctl.log\n`);
for (const stub of ['useradd', 'getent', 'systemctl']) chmodSync(join(stubs, stub), 0o755);

function install(args: string[]) {
  const result = spawnSync('bash', [join(REL, 'install.sh'), ...args], { encoding: 'utf8', env: { PATH: `${stubs}:${process.env['PATH'] ?? ''}` } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

test('the archive is named for version and platform and holds binary, bundles, contracts, configs, units, install.sh, SBOM, sums', () => {
  assert.equal(basename(made.archive), `airlock-${made.version}-linux-${process.arch}.tar.gz`);
  assert.equal(top, `airlock-${made.version}-linux-${process.arch}`);
  for (const path of ['bin/airlock', 'install.sh', 'SHA256SUMS', 'sbom.cdx.json', 'configs/stack-contract.json', 'governance-manifest.json', 'contracts/qa_feature_registry_v1.json', 'dist/package-metadata.json', 'dist/bin/airlock.mjs', 'README.md']) {
    assert.ok(existsSync(join(REL, path)), path);
  }
  for (const name of COMMANDS) assert.ok(existsSync(join(REL, 'dist', 'bin', `${name}.mjs`)), `${name}.mjs`);
  assert.ok(readdirSync(join(REL, 'systemd')).includes('airlock-semantic-api.service'));
  assert.equal(statSync(join(REL, 'bin', 'airlock')).mode & 0o777, 0o755);
  const listing = execFileSync('tar', ['-tvzf', made.archive, '--numeric-owner'], { encoding: 'utf8', maxBuffer: 1 << 24 }).trim().split('\n');
  assert.ok(listing.every((line) => / 0\/0 /.test(line)), 'every entry owned by 0/0');
  assert.equal(new Set(listing.map((line) => line.split(/ +/).slice(3, 5).join(' '))).size, 1, 'one mtime for every entry');
  const sums = readFileSync(join(REL, 'SHA256SUMS'), 'utf8').trim().split('\n').map((l) => l.slice(66));
  const files = execFileSync('find', ['.', '-type', 'f', '!', '-name', 'SHA256SUMS', '-printf', '%P\n'], { cwd: REL, encoding: 'utf8' }).trim().split('\n').sort();
  assert.deepEqual([...sums].sort(), files, 'SHA256SUMS lists every file');
});

test('the archive\'s SHA-256 is returned and written beside it as <archive>.sha256', () => {
  const digest = createHash('sha256').update(readFileSync(made.archive)).digest('hex');
  assert.equal(made.sha256, digest);
  assert.equal(readFileSync(`${made.archive}.sha256`, 'utf8'), `${digest}  ${basename(made.archive)}\n`);
  execFileSync('sha256sum', ['-c', `${basename(made.archive)}.sha256`], { cwd: dirname(made.archive), stdio: 'ignore' });
});

test('the SBOM is CycloneDX 1.5 naming the embedded Node and every bundled source, with no run-time dependency', () => {
  const sbom = JSON.parse(readFileSync(join(REL, 'sbom.cdx.json'), 'utf8')) as {
    bomFormat: string; specVersion: string; serialNumber: string;
    metadata: { component: { name: string; version: string }; properties: { name: string; value: string }[] };
    components: { type: string; name: string; version?: string; hashes?: { content: string }[] }[];
  };
  assert.equal(sbom.bomFormat, 'CycloneDX');
  assert.equal(sbom.specVersion, '1.5');
  assert.match(sbom.serialNumber, /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.deepEqual(sbom.metadata.component, { ...sbom.metadata.component, name: 'airlock', version: made.version });
  const node = sbom.components.find((c) => c.name === 'node');
  assert.equal(node?.version, process.versions.node);
  assert.equal(node?.hashes?.[0]?.content, readPin().binaries[`${process.platform}-${process.arch}`]);
  const sources = sbom.components.filter((c) => c.type === 'file').map((c) => c.name);
  for (const expected of ['src/kernel/index.ts', 'src/semantic/main.ts', 'scripts/verify_evidence_chain.ts']) assert.ok(sources.includes(expected), expected);
  assert.ok(sbom.components.filter((c) => c.type === 'file').every((c) => /^[0-9a-f]{64}$/.test(c.hashes?.[0]?.content ?? '')));
  assert.match(sbom.metadata.properties.find((p) => p.name === 'airlock:runtime-dependencies')?.value ?? '', /^none/);
});

test('unpacked into an empty directory, airlock runs with no Node and no PATH: --help, a verifier, a link', () => {
  const env = { PATH: '/nonexistent' };
  const help = spawnSync(join(REL, 'bin', 'airlock'), ['--help'], { encoding: 'utf8', env });
  assert.equal(help.status, 0, help.stderr);
  for (const name of COMMANDS) assert.match(help.stdout, new RegExp(`^  ${name} +\\S`, 'm'), `${name} listed with a summary`);
  const verifier = spawnSync(join(REL, 'bin', 'airlock'), ['check_contract_schemas', '--json'], { encoding: 'utf8', env, cwd: REL });
  assert.equal(verifier.status, 0, verifier.stderr);
  assert.equal((JSON.parse(verifier.stdout) as { ok: boolean }).ok, true);
  assert.equal(verifier.stderr, '');
});

test('install.sh verifies, installs, creates a user per service and writes units; a second run changes nothing', () => {
  const prefix = join(work, 'opt');
  const data = join(work, 'data');
  const units = join(work, 'units');
  const args = ['--prefix', prefix, '--data-dir', data, '--unit-dir', units];
  const first = install(args);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /^install\.sh: \d+ changed, 0 unchanged under /);
  const users = readFileSync(join(stubs, 'useradd.log'), 'utf8').trim().split('\n').map((l) => l.split(' ').at(-1));
  const services = (JSON.parse(readFileSync(join(REL, 'configs', 'stack-contract.json'), 'utf8')).services as { service: string }[]).map((s) => `airlock-${s.service}`);
  assert.deepEqual(users, services);
  assert.equal(spawnSync(join(prefix, 'bin', 'airlock'), ['--help'], { env: { PATH: '/nonexistent' } }).status, 0);
  assert.equal(readlinkSync(join(prefix, 'bin', 'semantic-api')), 'airlock');
  const link = spawnSync(join(prefix, 'bin', 'verify_isolation_domain_walls'), ['--help'], { encoding: 'utf8', env: { PATH: '/nonexistent' } });
  assert.match(link.stdout, /^Usage: verify_isolation_domain_walls/);
  const unit = readFileSync(join(units, 'airlock-semantic-api.service'), 'utf8');
  assert.match(unit, new RegExp(`^ExecStart=${prefix}/bin/airlock semantic-api$`, 'm'));
  assert.match(unit, new RegExp(`^ReadWritePaths=${data}/semantic$`, 'm'));
  assert.doesNotMatch(unit, /@AIRLOCK_/);
  assert.ok(statSync(join(data, 'semantic')).isDirectory());

  const before = execFileSync('find', [prefix, units, '-printf', '%p %s %T@ %m\n'], { encoding: 'utf8' });
  const second = install(args);
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stdout, /^install\.sh: 0 changed, \d+ unchanged/);
  const after = execFileSync('find', [prefix, units, '-printf', '%p %s %T@ %m\n'], { encoding: 'utf8' });
  assert.deepEqual(after.split('\n').filter((line) => !before.includes(line)), [], 'not a file or folder touched');
});

test('install.sh --enable reloads systemd and enables every service unit and healthcheck timer, changing no file', () => {
  const prefix = join(work, 'opt');
  const result = install(['--prefix', prefix, '--data-dir', join(work, 'data'), '--unit-dir', join(work, 'units'), '--enable']);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /^install\.sh: 0 changed/);
  const calls = readFileSync(join(stubs, 'systemctl.log'), 'utf8').trim().split('\n');
  assert.equal(calls[0], 'daemon-reload');
  // A healthcheck's oneshot service is started by its timer: the timer is enabled, not the oneshot.
  const files = readdirSync(join(REL, 'systemd'));
  const enabled = files.filter((f) => f.endsWith('.timer') || (f.endsWith('.service') && !files.includes(f.replace(/\.service$/, '.timer'))));
  assert.deepEqual(calls.slice(1).sort(), enabled.map((f) => `enable --now ${f}`).sort());
});

test('the installed units pass systemd-analyze verify and rate 2.0 or lower', () => {
  assert.ok(hasSystemdAnalyze(), INSTALL_HINT);
  const units = join(work, 'units');
  const files = readdirSync(units).map((f) => join(units, f));
  const verified = verifyUnits(files);
  assert.equal(verified.code, 0, verified.output);
  for (const file of files.filter((f) => f.endsWith('.service'))) {
    const { score, output } = exposure(file);
    assert.ok(score <= 2.0, `${file} rates ${score}:\n${output}`);
  }
});

test('install.sh --uninstall removes what it wrote and keeps the data directory', () => {
  const prefix = join(work, 'opt');
  const data = join(work, 'data');
  writeFileSync(join(data, 'semantic', 'semantic.sqlite'), 'kept');
  const result = install(['--prefix', prefix, '--data-dir', data, '--unit-dir', join(work, 'units'), '--uninstall']);
  assert.equal(result.code, 0, result.stderr);
  assert.ok(!existsSync(join(prefix, 'bin')), 'the binary and links are gone');
  assert.deepEqual(readdirSync(join(work, 'units')), []);
  assert.equal(readFileSync(join(data, 'semantic', 'semantic.sqlite'), 'utf8'), 'kept');
  assert.match(result.stdout, /kept .*data and the service users/);
});

test('one flipped byte anywhere, or a file SHA256SUMS does not list: exit 1 and nothing installed', () => {
  const flip = (path: string, at: number) => {
    const bytes = readFileSync(path);
    bytes[at] = (bytes[at] as number) ^ 0x01;
    writeFileSync(path, bytes);
  };
  const binary = join(REL, 'bin', 'airlock');
  for (const [path, at] of [[binary, statSync(binary).size - 4096], [join(REL, 'contracts', 'qa_feature_registry_v1.json'), 10], [join(REL, 'SHA256SUMS'), 3]] as const) {
    flip(path, at);
    const prefix = join(work, `tampered-${basename(path)}`);
    const result = install(['--prefix', prefix, '--data-dir', join(prefix, 'data'), '--unit-dir', join(prefix, 'units')]);
    flip(path, at);
    assert.equal(result.code, 1, `${path}: ${result.stderr}`);
    assert.match(result.stderr, /SHA256SUMS does not match .*nothing installed/);
    assert.ok(!existsSync(prefix), `${path}: nothing written`);
  }
  writeFileSync(join(REL, 'bin', 'extra'), 'rides along');
  const prefix = join(work, 'tampered-extra');
  const extra = install(['--prefix', prefix, '--unit-dir', join(prefix, 'units'), '--data-dir', join(prefix, 'data')]);
  rmSync(join(REL, 'bin', 'extra'));
  assert.equal(extra.code, 1);
  assert.match(extra.stderr, /differ from SHA256SUMS: bin\/extra/);
  assert.ok(!existsSync(prefix));
});

test('install.sh refuses relative or odd paths and unknown arguments with exit 2', () => {
  for (const args of [['--prefix', 'relative'], ['--prefix', '/opt/air lock'], ['--bogus'], ['--prefix']]) {
    const result = install(args);
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, /^install\.sh: /);
  }
});
