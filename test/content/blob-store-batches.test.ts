// The blob store's writes: chunks gathered into batches of one writev each (batched-file.ts), and
// blob directories made once, each new one durable in its parent before any upload into it finishes.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createBatchedFile } from '../../src/content/batched-file.ts';
import { WRITE_BATCH_BYTES, createBlobStore } from '../../src/content/blob-store.ts';

const chunkOf = (index: number, size: number) => Buffer.alloc(size, `chunk ${index};`);

test('an upload\'s chunks are gathered until a batch is full, then written together (a write stream wrote each as it came)', async () => {
  const root = mkdtempSync(join(tmpdir(), 'airlock-blobs-'));
  try {
    const store = createBlobStore(root);
    const writer = store.create(8 * 1024 * 1024);
    const chunks = Array.from({ length: 40 }, (_, i) => chunkOf(i, 64 * 1024));
    // 15 socket chunks of an upload (960 KiB): nothing handed to the disk yet.
    for (const chunk of chunks.slice(0, 15)) await writer.write(chunk);
    const [partial] = readdirSync(join(root, 'tmp'));
    assert.equal(statSync(join(root, 'tmp', partial!)).size, 0);
    assert.equal(15 * 64 * 1024 < WRITE_BATCH_BYTES, true);
    for (const chunk of chunks.slice(15)) await writer.write(chunk);
    const blob = await writer.finish();
    assert.equal(blob.size, 40 * 64 * 1024);
    assert.deepEqual(readFileSync(store.path(blob.sha256)), Buffer.concat(chunks));
    assert.equal(blob.sha256, createHash('sha256').update(Buffer.concat(chunks)).digest('hex'));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('createBatchedFile() keeps the order of the bytes across many batches of uneven chunks, and an empty file is created', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-batches-'));
  try {
    const path = join(dir, 'file');
    const file = createBatchedFile(path, { mode: 0o600, batchBytes: 1000 });
    const chunks = Array.from({ length: 300 }, (_, i) => chunkOf(i, 1 + ((i * 37) % 700)));
    // Writes not awaited one by one still land in order.
    await Promise.all(chunks.map((chunk) => file.write(chunk)));
    await file.syncAndClose();
    assert.deepEqual(readFileSync(path), Buffer.concat(chunks));
    assert.equal((statSync(path).mode & 0o777).toString(8), '600');
    const empty = createBatchedFile(join(dir, 'empty'), { mode: 0o600, batchBytes: 1000 });
    await empty.syncAndClose();
    assert.equal(statSync(join(dir, 'empty')).size, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('createBatchedFile() reports a file it cannot create from write(), created() and syncAndClose(); destroy() still resolves', async () => {
  const path = join(tmpdir(), 'airlock-no-such-dir-7c1f', 'file');
  const file = createBatchedFile(path, { mode: 0o600, batchBytes: 8 });
  await assert.rejects(file.created(), { code: 'ENOENT' });
  // The first full batch is handed over without waiting for it; the next write hears of its failure.
  await file.write(Buffer.alloc(16));
  await assert.rejects(file.write(Buffer.alloc(16)), { code: 'ENOENT' });
  await assert.rejects(file.syncAndClose(), { code: 'ENOENT' });
  await file.destroy();
});

test('createBatchedFile() destroy() drops what is queued and closes the file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-batches-'));
  try {
    const path = join(dir, 'file');
    const file = createBatchedFile(path, { mode: 0o600, batchBytes: 1024 });
    await file.write(Buffer.alloc(100, 1));
    await file.destroy();
    await file.destroy();
    assert.equal(statSync(path).size, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('finish() of uploads landing in the same new blob directory: none resolves before the fsyncs that make the new directories durable', async () => {
  const root = mkdtempSync(join(tmpdir(), 'airlock-blobs-'));
  try {
    const parentsDurable = new Set<string>();
    const store = createBlobStore(root, {
      syncDirectory: async (dir) => {
        // A directory fsync made slow, as on a busy disk: an upload that does not wait for it finishes first.
        if (dir === root || /^[0-9a-f]{2}$/.test(dir.slice(root.length + 1))) {
          await new Promise((resolve) => setTimeout(resolve, 30));
          parentsDurable.add(dir);
        }
      },
    });
    // Byte strings whose digests share their first four hex digits, so the same <aa>/<bb>.
    const [first, second, third] = sameDirectoryGroup(3);
    const put = async (bytes: Buffer) => {
      const writer = store.create(1024);
      await writer.write(bytes);
      const blob = await writer.finish();
      return { blob, durableThen: [...parentsDurable].sort() };
    };
    const [a, b] = await Promise.all([put(first!), put(second!)]);
    const aa = a.blob.sha256.slice(0, 2);
    assert.equal(b.blob.sha256.slice(0, 4), a.blob.sha256.slice(0, 4));
    for (const finished of [a, b]) assert.deepEqual(finished.durableThen, [root, join(root, aa)].sort());
    // The directories are known now: a third upload into them makes no fsync of a parent again.
    parentsDurable.clear();
    await put(third!);
    assert.deepEqual([...parentsDurable], []);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

/** `count` short byte strings whose SHA-256 digests start with the same four hex digits. */
function sameDirectoryGroup(count: number): Buffer[] {
  const seen = new Map<string, Buffer[]>();
  for (let i = 0; ; i++) {
    const bytes = Buffer.from(`group ${i}`);
    const prefix = createHash('sha256').update(bytes).digest('hex').slice(0, 4);
    const group = [...(seen.get(prefix) ?? []), bytes];
    if (group.length === count) return group;
    seen.set(prefix, group);
  }
}

test('a blob directory removed by hand after the store made it is made again: the next upload into it succeeds', async () => {
  const root = mkdtempSync(join(tmpdir(), 'airlock-blobs-'));
  try {
    const store = createBlobStore(root);
    const upload = async (bytes: Buffer) => {
      const writer = store.create(1024 * 1024);
      await writer.write(bytes);
      return writer.finish();
    };
    const bytes = chunkOf(7, 4096);
    const first = await upload(bytes);
    // The store remembers <aa>/<bb> as made; an operator removes it (and the blob in it).
    rmSync(join(root, first.sha256.slice(0, 2)), { recursive: true, force: true });
    const again = await upload(bytes);
    assert.equal(again.sha256, first.sha256);
    assert.deepEqual(readFileSync(store.path(again.sha256)), bytes);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
