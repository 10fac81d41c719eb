// jhf-shuttle publish, tail and status on the embedded bus, with bad input refused (exit 2) and
// nothing published.

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pingCommand } from '../../scripts/_shuttle/ping.ts';
import { publishCommand } from '../../scripts/_shuttle/publish.ts';
import { statusCommand } from '../../scripts/_shuttle/status.ts';
import { tailCommand } from '../../scripts/_shuttle/tail.ts';
import { BUS_MESSAGES, openMessagingDatabase } from '../../src/messaging/database.ts';
import { runCaptured } from '../helpers/run-command.ts';
import { until } from '../helpers/until.ts';
import { compileCache } from '../helpers/compile-cache.ts';

const SHUTTLE = join(import.meta.dirname, '..', '..', 'scripts', 'jhf-shuttle.ts');
const env = (dir: string) => ({ AIRLOCK_DATA_DIR: dir, PATH: process.env['PATH'] ?? '', ...compileCache() });

function stored(dir: string): number {
  const store = openMessagingDatabase(join(dir, 'messaging.sqlite'));
  try {
    return store.readRows(BUS_MESSAGES).length;
  } finally {
    void store.close();
  }
}

test('jhf-shuttle tail --count receives what jhf-shuttle publish sends, each Nats-Msg-Id once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-shuttle-'));
  const tail = runCaptured(tailCommand, ['ops', '--count', '2', '--timeout-ms', '10000', '--json'], env(dir));
  await new Promise((r) => setTimeout(r, 300));
  for (const [data, id] of [['{"a":1}', 'm-1'], ['{"a":1}', 'm-1'], ['two', 'm-2']]) {
    const published = await runCaptured(publishCommand, ['ops', '--data', data!, '--msg-id', id!, '--json'], env(dir));
    assert.equal(published.status, 0, published.stderr);
    assert.equal(published.json.subject, 'mailbox.ops');
  }
  const result = await tail;
  assert.equal(result.status, 0, result.stderr);
  const lines = result.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((l) => [l.msg_id, l.payload]), [['m-1', '{"a":1}'], ['m-2', 'two']]);
  assert.equal(stored(dir), 2);
});

test('jhf-shuttle publish without --content-type sends a JSON body as application/json and other text as text/plain', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-shuttle-'));
  const tail = runCaptured(tailCommand, ['types', '--count', '2', '--timeout-ms', '10000', '--json'], env(dir));
  await new Promise((r) => setTimeout(r, 300));
  for (const data of ['{"a":1}', 'hello']) assert.equal((await runCaptured(publishCommand, ['types', '--data', data], env(dir))).status, 0);
  const result = await tail;
  const lines = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as { payload: string; headers: Record<string, string> });
  assert.deepEqual(lines.map((l) => [l.payload, l.headers['Content-Type']]), [['{"a":1}', 'application/json'], ['hello', 'text/plain']]);
});

const refused: [string, string[], Record<string, string>][] = [
  ['a mailbox name with a dot', ['a.b', '--data', 'x'], {}],
  ['a wildcard mailbox', ['*', '--data', 'x'], {}],
  ['two mailboxes', ['a', 'b', '--data', 'x'], {}],
  ['--data and --file together', ['a', '--data', 'x', '--file', '/dev/null'], {}],
  ['a malformed --msg-id', ['a', '--data', 'x', '--msg-id', 'has space'], {}],
  ['a body over MAILBOX_ADAPTER_MAX_PAYLOAD_BYTES', ['a', '--data', 'x'.repeat(11)], { MAILBOX_ADAPTER_MAX_PAYLOAD_BYTES: '10' }],
  ['an unknown option', ['a', '--data', 'x', '--follow'], {}],
  ['a body that is not JSON with --content-type application/json', ['a', '--data', '{"a":', '--content-type', 'application/json'], {}],
];
for (const [what, args, extra] of refused) {
  test(`jhf-shuttle publish refuses ${what} (exit 2) and publishes nothing`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-shuttle-'));
    const result = await runCaptured(publishCommand, args, { ...env(dir), ...extra });
    assert.equal(result.status, 2, result.stdout);
    assert.equal(stored(dir), 0);
  });
}

test('jhf-shuttle tail --durable on the embedded bus says it needs JetStream (exit 2); --count 0 is refused', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-shuttle-'));
  const durable = await runCaptured(tailCommand, ['ops', '--durable', 'x', '--count', '1'], env(dir));
  assert.equal(durable.status, 2);
  assert.match(durable.stderr, /JetStream/);
  assert.equal((await runCaptured(tailCommand, ['ops', '--count', '0'], env(dir))).status, 2);
  assert.equal((await runCaptured(tailCommand, [], env(dir))).status, 2);
});

test('jhf-shuttle tail --count with --timeout-ms exits 1 when the messages do not come', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-shuttle-'));
  const result = await runCaptured(tailCommand, ['quiet', '--count', '1', '--timeout-ms', '200'], env(dir));
  assert.equal(result.status, 1);
});

test('jhf-shuttle status and ping send credentials written in their URL as HTTP Basic (as curl would) and never show them', async (t) => {
  const seen: (string | undefined)[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers.authorization);
    res.writeHead(req.url === '/healthz' ? 200 : 503, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  const base = `http://ops:pw-SECRET-1@127.0.0.1:${(server.address() as AddressInfo).port}`;
  const basic = `Basic ${Buffer.from('ops:pw-SECRET-1').toString('base64')}`;
  const status = await runCaptured(statusCommand, ['--api-url', base], {});
  const ping = await runCaptured(pingCommand, [], { NATS_MONITOR_URL: base });
  assert.deepEqual([status.status, ping.status], [2, 0], status.stderr + ping.stderr);
  assert.deepEqual(seen, [basic, basic]);
  for (const out of [status, ping]) assert.doesNotMatch(out.stdout + out.stderr, /pw-SECRET-1/);
});

test('jhf-shuttle status exits 2 when the messaging API does not answer', async () => {
  const result = await runCaptured(statusCommand, ['--api-url', 'http://127.0.0.1:1', '--json'], {});
  assert.equal(result.status, 2);
  assert.equal(result.json.ok, false);
});

// docs/commands.md: every command answers --help and --json, and its --help documents
// AIRLOCK_LOG_LEVEL. The top level of jhf-shuttle printed its help as text under --json, and
// "--json --help" answered a usage error instead of the help.
test('jhf-shuttle --help documents AIRLOCK_LOG_LEVEL, and with --json (either order) is that help as JSON', () => {
  const shuttle = join(import.meta.dirname, '..', '..', 'scripts', 'jhf-shuttle.ts');
  const run = (...args: string[]) => spawnSync(process.execPath, [shuttle, ...args], { encoding: 'utf8', timeout: 30_000 });
  const text = run('--help');
  assert.equal(text.status, 0);
  assert.match(text.stdout, /AIRLOCK_LOG_LEVEL: debug, info, warn or error/);
  for (const args of [['--help', '--json'], ['--json', '--help'], ['-h', '--json']]) {
    const json = run(...args);
    assert.equal(json.status, 0, args.join(' '));
    assert.deepEqual(JSON.parse(json.stdout), { help: text.stdout }, args.join(' '));
  }
  const bare = run('--json');
  assert.equal(bare.status, 2);
  assert.equal((JSON.parse(bare.stdout) as { error: { code: string } }).error.code, 'usage');
});

// Hostile --file values: a missing file, a directory, an endless device. Each is a usage error that
// names the file (no "Internal error" with a stack), and an endless source is not read past the limit.
const hostileFiles: [string, string, RegExp][] = [
  ['a missing file', '/nonexistent/airlock-shuttle-body', /--file "\/nonexistent\/airlock-shuttle-body": ENOENT/],
  ['a directory', '/tmp', /--file "\/tmp": EISDIR/],
  ['an endless device', '/dev/zero', /larger than MAILBOX_ADAPTER_MAX_PAYLOAD_BYTES 1024/],
];
for (const [what, file, said] of hostileFiles) {
  test(`jhf-shuttle publish --file with ${what} is a clear usage error (exit 2), nothing published`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-shuttle-'));
    const result = await runCaptured(publishCommand, ['a', '--file', file], { ...env(dir), MAILBOX_ADAPTER_MAX_PAYLOAD_BYTES: '1024' });
    assert.equal(result.status, 2, result.stdout);
    assert.doesNotMatch(result.stderr, /Internal error|\n\s+at /);
    assert.match(result.stderr, said);
    assert.equal(stored(dir), 0);
  });
}

test('jhf-shuttle tail whose reader left (`| head -1`) exits 0 quietly at its next message, no EPIPE stack', { timeout: 30_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-shuttle-'));
  const child = spawn(process.execPath, [SHUTTLE, 'tail', 'ops'], { env: { ...process.env, ...env(dir) }, stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => child.kill());
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  await until(() => /subscribed/.test(stderr), 10_000);
  const publish = async (data: string) => assert.equal((await runCaptured(publishCommand, ['ops', '--data', data], env(dir))).status, 0);
  await publish('first');
  const [line] = (await once(child.stdout, 'data')) as [Buffer];
  assert.match(line.toString('utf8'), /first/);
  // What `head -1` does once it has its line: close its end of the pipe.
  child.stdout.destroy();
  await publish('second');
  await publish('third');
  assert.equal(await exited, 0, stderr);
  assert.doesNotMatch(stderr, /EPIPE|\n\s+at /);
});
