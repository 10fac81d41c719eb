import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAirlockError } from '../../src/kernel/errors.ts';
import { parseListenAddress, readConfig, secretValues } from '../../src/kernel/config.ts';

const SPEC = {
  X_LISTEN: { type: 'listen', default: '127.0.0.1:18020', description: 'listener' },
  X_TOKEN: { type: 'secret', required: true, description: 'operator token' },
  X_STAGE: { type: 'enum', values: ['S0', 'S1_read_only', 'stage_2'], default: 'S0', description: 'stage' },
  X_WORKERS: { type: 'int', default: 2, min: 1, max: 16, description: 'workers' },
  X_VERBOSE: { type: 'boolean', default: false, description: 'verbose' },
  X_UPSTREAM: { type: 'url', description: 'upstream' },
  X_CASES: { type: 'list', description: 'allowlist' },
} as const;

test('readConfig() applies defaults and types every value', () => {
  const config = readConfig(SPEC, { X_TOKEN: 'secret-1', X_CASES: 'ts02:a, ts02:b,', X_UPSTREAM: 'http://127.0.0.1:9000/' });
  assert.deepEqual(config.X_LISTEN, { host: '127.0.0.1', port: 18020 });
  assert.equal(config.X_TOKEN, 'secret-1');
  assert.equal(config.X_STAGE, 'S0');
  assert.equal(config.X_WORKERS, 2);
  assert.equal(config.X_VERBOSE, false);
  assert.equal(config.X_UPSTREAM, 'http://127.0.0.1:9000');
  assert.deepEqual(config.X_CASES, ['ts02:a', 'ts02:b']);
});

test('readConfig() reports every missing or invalid variable at once', () => {
  const env = { X_LISTEN: 'nowhere', X_STAGE: 'S9', X_WORKERS: '0', X_VERBOSE: 'maybe', X_UPSTREAM: 'ftp://x' };
  assert.throws(() => readConfig(SPEC, env), (error) => {
    assert.ok(isAirlockError(error, 'config_invalid'));
    assert.equal(error.message, 'Invalid configuration: 6 problems');
    assert.deepEqual(error.details, [
      'X_LISTEN: "nowhere" is not host:port with a port from 0 to 65535',
      'X_TOKEN: missing; set X_TOKEN or X_TOKEN_FILE',
      'X_STAGE: "S9" is not one of S0, S1_read_only, stage_2',
      'X_WORKERS: "0" is below the minimum 1',
      'X_VERBOSE: "maybe" is not a boolean: use 1/0, true/false, yes/no or on/off',
      'X_UPSTREAM: "ftp://x" is not an http(s) URL',
    ]);
    return true;
  });
});

test('readConfig() reads a secret from NAME_FILE, and refuses both or an unreadable file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-config-'));
  try {
    const file = join(dir, 'token');
    writeFileSync(file, 'from-file\n');
    assert.equal(readConfig(SPEC, { X_TOKEN_FILE: file }).X_TOKEN, 'from-file');
    assert.throws(() => readConfig(SPEC, { X_TOKEN_FILE: file, X_TOKEN: 'direct' }), (e) =>
      isAirlockError(e) && e.details[0] === 'X_TOKEN: set both directly and as X_TOKEN_FILE; keep one');
    assert.throws(() => readConfig(SPEC, { X_TOKEN_FILE: join(dir, 'absent') }), (e) =>
      isAirlockError(e) && /^X_TOKEN: cannot read file ".*absent" named by X_TOKEN_FILE: ENOENT$/.test(e.details[0]!));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('secretValues() lists secret values and each rotated part', () => {
  const config = readConfig(SPEC, { X_TOKEN: 'old-token,new-token' });
  assert.deepEqual(secretValues(SPEC, config), ['old-token,new-token', 'old-token', 'new-token']);
});

test('parseListenAddress() accepts host:port, [v6]:port and :port, and refuses the rest', () => {
  const table: [string, unknown][] = [
    ['127.0.0.1:0', { host: '127.0.0.1', port: 0 }],
    ['[::1]:8080', { host: '::1', port: 8080 }],
    [':18010', { host: '127.0.0.1', port: 18010 }],
    ['localhost:65535', { host: 'localhost', port: 65535 }],
    ['127.0.0.1:65536', undefined],
    ['127.0.0.1', undefined],
    ['a:b', undefined],
    ['::1:80', undefined],
  ];
  for (const [input, expected] of table) assert.deepEqual(parseListenAddress(input), expected, input);
});
