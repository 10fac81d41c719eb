import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AirlockError, isAirlockError } from '../../src/kernel/errors.ts';
import { createProgress, defineCommand, EXIT_FAILED, EXIT_OK, EXIT_USAGE, runCommand, wholeNumberOption } from '../../src/kernel/cli.ts';

function capture(isTTY = false) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: {
      stdout: { write: (t: string) => out.push(t), isTTY },
      stderr: { write: (t: string) => err.push(t), isTTY },
      env: {},
    },
    out: () => out.join(''),
    err: () => err.join(''),
  };
}

const command = defineCommand({
  name: 'check_things',
  summary: 'Checks things',
  options: {
    db: { type: 'string', description: 'Database file', valueName: 'FILE' },
    limit: { type: 'string', description: 'How many', default: '10' },
    fail: { type: 'boolean', description: 'Make the check fail' },
    env: { type: 'boolean', description: 'Raise an environment error' },
  },
  run({ values, json, print, printJson }) {
    if (values.env) throw new AirlockError('environment', 'Cannot open "x.sqlite": no such file');
    const result = { ok: !values.fail, db: values.db ?? null, limit: values.limit };
    if (json) printJson(result);
    else print(result.ok ? 'ok' : 'failed');
    return result.ok ? EXIT_OK : EXIT_FAILED;
  },
});

test('runCommand() prints generated help with every option and exits 0', async () => {
  const c = capture();
  assert.equal(await runCommand(command, ['--help'], c.io), EXIT_OK);
  const help = c.out();
  assert.match(help, /^Usage: check_things \[options\]/);
  assert.match(help, /--db FILE\s+Database file/);
  assert.match(help, /--limit VALUE\s+How many \(default: 10\)/);
  assert.match(help, /--json\s+Print the result as one JSON document/);
  assert.match(help, /-h, --help/);
  assert.match(help, /Exit codes: 0 .* 1 .* 2 /);
});

test('runCommand() returns the exit code of run and honours --json', async () => {
  const ok = capture();
  assert.equal(await runCommand(command, ['--db', 'a.sqlite', '--json'], ok.io), EXIT_OK);
  assert.deepEqual(JSON.parse(ok.out()), { ok: true, db: 'a.sqlite', limit: '10' });
  const failed = capture();
  assert.equal(await runCommand(command, ['--fail'], failed.io), EXIT_FAILED);
  assert.equal(failed.out(), 'failed\n');
});

test('runCommand() exits 2 on an unknown option, a positional, or a missing value', async () => {
  for (const argv of [['--nope'], ['extra'], ['--db']]) {
    const c = capture();
    assert.equal(await runCommand(command, argv, c.io), EXIT_USAGE, argv.join(' '));
    assert.match(c.err(), /^check_things: [^\n]*: run "check_things --help" for usage\n$/, 'one line');
    assert.equal(c.out(), '');
  }
});

test('runCommand() maps an AirlockError to exit 2 with its message, as JSON too', async () => {
  const c = capture();
  assert.equal(await runCommand(command, ['--env', '--json'], c.io), EXIT_USAGE);
  assert.equal(c.err(), 'check_things: Cannot open "x.sqlite": no such file\n');
  assert.deepEqual(JSON.parse(c.out()), {
    ok: false,
    error: { code: 'environment', message: 'Cannot open "x.sqlite": no such file', details: [] },
  });
});

test('createProgress() is silent off a terminal and draws done/total on one', () => {
  const quiet = capture(false);
  const p1 = createProgress(quiet.io.stderr, 3);
  p1.tick(); p1.tick(); p1.done();
  assert.equal(quiet.err(), '');
  const tty = capture(true);
  const p2 = createProgress(tty.io.stderr, 2, 'sweep');
  p2.tick(); p2.tick(); p2.done();
  assert.match(tty.err(), /sweep 2\/2 [\d.]+\/s eta 0s\n$/);
});

test('runCommand() prints a JSON error on stdout for a usage error under --json', async () => {
  const c = capture();
  assert.equal(await runCommand(command, ['--json', '--bogus'], c.io), EXIT_USAGE);
  const doc = JSON.parse(c.out()) as { ok: boolean; error: { code: string; message: string } };
  assert.equal(doc.ok, false);
  assert.equal(doc.error.code, 'usage');
  assert.match(doc.error.message, /bogus/);
});

test('a command piped into a reader that stops early (| head) exits without an EPIPE stack', async () => {
  const { spawn } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const script = fileURLToPath(new URL('./fixtures/long-output-command.ts', import.meta.url));
  for (let i = 0; i < 3; i++) {
    const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 15_000 });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    // Read one chunk, then close the pipe, as `head -c 1` does.
    await new Promise<void>((resolve) => child.stdout.once('data', () => { child.stdout.destroy(); resolve(); }));
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    assert.equal(stderr, '', 'no EPIPE stack');
    assert.equal(code, 0);
  }
});

test('main() writes what a command logged before its error line on stderr', async () => {
  const { spawn } = await import('node:child_process');
  const { once } = await import('node:events');
  const kernel = JSON.stringify(new URL('../../src/kernel/index.ts', import.meta.url).href);
  const script = `import { createLogger, defineCommand, main, usageError } from ${kernel};
    await main(defineCommand({ name: 'logs-then-fails', summary: 'x', options: {}, async run() {
      createLogger({ name: 'cmd' }).warn('looked at the input');
      usageError('the input is wrong');
    } }), []);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const [code] = (await once(child, 'close')) as [number];
  assert.equal(code, EXIT_USAGE, stderr);
  const lines = stderr.trimEnd().split('\n');
  assert.match(lines[0] ?? '', /"msg":"looked at the input"/, stderr);
  assert.equal(lines[1], 'logs-then-fails: the input is wrong');
});

test('wholeNumberOption() takes digits at or above the least value and refuses the rest as usage errors', () => {
  assert.equal(wholeNumberOption('--count', '5'), 5);
  assert.equal(wholeNumberOption('--retries', '0', 0), 0);
  for (const bad of ['0', '-1', '1.5', '1e3', ' 7', '0x10', '', 'five', '99999999999999999999']) {
    assert.throws(() => wholeNumberOption('--count', bad), (error: unknown) => isAirlockError(error, 'usage') && error.message === `Invalid --count "${bad}": use a whole number of at least 1`);
  }
});
