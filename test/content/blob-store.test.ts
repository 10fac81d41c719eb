// The blob store on disk: what a killed upload left in tmp/ is gone when the store opens again.

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { test } from 'node:test';
import { createBlobStore } from '../../src/content/blob-store.ts';

test('createBlobStore() removes the partial files a killed upload left in tmp/, and keeps stored blobs', async () => {
  const root = mkdtempSync(join(tmpdir(), 'airlock-blobs-'));
  try {
    const first = createBlobStore(root);
    const writer = first.create(1024);
    await writer.write(Buffer.from('kept'));
    const stored = await writer.finish();
    const { sha256 } = stored;
    // What SIGKILL in the middle of an upload leaves behind: a partial file no row names.
    mkdirSync(join(root, 'tmp'), { recursive: true });
    writeFileSync(join(root, 'tmp', 'b8c1e6d2-partial'), Buffer.alloc(4096));
    // The journal entry of a blob whose version may not have committed stays for the start's reclaim.
    const reopened = createBlobStore(root);
    assert.deepEqual(readdirSync(join(root, 'tmp')), [basename(stored.marker!)]);
    assert.deepEqual(reopened.placed(), [{ sha256, marker: stored.marker }]);
    await reopened.settle(stored);
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
    // The journal entry is durable first; then a new <aa>/<bb>: root learns <aa>, <aa> learns <bb>, and <bb> is synced once the blob is in it.
    const journal = synced.shift()!;
    assert.equal(journal.dir, join(root, 'tmp'));
    assert.ok(journal.entries.some((entry) => entry.startsWith(`placing-${first}-`)), journal.entries.join(' '));
    assert.deepEqual(synced, [
      { dir: root, entries: [aa, 'tmp'].sort() },
      { dir: join(root, aa), entries: [bb] },
      { dir: join(root, aa, bb), entries: [first] },
    ]);
    synced.length = 0;
    // The same bytes again: the directories exist, only the blob's directory is synced.
    assert.equal(await put('first blob'), first);
    assert.deepEqual(synced.map((entry) => entry.dir), [join(root, 'tmp'), join(root, aa, bb)]);
    assert.deepEqual(synced[1], { dir: join(root, aa, bb), entries: [first] });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('createBlobStore() starts a new store with its journal file, so its first start walks no blobs; an existing directory without it gets none', () => {
  const parent = mkdtempSync(join(tmpdir(), 'airlock-blobs-'));
  try {
    const fresh = createBlobStore(join(parent, 'new'));
    assert.equal(existsSync(fresh.journalFile), true);
    const old = createBlobStore(parent);
    assert.equal(existsSync(old.journalFile), false, 'blobs made before the journal are walked once by the start');
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
});

test('finish() of 16 concurrent uploads: one shared fsync of tmp/ makes their journal entries durable, each before its blob is moved into place', async () => {
  const root = mkdtempSync(join(tmpdir(), 'airlock-blobs-'));
  try {
    const tmp = join(root, 'tmp');
    const durable = new Set<string>();
    const tmpSyncs: string[][] = [];
    const early: string[] = [];
    const store = createBlobStore(root, {
      syncDirectory: async (dir) => {
        if (dir === tmp) {
          // What this fsync covers: the entries present when it starts, durable once it ends.
          const entries = readdirSync(dir).filter((entry) => entry.startsWith('placing-'));
          tmpSyncs.push(entries);
          await new Promise((resolve) => setTimeout(resolve, 20));
          for (const entry of entries) durable.add(entry.slice('placing-'.length, 'placing-'.length + 64));
          return;
        }
        // A blob's directory is synced after its rename: by then its journal entry must be durable.
        for (const name of readdirSync(dir)) if (/^[0-9a-f]{64}$/.test(name) && !durable.has(name)) early.push(name);
      },
    });
    const blobs = await Promise.all(Array.from({ length: 16 }, async (_, i) => {
      const writer = store.create(1024);
      await writer.write(Buffer.from(`concurrent blob ${i}`));
      return writer.finish();
    }));
    assert.equal(new Set(blobs.map((blob) => blob.sha256)).size, 16);
    assert.deepEqual(early, [], 'no blob was in place before its journal entry was durable');
    assert.ok(tmpSyncs.length <= 3, `16 journal entries took ${tmpSyncs.length} fsyncs of tmp/ (one each before they were shared)`);
    for (const blob of blobs) assert.ok(durable.has(blob.sha256));
    // The journal entry is a second name of the blob's bytes, and settle() removes it.
    for (const blob of blobs) assert.equal(statSync(blob.marker!).ino, statSync(store.path(blob.sha256)).ino);
    await Promise.all(blobs.map((blob) => store.settle(blob)));
    assert.deepEqual(readdirSync(tmp), []);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
