// What README and docs/commands.md promise of every executable (issue 29): each of the stack's 11
// takes --help and --json, and each --help documents AIRLOCK_LOG_LEVEL, which every service and
// command obeys and refuses (exit 2) when it names no level.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createLogger, defineCommand, EXIT_OK, EXIT_USAGE, runCommand } from '../../src/kernel/index.ts';
import { tempDir } from './fixtures/store-fixtures.ts';
import { compileCache } from '../helpers/compile-cache.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const STACK = JSON.parse(readFileSync(join(ROOT, 'configs', 'stack-contract.json'), 'utf8')) as { services: { executables: { name: string; source: string; args?: string[] }[] }[] };
const EXECUTABLES = STACK.services.flatMap((s) => s.executables.map((e) => ({ label: `${e.name}${e.args ? ` ${e.args.join(' ')}` : ''}`, argv: [join(ROOT, e.source), ...(e.args ?? [])] })));
const READBACK = join(ROOT, 'src', 'messaging', 'main-owner-readback.ts');

function run(argv: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, argv, { encoding: 'utf8', timeout: 30_000, env: { PATH: process.env['PATH'] ?? '', ...compileCache(), ...env } });
}

test('every executable of the stack documents --json and AIRLOCK_LOG_LEVEL in --help, and gives --help as JSON with --json', async () => {
  assert.equal(EXECUTABLES.length, 11);
  const help = (argv: string[]) => promisify(execFile)(process.execPath, argv, { encoding: 'utf8', timeout: 60_000, env: { PATH: process.env['PATH'] ?? '', ...compileCache() } });
  await Promise.all(EXECUTABLES.map(async ({ label, argv }) => {
    const [text, json] = await Promise.all([help([...argv, '--help']), help([...argv, '--help', '--json'])]);
    assert.match(text.stdout, /AIRLOCK_LOG_LEVEL: debug, info, warn or error/, label);
    assert.match(text.stdout, /--json/, label);
    // Every service that keeps evidence replicates it (docs/replication.md); --help is where an operator looks first.
    if (!label.startsWith('content-dev-oidc')) assert.match(text.stdout, /AIRLOCK_EVIDENCE_REPLICATION: off, async or sync[\s\S]*AIRLOCK_EVIDENCE_NATS_URL[\s\S]*docs\/replication\.md/, label);
    assert.equal((JSON.parse(json.stdout) as { help: string }).help.trimEnd(), text.stdout.trimEnd(), label);
  }));
});

test('a service started with --json runs, and AIRLOCK_LOG_LEVEL sets the least level it logs', async (t) => {
  const dir = tempDir(t);
  for (const [level, expectStopping] of [['warn', false], ['DEBUG', true]] as const) {
    const child = spawn(process.execPath, [READBACK, '--listen', '127.0.0.1:0', '--json'], { env: { PATH: process.env['PATH'] ?? '', ...compileCache(), AIRLOCK_DATA_DIR: dir, AIRLOCK_LOG_LEVEL: level }, stdio: ['ignore', 'pipe', 'pipe'] });
    const stderr: string[] = [];
    createInterface({ input: child.stderr }).on('line', (line) => stderr.push(line));
    const first = await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
    assert.equal((JSON.parse(first) as { msg: string }).msg, 'listening');
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    const levels = stderr.map((line) => (JSON.parse(line) as { level: string }).level);
    assert.ok(levels.includes('warn'), `${level}: the warning is logged`);
    assert.equal(stderr.some((line) => line.includes('"msg":"stopping"')), expectStopping, `${level}: the info record "stopping"`);
  }
});

test('AIRLOCK_LOG_LEVEL naming no level stops a service (exit 2) and a command (exit 2), saying what to set', async (t) => {
  const dir = tempDir(t);
  const refused = run([READBACK, '--listen', '127.0.0.1:0', '--json'], { AIRLOCK_DATA_DIR: dir, AIRLOCK_LOG_LEVEL: 'verbose' });
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, /Cannot start: AIRLOCK_LOG_LEVEL "verbose" names no level: set debug, info, warn or error/);
  assert.deepEqual((JSON.parse(refused.stdout) as { ok: boolean; error: { code: string } }), { ok: false, error: { code: 'config_invalid', message: 'AIRLOCK_LOG_LEVEL "verbose" names no level: set debug, info, warn or error', details: [] } });
  let out = '';
  let err = '';
  const io = { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) }, env: { AIRLOCK_LOG_LEVEL: 'verbose' } };
  const command = defineCommand({ name: 'check_things', summary: 'Checks things', options: {}, run: () => EXIT_OK });
  assert.equal(await runCommand(command, [], io), EXIT_USAGE);
  assert.match(err, /check_things: AIRLOCK_LOG_LEVEL "verbose" names no level/);
  assert.equal(out, '');
  assert.equal(await runCommand(command, [], { ...io, env: { AIRLOCK_LOG_LEVEL: 'error' } }), EXIT_OK);
});

test('every executable of the stack refuses an AIRLOCK_LOG_LEVEL naming no level (exit 2), with --json as one document on stdout', async (t) => {
  const dir = tempDir(t);
  const start = (argv: string[]) => promisify(execFile)(process.execPath, [...argv, '--json'], { encoding: 'utf8', timeout: 60_000, env: { PATH: process.env['PATH'] ?? '', ...compileCache(), AIRLOCK_DATA_DIR: dir, AIRLOCK_LOG_LEVEL: 'verbose' } })
    .then(() => ({ code: 0, stdout: '', stderr: '' }), (e: { code: number; stdout: string; stderr: string }) => e);
  await Promise.all(EXECUTABLES.map(async ({ label, argv }) => {
    const refused = await start(argv);
    assert.equal(refused.code, 2, `${label}: ${refused.stderr}`);
    assert.match(refused.stderr, /AIRLOCK_LOG_LEVEL "verbose" names no level/, label);
    // The worker is a command (runCommand): its code is usage; the services' is config_invalid.
    const answer = JSON.parse(refused.stdout) as { ok: boolean; error: { code: string; message: string } };
    assert.deepEqual([answer.ok, answer.error.message], [false, 'AIRLOCK_LOG_LEVEL "verbose" names no level: set debug, info, warn or error'], label);
  }));
});

test('createLogger() takes its level from AIRLOCK_LOG_LEVEL unless one is given', () => {
  const lines: string[] = [];
  const log = createLogger({ env: { AIRLOCK_LOG_LEVEL: ' Error ' }, write: (line) => void lines.push(line) });
  log.warn('dropped');
  log.error('kept');
  assert.deepEqual(lines.map((l) => (JSON.parse(l) as { msg: string }).msg), ['kept']);
  const explicit: string[] = [];
  createLogger({ level: 'debug', env: { AIRLOCK_LOG_LEVEL: 'error' }, write: (line) => void explicit.push(line) }).debug('kept');
  assert.equal(explicit.length, 1);
  const fallback: string[] = [];
  createLogger({ env: { AIRLOCK_LOG_LEVEL: 'nonsense' }, write: (line) => void fallback.push(line) }).info('kept at info');
  assert.equal(fallback.length, 1);
});
