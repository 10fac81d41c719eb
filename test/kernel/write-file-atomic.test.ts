import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomic } from '../../src/kernel/index.ts';

test('writeFileAtomic() creates the folder, replaces the file whole, and leaves no temporary file', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-atomic-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'nested', 'out.json');
  writeFileAtomic(file, 'first\n');
  writeFileAtomic(file, 'second\n');
  assert.equal(readFileSync(file, 'utf8'), 'second\n');
  assert.deepEqual(readdirSync(join(dir, 'nested')), ['out.json']);
  assert.equal(statSync(file).mode & 0o777, 0o644);
});

test('writeFileAtomic() gives a secret file mode 0600 whatever the umask', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-atomic-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const previous = process.umask(0o000);
  try {
    writeFileAtomic(join(dir, 'secrets.json'), '{}\n', { mode: 0o600 });
  } finally {
    process.umask(previous);
  }
  assert.equal(statSync(join(dir, 'secrets.json')).mode & 0o777, 0o600);
});
