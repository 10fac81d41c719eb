import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { checkListenHost, isLoopbackHost } from '../../src/kernel/index.ts';
import { send } from '../helpers/http.ts';

const CHILD = fileURLToPath(new URL('./fixtures/run-service-child.ts', import.meta.url));

function start(env: Record<string, string>, args: string[] = []) {
  const child = spawn(process.execPath, [CHILD, ...args], { env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const firstLine = new Promise<string | undefined>((resolve) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', resolve);
    lines.once('close', () => resolve(undefined));
  });
  return { child, exited, firstLine, stderr: () => stderr };
}

test('isLoopbackHost() admits only loopback addresses', () => {
  const table: [string, boolean][] = [
    ['127.0.0.1', true], ['127.1.2.3', true], ['::1', true], ['[::1]', true], ['localhost', true], ['::ffff:127.0.0.1', true],
    ['0.0.0.0', false], ['::', false], ['10.0.0.1', false], ['192.168.1.1', false], ['example.org', false], ['128.0.0.1', false],
  ];
  for (const [host, expected] of table) assert.equal(isLoopbackHost(host), expected, host);
});

test('checkListenHost() refuses a non-loopback host unless AIRLOCK_ALLOW_NON_LOOPBACK=1', () => {
  assert.equal(checkListenHost('127.0.0.1', {}), undefined);
  assert.throws(() => checkListenHost('0.0.0.0', {}), /Cannot listen on "0\.0\.0\.0": not a loopback address; bind 127\.0\.0\.1 or set AIRLOCK_ALLOW_NON_LOOPBACK=1/);
  assert.throws(() => checkListenHost('0.0.0.0', { AIRLOCK_ALLOW_NON_LOOPBACK: 'true' }), /not a loopback address/);
  assert.match(checkListenHost('0.0.0.0', { AIRLOCK_ALLOW_NON_LOOPBACK: '1' }) ?? '', /because AIRLOCK_ALLOW_NON_LOOPBACK=1/);
});

test('runService() lists every configuration problem together and exits 2', async () => {
  const run = start({ FIXTURE_LISTEN: 'nowhere', FIXTURE_WORKERS: 'many' });
  assert.equal(await run.exited, 2);
  assert.equal(await run.firstLine, undefined, 'nothing on stdout');
  assert.equal(run.stderr(), [
    'Cannot start: Invalid configuration: 3 problems',
    '  FIXTURE_LISTEN: "nowhere" is not host:port with a port from 0 to 65535',
    '  FIXTURE_TOKEN: missing; set FIXTURE_TOKEN or FIXTURE_TOKEN_FILE',
    '  FIXTURE_WORKERS: "many" is not a whole number',
    '',
  ].join('\n'));
});

test('runService() exits 2 on a non-loopback address without the opt-in', async () => {
  const run = start({ FIXTURE_LISTEN: '0.0.0.0:0', FIXTURE_TOKEN: 'secret-token' });
  assert.equal(await run.exited, 2);
  assert.match(run.stderr(), /^Cannot start: Cannot listen on "0\.0\.0\.0": not a loopback address/);
});

test('runService() writes the log lines of a failed start before its "Cannot start" line', async () => {
  const run = start({ FIXTURE_LOG_AT_BUILD: '1' });
  assert.equal(await run.exited, 2);
  const lines = run.stderr().split('\n');
  assert.match(lines[0] ?? '', /"msg":"logged while building"/, run.stderr());
  assert.match(lines[1] ?? '', /^Cannot start: Invalid configuration/, run.stderr());
});

test('runService() writes the log lines of its start before its listening line, on a shared stdout and stderr (a journal)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'run-service-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'out.txt');
  const fd = openSync(file, 'w');
  const child = spawn(process.execPath, [CHILD], { env: { PATH: process.env['PATH'] ?? '', FIXTURE_TOKEN: 'secret-token', FIXTURE_LOG_AT_BUILD: '1' }, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  while (!readFileSync(file, 'utf8').includes('"listening"')) await new Promise((r) => setTimeout(r, 20));
  child.kill('SIGTERM');
  assert.equal(await exited, 0);
  const messages = readFileSync(file, 'utf8').split('\n').filter((line) => line.startsWith('{')).map((line) => (JSON.parse(line) as { msg: string }).msg);
  assert.deepEqual(messages, ['logged while building', 'listening', 'stopping']);
});

test('runService() prints the listening line, then drains and exits 0 on SIGTERM', async () => {
  const run = start({ FIXTURE_TOKEN: 'secret-token' });
  const line = JSON.parse((await run.firstLine) ?? '{}') as { msg: string; service: string; listener: string; url: string };
  assert.equal(line.msg, 'listening');
  assert.equal(line.service, 'fixture');
  assert.equal(line.listener, 'main');
  assert.match(line.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  const inFlight = send(`${line.url}/slow`);
  await new Promise((r) => setTimeout(r, 100));
  run.child.kill('SIGTERM');
  const res = await inFlight;
  assert.equal(res.status, 200);
  assert.equal(await run.exited, 0);
  assert.match(run.stderr(), /closed database/);
  assert.ok(!run.stderr().includes('secret-token'));
});

test('runService() prints its help and exits 0 on --help without reading configuration', async () => {
  const run = start({}, ['--help']);
  assert.equal(await run.exited, 0);
  assert.equal(await run.firstLine, 'Usage: fixture [--help]');
  assert.equal(run.stderr(), '');
});

test('runService() with declared flags refuses an unknown flag or a stray argument with one line and exit 2, before building', async () => {
  const { runService } = await import('../../src/kernel/index.ts');
  for (const argv of [['--bogus'], ['--listen'], ['stray'], ['--listen', '127.0.0.1:0', '--bogus=1']]) {
    let stderr = '';
    let code: number | undefined;
    let built = false;
    const result = await runService(() => {
      built = true;
      throw new Error('not reached');
    }, { argv, flags: { listen: { type: 'string' } }, stderr: { write: (t: string) => (stderr += t) }, stdout: { write: () => true }, exit: (c) => void (code = c), signals: false });
    assert.equal(result, undefined);
    assert.equal(code, 2, argv.join(' '));
    assert.equal(built, false);
    assert.match(stderr, /^Cannot start: [^\n]+: run with --help for usage\n$/, `${argv.join(' ')}: one line, no stack`);
  }
});

test('runService() reports a parseArgs error thrown while building as one line, exit 2', async () => {
  const { runService } = await import('../../src/kernel/index.ts');
  const { parseArgs } = await import('node:util');
  let stderr = '';
  let code: number | undefined;
  await runService(() => {
    parseArgs({ args: ['--bogus'], options: {}, strict: true });
    throw new Error('not reached');
  }, { argv: [], stderr: { write: (t: string) => (stderr += t) }, exit: (c) => void (code = c), signals: false });
  assert.equal(code, 2);
  assert.equal(stderr, "Cannot start: Unknown option '--bogus': run with --help for usage\n");
});
