// At start, before the listener opens: blobs that no version names are removed, so a crash can
// never leave content on disk for good. They come from a process that died between storing a
// blob and committing its version, or during a purge. A blob a purge moved aside goes back in
// place when a version still names it (the purge's unit rolled back), else it is removed. One
// evidence row records what was reclaimed. Only the blobs the journal names (blob-store.ts:
// placed but not settled) are judged, so a start costs the uploads a crash interrupted, not
// every blob (issue 24); a store without its journal file (made before the journal) is walked
// whole once.

import { statement } from '../kernel/index.ts';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Store } from '../kernel/index.ts';
import { JOURNAL_TEXT } from './blob-store.ts';
import type { BlobStore } from './blob-store.ts';
import { CONTENT_EVENTS } from './database.ts';
import { restoreBlob } from './trashcan.ts';

/** Evidence names at most this many digests; the count is always whole. */
const LISTED_DIGESTS = 100;

export async function reclaimBlobs(store: Store, blobs: BlobStore): Promise<{ removed: string[]; restored: string[] }> {
  const named = statement(store.sqlite, 'SELECT 1 FROM versions WHERE sha256 = ? LIMIT 1');
  const used = (sha: string) => named.get(sha) !== undefined;
  const restored: string[] = [];
  const removed: string[] = [];
  const tmp = dirname(blobs.asidePath('0'.repeat(64)));
  for (const entry of existsSync(tmp) ? readdirSync(tmp) : []) {
    const sha = /^purge-([0-9a-f]{64})$/.exec(entry)?.[1];
    if (sha === undefined) continue;
    if (used(sha)) {
      restoreBlob(blobs, sha);
      restored.push(sha);
    } else {
      rmSync(blobs.asidePath(sha), { force: true });
      removed.push(sha);
    }
  }
  for (const { sha256, marker } of blobs.placed()) {
    if (!used(sha256) && existsSync(blobs.path(sha256))) {
      blobs.remove(sha256);
      if (!removed.includes(sha256)) removed.push(sha256);
    }
    rmSync(marker, { force: true });
  }
  if (!existsSync(blobs.journalFile)) {
    for (const sha of [...blobs.digests()]) {
      if (used(sha) || removed.includes(sha)) continue;
      blobs.remove(sha);
      removed.push(sha);
    }
    writeFileSync(blobs.journalFile, JOURNAL_TEXT, { mode: 0o600 });
  }
  if (removed.length + restored.length > 0) {
    await store.write((_sqlite, tx) => {
      tx.append(CONTENT_EVENTS, { node_id: '', action: 'blobs-reclaimed', payload: { actor: 'System', removed: removed.length, restored: restored.length, removed_sha256: removed.slice(0, LISTED_DIGESTS), restored_sha256: restored.slice(0, LISTED_DIGESTS) } });
    });
  }
  return { removed, restored };
}
