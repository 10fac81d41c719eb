// The blob store on disk: what a killed upload left in tmp/ is gone when the store opens again.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createBlobStore } from '../../src/content/blob-store.ts';

test('createBlobStore() removes the partial files a killed upload left in tmp/, and keeps stored blobs', async () => {
  const root = mkdtempSync(join(tmpdir(), 'airlock-blobs-'));
  try {
    const first = createBlobStore(root);
    const writer = first.create(1024);
    await writer.write(Buffer.from('kept'));
    const { sha256 } = await writer.finish();
    // What SIGKILL in the middle of an upload leaves behind: a partial file no row names.
    mkdirSync(join(root, 'tmp'), { recursive: true });
    writeFileSync(join(root, 'tmp', 'b8c1e6d2-partial'), Buffer.alloc(4096));
    const reopened = createBlobStore(root);
    assert.deepEqual(readdirSync(join(root, 'tmp')), []);
    assert.equal(await reopened.has(sha256), true);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('finish() makes the blob durable in its directory after the rename, and new directories in their parents', async () => {
  const root = mkdtempSync(join(tmpdir(), 'airlock-blobs-'));
  try {
    const synced: { dir: string; entries: string[] }[] = [];
    const store = createBlobStore(root, {
      syncDirectory: async (dir) => void synced.push({ dir, entries: readdirSync(dir).sort() }),
    });
    const put = async (text: string) => {
      const writer = store.create(1024);
      await writer.write(Buffer.from(text));
      return (await writer.finish()).sha256;
    };
    const first = await put('first blob');
    const [aa, bb] = [first.slice(0, 2), first.slice(2, 4)];
    // A new <aa>/<bb>: root learns <aa>, <aa> learns <bb>, and <bb> is synced once the blob is in it.
    assert.deepEqual(synced, [
      { dir: root, entries: [aa, 'tmp'].sort() },
      { dir: join(root, aa), entries: [bb] },
      { dir: join(root, aa, bb), entries: [first] },
    ]);
    synced.length = 0;
    // The same bytes again: the directories exist, only the blob's directory is synced.
    assert.equal(await put('first blob'), first);
    assert.deepEqual(synced, [{ dir: join(root, aa, bb), entries: [first] }]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
