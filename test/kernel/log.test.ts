import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, REDACTED } from '../../src/kernel/log.ts';

function collect() {
  const lines: string[] = [];
  return { lines, write: (line: string) => void lines.push(line) };
}

test('createLogger() writes one JSON object per line with time, level, logger, service and msg', () => {
  const sink = collect();
  const log = createLogger({ name: 'semantic', service: 'semantic', write: sink.write, now: () => new Date(0) });
  log.info('listening', { port: 18020 });
  assert.equal(sink.lines.length, 1);
  assert.ok(sink.lines[0]!.endsWith('\n'));
  assert.deepEqual(JSON.parse(sink.lines[0]!), {
    time: '1970-01-01T00:00:00.000Z', level: 'info', logger: 'semantic', service: 'semantic', msg: 'listening', port: 18020,
  });
});

test('createLogger() writes exactly the JSON of its record, fields in their order after the header', () => {
  const sink = collect();
  const log = createLogger({ name: 'svc.access', service: 'svc', write: sink.write, now: () => new Date(1_700_000_000_123) });
  log.info('request "quoted"', { method: 'GET', path: '/a\u2028b', status: 200, nested: { z: 1, a: [true, null] } });
  log.warn('bare');
  assert.deepEqual(sink.lines, [
    `${JSON.stringify({ time: '2023-11-14T22:13:20.123Z', level: 'info', logger: 'svc.access', service: 'svc', msg: 'request "quoted"', method: 'GET', path: '/a\u2028b', status: 200, nested: { z: 1, a: [true, null] } })}\n`,
    `${JSON.stringify({ time: '2023-11-14T22:13:20.123Z', level: 'warn', logger: 'svc.access', service: 'svc', msg: 'bare' })}\n`,
  ]);
});

test('createLogger() without a service keeps a caller\'s `service` field', () => {
  const sink = collect();
  createLogger({ name: 'a', write: sink.write }).info('m', { service: 'erp', time: 'forged' });
  const record = JSON.parse(sink.lines[0]!);
  assert.equal(record.service, 'erp');
  assert.notEqual(record.time, 'forged');
});

test('createLogger() on the wall clock stamps each line with the current millisecond', () => {
  const sink = collect();
  const log = createLogger({ write: sink.write });
  const before = Date.now();
  log.info('one');
  const after = Date.now();
  const stamped = Date.parse(JSON.parse(sink.lines[0]!).time);
  assert.ok(stamped >= before && stamped <= after, `${stamped} within [${before}, ${after}]`);
});

test('createLogger() drops records below its level and child() keeps output and level', () => {
  const sink = collect();
  const log = createLogger({ level: 'warn', write: sink.write });
  log.info('quiet');
  log.child('uvicorn.error').error('loud');
  assert.equal(sink.lines.length, 1);
  assert.equal(JSON.parse(sink.lines[0]!).logger, 'uvicorn.error');
});

test('createLogger() redacts secret values in messages, fields, nested values and errors', () => {
  const sink = collect();
  const token = 'tok-"quoted"\\-s3cret';
  const log = createLogger({ secrets: ['opsecret-123'], write: sink.write });
  log.child('x').addSecrets([token]);
  log.error('failed with opsecret-123', { header: `Bearer ${token}`, nested: { list: ['opsecret-123'] }, error: new Error('bad opsecret-123') });
  const line = sink.lines[0]!;
  assert.ok(!line.includes('opsecret-123'));
  assert.ok(!line.includes('s3cret'));
  const record = JSON.parse(line);
  assert.equal(record.msg, `failed with ${REDACTED}`);
  assert.equal(record.header, `Bearer ${REDACTED}`);
  assert.deepEqual(record.nested, { list: [REDACTED] });
  assert.equal(record.error.message, `bad ${REDACTED}`);
});

test('createLogger() does not let fields overwrite the record header', () => {
  const sink = collect();
  createLogger({ name: 'a', write: sink.write }).info('m', { logger: 'forged', level: 'debug', msg: 'forged' });
  const record = JSON.parse(sink.lines[0]!);
  assert.equal(record.logger, 'a');
  assert.equal(record.level, 'info');
  assert.equal(record.msg, 'm');
});

test('createLogger() never throws on bigints or cycles in fields', () => {
  const sink = collect();
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic['self'] = cyclic;
  createLogger({ write: sink.write }).error('odd values', { big: 10n, cyclic });
  const record = JSON.parse(sink.lines[0]!);
  assert.equal(record.big, '10');
  assert.deepEqual(record.cyclic, { a: 1, self: '[cycle]' });
});

// The default output: stderr, one write per event-loop turn. Nothing queued may be lost when the
// process ends, whether by process.exit(), a crash or an empty event loop.
const LOG_MODULE = new URL('../../src/kernel/log.ts', import.meta.url).href;
const endings: [string, string, number][] = [
  ['process.exit()', 'process.exit(3);', 3],
  ['an uncaught exception', "throw new Error('crash after logging');", 1],
  ['an empty event loop', '', 0],
];
for (const [how, ending, code] of endings) {
  test(`createLogger() on stderr writes every line queued in the turn before ${how}`, async () => {
    const script = `import { createLogger } from ${JSON.stringify(LOG_MODULE)};
      const log = createLogger({ name: 'ending' });
      for (let n = 0; n < 500; n++) log.info('line', { n });
      ${ending}`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const [exitCode] = (await once(child, 'close')) as [number];
    assert.equal(exitCode, code, stderr);
    const lines = stderr.split('\n').filter((line) => line.startsWith('{'));
    assert.deepEqual(lines.map((line) => JSON.parse(line).n), Array.from({ length: 500 }, (_, n) => n));
    // The crash report comes after the lines logged before it.
    if (code === 1) assert.ok(stderr.indexOf('crash after logging') > stderr.lastIndexOf('"n":499'));
  });
}

test('createLogger() on stderr writes lines out during a long synchronous turn instead of queueing them all', async () => {
  // A loop that logs without yielding must not hold every line in memory (nor hide them all
  // from an operator until it ends): the queue goes out once it holds enough.
  const dir = mkdtempSync(join(tmpdir(), 'log-turn-'));
  const file = join(dir, 'stderr.txt');
  const fd = openSync(file, 'w');
  const script = `import { createLogger } from ${JSON.stringify(LOG_MODULE)};
    import { fstatSync } from 'node:fs';
    const log = createLogger({ name: 'loop' });
    for (let n = 0; n < 20000; n++) log.info('row checked', { n });
    process.stdout.write(String(fstatSync(2).size));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', fd] });
  let stdout = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  const [exitCode] = (await once(child, 'close')) as [number];
  closeSync(fd);
  const lines = readFileSync(file, 'utf8').split('\n').filter((line) => line.startsWith('{'));
  rmSync(dir, { recursive: true, force: true });
  assert.equal(exitCode, 0);
  assert.ok(Number(stdout) > 1_000_000, `bytes on stderr before the turn ended: ${stdout}`);
  assert.deepEqual(lines.map((line) => JSON.parse(line).n), Array.from({ length: 20000 }, (_, n) => n));
});
