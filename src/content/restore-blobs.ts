// The blobs a restored repository needs, fetched from the object store bucket its host
// replicated them to (blob-replication.ts): every blob a version still names, found by replaying
// content_events (a version names a blob; a purge lists the blobs it freed). Each is checked
// against its digest as it arrives and written where the blob store keeps it.

import type { DatabaseSync } from 'node:sqlite';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ObjectStore } from '../kernel/index.ts';
import { VERSION_ACTIONS } from './blob-replication.ts';
import { createBlobStore } from './blob-store.ts';
import { CONTENT_EVENTS } from './database.ts';

export interface RestoredBlobs {
  fetched: number;
  /** Blobs a version names that the bucket does not hold (async replication behind when the host was lost). */
  missing: string[];
}

/** The digests a version still names after every event of `sqlite`'s content_events. */
export function namedBlobs(sqlite: DatabaseSync): string[] {
  const named = new Set<string>();
  for (const row of sqlite.prepare(`SELECT action, payload FROM ${CONTENT_EVENTS.name} ORDER BY seq`).iterate()) {
    const action = String(row['action']);
    if ((VERSION_ACTIONS as readonly string[]).includes(action)) named.add((JSON.parse(String(row['payload'])) as { sha256: string }).sha256);
    else if (action === 'purged') for (const sha256 of (JSON.parse(String(row['payload'])) as { blobs_removed?: string[] }).blobs_removed ?? []) named.delete(sha256);
  }
  return [...named].sort();
}

/** Fetches every blob the restored database `sqlite` names into the blob store at `blobDir`. */
export async function restoreContentBlobs(sqlite: DatabaseSync, options: { objects: ObjectStore; blobDir: string }): Promise<RestoredBlobs> {
  const blobs = createBlobStore(options.blobDir);
  const missing: string[] = [];
  let fetched = 0;
  for (const sha256 of namedBlobs(sqlite)) {
    const path = blobs.path(sha256);
    if (existsSync(path)) continue;
    if ((await options.objects.info(sha256)) === undefined) {
      missing.push(sha256);
      continue;
    }
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    await options.objects.getToFile(sha256, path);
    fetched++;
  }
  return { fetched, missing };
}
