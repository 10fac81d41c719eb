import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { runCommand } from '../../src/kernel/index.ts';
import { createMaterializeCommand } from '../../scripts/_materialize/command.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 'test@example.org', GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 'test@example.org', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };

const SOURCE_V1 = { version: 1, admissions: [{ sender: 'ops@example.org', scopes: ['mail_management.read'] }, { sender: 'example.com', scopes: ['mail_management.write', 'mail_management.read'] }] };
const SOURCE_V2 = { version: 1, admissions: [{ sender: 'ops@example.org', scopes: ['mail_management.read', 'mail_management.revoke'] }] };
const SOURCE_SIDE = { version: 1, admissions: [{ sender: 'intruder.example', scopes: ['mail_management.write'] }] };

interface Fixture {
  dir: string;
  repo: string;
  dataDir: string;
  /** Commits: empty (no source), v1 and v2 and invalid on main; side on a branch. */
  commits: { empty: string; v1: string; v2: string; invalid: string; side: string; tree: string };
}

function git(repo: string, ...args: string[]): string {
  return execFileSync('git', ['-C', repo, ...args], { env: GIT_ENV, encoding: 'utf8' }).trim();
}

function commitFile(repo: string, path: string, text: string, message: string): string {
  mkdirSync(join(repo, path, '..'), { recursive: true });
  writeFileSync(join(repo, path), text);
  git(repo, 'add', path);
  git(repo, 'commit', '-q', '-m', message);
  return git(repo, 'rev-parse', 'HEAD');
}

function createFixture(): Fixture {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-materialize-'));
  const repo = join(dir, 'repo');
  mkdirSync(repo);
  git(repo, 'init', '-q', '-b', 'main');
  const empty = commitFile(repo, 'README.md', 'admissions repo\n', 'readme');
  const v1 = commitFile(repo, 'configs/mail-admission.json', JSON.stringify(SOURCE_V1), 'v1');
  git(repo, 'checkout', '-q', '-b', 'side');
  const side = commitFile(repo, 'configs/mail-admission.json', JSON.stringify(SOURCE_SIDE), 'side');
  git(repo, 'checkout', '-q', 'main');
  const invalid = commitFile(repo, 'configs/mail-admission.json', '{"version":2,"admissions":[{"sender":"Bad Sender"}]}', 'invalid');
  const v2 = commitFile(repo, 'configs/mail-admission.json', JSON.stringify(SOURCE_V2), 'v2');
  const tree = git(repo, 'rev-parse', `${v2}^{tree}`);
  return { dir, repo, dataDir: join(dir, 'var'), commits: { empty, v1, v2, invalid, side, tree } };
}

async function materialize(fixture: Fixture, argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io = { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => err.push(t) }, env: { AIRLOCK_DATA_DIR: fixture.dataDir } };
  const code = await runCommand(createMaterializeCommand(), ['--repo', fixture.repo, ...argv], io);
  return { code, out: out.join(''), err: err.join('') };
}

function outputFile(fixture: Fixture): string {
  return join(fixture.dataDir, 'mail-admission.json');
}

function expectedText(source: unknown, commit: string, admissions: unknown[]): string {
  const sha256 = createHash('sha256').update(JSON.stringify(source)).digest('hex');
  return `${JSON.stringify({ format: 'airlock.mail_admission.v1', source: { commit, path: 'configs/mail-admission.json', sha256 }, admissions }, null, 2)}\n`;
}

const V1_ADMISSIONS = [
  { sender: 'example.com', kind: 'domain', scopes: ['mail_management.read', 'mail_management.write'] },
  { sender: 'ops@example.org', kind: 'mailbox', scopes: ['mail_management.read'] },
];

test('materialize_mail_admission previews by default: prints the diff and writes nothing', async (t) => {
  const fixture = createFixture();
  t.after(() => rmSync(fixture.dir, { recursive: true, force: true }));
  const { code, out, err } = await materialize(fixture, ['--target', fixture.commits.v1]);
  assert.equal(code, 0, err);
  assert.equal(existsSync(fixture.dataDir), false, 'nothing created');
  const lines = out.split('\n');
  assert.equal(lines[0], `target ${fixture.commits.v1} is on main of ${fixture.repo}; configs/mail-admission.json admits 2 senders`);
  assert.equal(lines[1], `preview: ${outputFile(fixture)} would be created:`);
  const expected = expectedText(SOURCE_V1, fixture.commits.v1, V1_ADMISSIONS).split('\n').slice(0, -1);
  assert.deepEqual(lines.slice(2, 3 + expected.length), [`@@ -0,0 +1,${expected.length} @@`, ...expected.map((l) => `+${l}`)]);
  assert.equal(lines.at(-2), 'nothing written: run again with --apply to write it');
});

test('materialize_mail_admission --apply writes the file, then previews and applies as up to date', async (t) => {
  const fixture = createFixture();
  t.after(() => rmSync(fixture.dir, { recursive: true, force: true }));
  const applied = await materialize(fixture, ['--target', fixture.commits.v1, '--apply']);
  assert.equal(applied.code, 0, applied.err);
  assert.match(applied.out, /\nwrote .*mail-admission\.json \(new file\)\n$/);
  assert.equal(readFileSync(outputFile(fixture), 'utf8'), expectedText(SOURCE_V1, fixture.commits.v1, V1_ADMISSIONS));
  assert.deepEqual(readdirSync(fixture.dataDir), ['mail-admission.json'], 'no temporary file left');
  const again = await materialize(fixture, ['--target', fixture.commits.v1, '--json']);
  assert.equal(again.code, 0);
  assert.deepEqual(JSON.parse(again.out), {
    ok: true, mode: 'preview', repo: fixture.repo, target: fixture.commits.v1, source: 'configs/mail-admission.json',
    output: outputFile(fixture), admissions: 2, changed: false, written: false, diff: [],
  });
  const reapplied = await materialize(fixture, ['--target', fixture.commits.v1, '--apply']);
  assert.match(reapplied.out, /is up to date: nothing to write\n$/);
});

test('materialize_mail_admission previews a later commit as the exact change, and --apply makes it', async (t) => {
  const fixture = createFixture();
  t.after(() => rmSync(fixture.dir, { recursive: true, force: true }));
  const output = join(fixture.dir, 'elsewhere', 'admission.json');
  await materialize(fixture, ['--target', fixture.commits.v1, '--apply', '--output', output]);
  const before = readFileSync(output, 'utf8');
  const preview = await materialize(fixture, ['--target', fixture.commits.v2, '--output', output, '--json']);
  assert.equal(preview.code, 0);
  const result = JSON.parse(preview.out);
  assert.equal(result.changed, true);
  assert.equal(result.written, false);
  assert.ok(result.diff.includes(`-    "commit": "${fixture.commits.v1}",`));
  assert.ok(result.diff.includes(`+    "commit": "${fixture.commits.v2}",`));
  assert.ok(result.diff.includes('-      "sender": "example.com",'));
  assert.ok(result.diff.includes('+        "mail_management.revoke"'));
  assert.equal(readFileSync(output, 'utf8'), before, 'preview changed nothing');
  const applied = await materialize(fixture, ['--target', fixture.commits.v2, '--output', output, '--apply', '--json']);
  assert.equal(JSON.parse(applied.out).written, true);
  assert.equal(readFileSync(output, 'utf8'), expectedText(SOURCE_V2, fixture.commits.v2, [{ sender: 'ops@example.org', kind: 'mailbox', scopes: ['mail_management.read', 'mail_management.revoke'] }]));
});

test('materialize_mail_admission refuses targets that are not admissible, with --apply too, and writes nothing', async (t) => {
  const fixture = createFixture();
  t.after(() => rmSync(fixture.dir, { recursive: true, force: true }));
  const { v1, side, tree, empty, invalid } = fixture.commits;
  // [case, target, exit code, message]
  const cases: [string, string, number, RegExp][] = [
    ['short sha', v1.slice(0, 12), 2, /is not an exact 40-character commit id \(lowercase hex\): an abbreviated id is not enough/],
    ['uppercase sha', v1.toUpperCase(), 2, /is not an exact 40-character commit id/],
    ['branch name', 'main', 2, /a branch, tag or expression is not accepted/],
    ['expression', `${v1}^`, 2, /is not an exact 40-character commit id/],
    ['unknown sha', 'f'.repeat(40), 1, /Target "f{40}" is not a commit in repository/],
    ['a tree, not a commit', tree, 1, /is not a commit in repository/],
    ['non-main sha', side, 1, new RegExp(`Target "${side}" is not on main: main \\([0-9a-f]{40}\\) does not contain it`)],
    ['commit without the source', empty, 1, /Source "configs\/mail-admission\.json" does not exist as a file at commit/],
    ['invalid source', invalid, 1, /is invalid: \/version: must be 1, got 2/],
  ];
  for (const [name, target, exitCode, message] of cases) {
    for (const apply of [false, true]) {
      const { code, err, out } = await materialize(fixture, ['--target', target, ...(apply ? ['--apply'] : [])]);
      assert.equal(code, exitCode, `${name} apply=${apply}`);
      assert.match(err, message, name);
      assert.equal(out, '', name);
      assert.equal(existsSync(fixture.dataDir), false, `${name}: nothing written`);
    }
  }
  const json = await materialize(fixture, ['--target', side, '--apply', '--json']);
  const result = JSON.parse(json.out);
  assert.equal(result.ok, false);
  assert.equal(result.mode, 'apply');
  assert.match(result.reasons[0], /is not on main/);
});

test('materialize_mail_admission lists every problem of an invalid source', async (t) => {
  const fixture = createFixture();
  t.after(() => rmSync(fixture.dir, { recursive: true, force: true }));
  const { err } = await materialize(fixture, ['--target', fixture.commits.invalid]);
  assert.deepEqual(err.trim().split('\n').map((l) => l.replace(/^.*is invalid: /, '')), [
    '/version: must be 1, got 2',
    '/admissions/0/sender: must be a lowercase domain ("example.org") or mailbox ("ops@example.org"), got "Bad Sender"',
    '/admissions/0/scopes: must be a non-empty array',
  ]);
});

test('materialize_mail_admission exits 2 for usage and environment problems', async (t) => {
  const fixture = createFixture();
  const bare = join(fixture.dir, 'not-a-repo');
  const other = join(fixture.dir, 'trunk-repo');
  mkdirSync(bare);
  mkdirSync(other);
  git(other, 'init', '-q', '-b', 'trunk');
  const trunk = commitFile(other, 'configs/mail-admission.json', JSON.stringify(SOURCE_V1), 'on trunk');
  t.after(() => rmSync(fixture.dir, { recursive: true, force: true }));
  const cases: [string[], RegExp][] = [
    [[], /Missing --target/],
    [['--target', fixture.commits.v1, '--source', '../etc/passwd'], /Invalid --source "\.\.\/etc\/passwd"/],
    [['--target', fixture.commits.v1, '--source', '/configs/mail-admission.json'], /Invalid --source/],
    [['--target', fixture.commits.v1, '--repo', bare], /is not a git repository/],
    [['--target', trunk, '--repo', other], /has no branch "main" \(refs\/heads\/main\)/],
  ];
  for (const [argv, message] of cases) {
    const { code, err } = await materialize(fixture, argv);
    assert.equal(code, 2, argv.join(' '));
    assert.match(err, message, argv.join(' '));
  }
});

test('materialize_mail_admission runs as a script: preview then --apply into $AIRLOCK_DATA_DIR', (t) => {
  const fixture = createFixture();
  t.after(() => rmSync(fixture.dir, { recursive: true, force: true }));
  const script = join(ROOT, 'scripts', 'materialize_mail_admission.ts');
  const env = { ...process.env, AIRLOCK_DATA_DIR: fixture.dataDir };
  const run = (...args: string[]) => {
    try {
      return { code: 0, out: execFileSync(process.execPath, [script, ...args], { cwd: fixture.repo, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }) };
    } catch (error) {
      return { code: (error as { status: number }).status, out: String((error as { stderr: string }).stderr) };
    }
  };
  assert.match(run('--help').out, /^Usage: materialize_mail_admission \[options\]/);
  assert.match(run('--target', fixture.commits.v1).out, /would be created/);
  assert.equal(existsSync(outputFile(fixture)), false);
  assert.match(run('--target', fixture.commits.v1, '--apply').out, /wrote /);
  assert.equal(readFileSync(outputFile(fixture), 'utf8'), expectedText(SOURCE_V1, fixture.commits.v1, V1_ADMISSIONS));
  assert.deepEqual(run('--target', fixture.commits.side, '--apply').code, 1);
  assert.deepEqual(run('--target', fixture.commits.v1.slice(0, 7), '--apply').code, 2);
});
