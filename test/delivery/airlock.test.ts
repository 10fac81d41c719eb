import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// @ts-ignore -- build.mjs is plain JavaScript without declarations.
import { build } from '../../build.mjs';

const ROOT = join(import.meta.dirname, '..', '..');

const DEMO = `import { DatabaseSync } from 'node:sqlite';
if (process.argv.includes('--help')) {
  process.stdout.write('Usage: demo-api [ARGS]\\n\\nReports how it was started\\n');
} else {
  new DatabaseSync(':memory:').close();
  process.emitWarning('something to know');
  process.emitWarning('an experiment', 'ExperimentalWarning');
  process.stdout.write(JSON.stringify({ argv: process.argv.slice(2), dirname: import.meta.dirname, main: import.meta.main, text: '/* kept */' }) + '\\n');
}
`;
// Evaluating it at all prints a line: a run of another command must not show it.
const NOISY = `process.stderr.write('noisy evaluated\\n');
export function helper(): number { return 1; }
if (process.argv.includes('--help')) process.stdout.write('Usage: noisy\\n\\nShouts when evaluated\\n');
`;

const root = mkdtempSync(join(tmpdir(), 'airlock-dispatch-'));
const files = { 'src/demo/main.ts': DEMO, 'scripts/noisy.ts': NOISY };
for (const [path, text] of Object.entries(files)) {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), text);
}
await build({ root, outdir: join(root, 'dist') });
const AIRLOCK = join(root, 'dist', 'bin', 'airlock.mjs');
process.once('exit', () => rmSync(root, { recursive: true, force: true }));

function run(file: string, args: string[], node = process.execPath) {
  const result = spawnSync(node, [file, ...args], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '' } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

test('airlock --help lists every command with its one-line summary', () => {
  const { code, stdout } = run(AIRLOCK, ['--help']);
  assert.equal(code, 0);
  assert.match(stdout, /^Usage: airlock <command> \[args\]/);
  assert.match(stdout, /^ {2}demo-api +Reports how it was started$/m);
  assert.match(stdout, /^ {2}noisy +Shouts when evaluated$/m);
  const listed = JSON.parse(run(AIRLOCK, ['--help', '--json']).stdout) as { commands: { name: string; summary: string }[] };
  assert.deepEqual(listed.commands, [{ name: 'demo-api', summary: 'Reports how it was started' }, { name: 'noisy', summary: 'Shouts when evaluated' }]);
});

test('airlock <command> runs only that command, with its arguments and the bundle\'s import.meta', () => {
  const { code, stdout, stderr } = run(AIRLOCK, ['demo-api', 'a', '--b']);
  assert.equal(code, 0, stderr);
  assert.doesNotMatch(stderr, /noisy evaluated/);
  assert.deepEqual(JSON.parse(stdout), { argv: ['a', '--b'], dirname: join(root, 'dist', 'bin'), main: true, text: '/* kept */' });
  const noisy = run(AIRLOCK, ['noisy']);
  assert.equal(noisy.stderr, 'noisy evaluated\n', 'a command with exports of its own embeds and runs');
});

test('a link named after a command runs it', () => {
  const link = join(root, 'dist', 'bin', 'demo-api');
  symlinkSync('airlock.mjs', link);
  const { code, stdout } = run(link, ['x']);
  assert.equal(code, 0);
  assert.deepEqual((JSON.parse(stdout) as { argv: string[] }).argv, ['x']);
});

test('on Node 24 or newer stderr holds only JSON lines: warnings converted, ExperimentalWarning dropped', () => {
  for (const file of [AIRLOCK, join(root, 'dist', 'bin', 'demo-api.mjs')]) {
    const { stderr } = run(file, file === AIRLOCK ? ['demo-api'] : []);
    const lines = stderr.trim().split('\n');
    const records = lines.map((line) => JSON.parse(line) as { level: string; msg: string; warning: string });
    assert.deepEqual(records.map((r) => [r.level, r.warning, r.msg]), [['warn', 'Warning', 'something to know']]);
  }
});

test('an unknown or missing command exits 2 and points at --help', () => {
  const unknown = run(AIRLOCK, ['nope']);
  assert.equal(unknown.code, 2);
  assert.equal(unknown.stderr, 'airlock: unknown command "nope"; run "airlock --help" for the list\n');
  const none = run(AIRLOCK, []);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /^Usage: airlock/);
});

test('Node older than 24: one line naming the Node it needs, exit 2, for a bundle and for airlock', (t) => {
  const old = execFileSync('bash', ['-c', 'which -a node nodejs 2>/dev/null || true'], { encoding: 'utf8' }).trim().split('\n').filter(Boolean)
    .find((node) => Number(spawnSync(node, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).stdout.trim()) < 24);
  if (!old) return t.skip('no Node older than 24 on PATH to try');
  for (const [file, name] of [[join(root, 'dist', 'bin', 'demo-api.mjs'), 'demo-api'], [AIRLOCK, 'airlock']] as const) {
    const { code, stdout, stderr } = run(file, ['--help'], old);
    assert.equal(code, 2, stderr);
    assert.equal(stdout, '');
    assert.match(stderr, new RegExp(`^${name}: needs Node\\.js 24 or newer, this is Node\\.js \\d+\\.\\d+\\.\\d+ \\(use the standalone airlock binary, which carries its own\\)\\n$`));
  }
});

test('build.mjs --sea --only with an unknown name exits 2 naming it, before building anything', () => {
  const result = spawnSync(process.execPath, [join(ROOT, 'build.mjs'), '--sea', '--only', 'no_such_name', '--only', 'semantic-api'], { encoding: 'utf8' });
  assert.equal(result.status, 2);
  assert.match(result.stderr, /--only names no command: "no_such_name"/);
  assert.doesNotMatch(result.stdout, /Built/);
});
