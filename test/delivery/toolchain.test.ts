import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PIN_FILE, readPin, sha256File, verifyNode } from '../../delivery/toolchain.ts';

function scratch(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-toolchain-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('the Node running the tests is the pinned binary', () => {
  const node = verifyNode();
  assert.equal(node.sha256, readPin().binaries[node.platform]);
  assert.equal(node.version, readPin().version);
});

test('a binary whose hash differs is refused, naming the file, its hash and the pin', (t) => {
  const dir = scratch(t);
  const fake = join(dir, 'node');
  writeFileSync(fake, 'not the pinned node\n');
  const hash = sha256File(fake);
  assert.throws(() => verifyNode({ binary: fake, platform: 'linux-x64', version: readPin().version }), (error: Error) => {
    assert.ok(error.message.includes(fake), error.message);
    assert.ok(error.message.includes(hash), error.message);
    assert.ok(error.message.includes(readPin().binaries['linux-x64'] as string), error.message);
    assert.ok(error.message.includes(PIN_FILE), error.message);
    return true;
  });
});

test('a platform without a pin is refused, not trusted', (t) => {
  const dir = scratch(t);
  const fake = join(dir, 'node');
  writeFileSync(fake, 'x');
  assert.throws(() => verifyNode({ binary: fake, platform: 'plan9-mips' }), /No pinned Node binary for plan9-mips .*refusing/);
});

test('the right bytes reporting another version are refused', (t) => {
  const dir = scratch(t);
  const fake = join(dir, 'node');
  writeFileSync(fake, 'x');
  const pinFile = join(dir, 'pin.json');
  writeFileSync(pinFile, JSON.stringify({ version: '26.10.0', binaries: { 'linux-x64': sha256File(fake) } }));
  assert.throws(() => verifyNode({ binary: fake, platform: 'linux-x64', version: '26.9.0', pinFile }), /reports version 26\.9\.0, but .* pins 26\.10\.0/);
  assert.equal(verifyNode({ binary: fake, platform: 'linux-x64', version: '26.10.0', pinFile }).sha256, sha256File(fake));
});

test('a malformed pin file is an error that shows the expected shape', (t) => {
  const dir = scratch(t);
  const pinFile = join(dir, 'pin.json');
  writeFileSync(pinFile, JSON.stringify({ binaries: [] }));
  assert.throws(() => readPin(pinFile), /must hold \{"version"/);
});

test('the check command exits 0 on the pinned Node and prints the hash with --print', () => {
  const script = join(import.meta.dirname, '..', '..', 'delivery', 'toolchain.ts');
  const check = spawnSync(process.execPath, [script], { encoding: 'utf8' });
  assert.equal(check.status, 0, check.stderr);
  assert.match(check.stdout, /matches its pin/);
  const printed = spawnSync(process.execPath, [script, '--print'], { encoding: 'utf8' });
  assert.equal((JSON.parse(printed.stdout) as { sha256: string }).sha256, verifyNode().sha256);
});
