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
