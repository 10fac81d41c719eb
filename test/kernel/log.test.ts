import { test } from 'node:test';
import assert from 'node:assert/strict';
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
