import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { tarGzip, type TarEntry } from '../../delivery/tar.ts';

const LONG = `pkg/${'deep/'.repeat(20)}file-with-a-long-name.json`;
const ENTRIES: TarEntry[] = [
  { path: 'pkg', mode: 0o755 },
  { path: 'pkg/bin', mode: 0o755 },
  { path: 'pkg/bin/tool', bytes: Buffer.from('#!/bin/sh\necho hi\n'), mode: 0o755 },
  { path: 'pkg/empty', bytes: Buffer.alloc(0), mode: 0o644 },
  { path: 'pkg/exact-block', bytes: Buffer.alloc(512, 0x61), mode: 0o600 },
  { path: LONG, bytes: Buffer.from('{}\n'), mode: 0o644 },
];

test('the same entries give the same bytes, with a gzip header mtime of 0', () => {
  const one = tarGzip(ENTRIES, 1_700_000_000);
  const two = tarGzip(ENTRIES, 1_700_000_000);
  assert.deepEqual(one, two);
  assert.deepEqual([...one.subarray(0, 3)], [0x1f, 0x8b, 8], 'gzip magic and deflate');
  assert.equal(one.readUInt32LE(4), 0, 'gzip header mtime');
  assert.notDeepEqual(tarGzip(ENTRIES, 1_700_000_001), one, 'the mtime is in the archive');
});

test('GNU tar reads it back: names, modes, owners, mtimes and contents', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-tar-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const archive = join(dir, 'a.tar.gz');
  writeFileSync(archive, tarGzip(ENTRIES, 1_700_000_000));
  const listing = execFileSync('tar', ['-tvzf', archive, '--numeric-owner'], { encoding: 'utf8' }).trim().split('\n');
  assert.equal(listing.length, ENTRIES.length);
  assert.match(listing[2] ?? '', /^-rwxr-xr-x 0\/0 +18 2023-11-14 \d\d:\d\d pkg\/bin\/tool$/);
  assert.match(listing[4] ?? '', /^-rw------- 0\/0 +512 .* pkg\/exact-block$/);
  assert.ok(listing[5]?.endsWith(LONG), 'a path over 100 bytes uses the ustar prefix');
  execFileSync('tar', ['-xzf', archive, '-C', dir]);
  assert.equal(readFileSync(join(dir, 'pkg/bin/tool'), 'utf8'), '#!/bin/sh\necho hi\n');
  assert.equal(statSync(join(dir, 'pkg/bin/tool')).mtimeMs, 1_700_000_000_000);
  assert.equal(readFileSync(join(dir, LONG), 'utf8'), '{}\n');
});

test('the tar stream is whole 512-byte blocks ending in two zero blocks', () => {
  const tar = gunzipSync(tarGzip(ENTRIES, 0));
  assert.equal(tar.length % 512, 0);
  assert.ok(tar.subarray(-1024).every((b) => b === 0));
});

test('a path that cannot be split into ustar name and prefix is refused with the rule', () => {
  assert.throws(() => tarGzip([{ path: `x/${'n'.repeat(120)}`, bytes: Buffer.from(''), mode: 0o644 }], 0), /too long for a ustar archive/);
});
