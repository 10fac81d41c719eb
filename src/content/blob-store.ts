// Content-addressed storage on disk: a stream is written to a temporary file while it is hashed
// (SHA-256), then renamed to blobs/<aa>/<bb>/<sha256>. The same bytes are stored once. Nothing
// is held whole in memory; a stream over the size limit is cut and its temporary file removed.

import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { link, mkdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { createBatchedFile } from './batched-file.ts';
import { fsyncDirectory, sharedDirectorySync } from './directory-sync.ts';
import type { SyncDirectory } from './directory-sync.ts';

export interface StoredBlob {
  sha256: string;
  size: number;
  /** The journal entry that names the blob until the version naming it commits (settle() removes it). */
  marker?: string;
}

export interface BlobWriter {
  /** Writes a chunk; resolves when the file can take more (backpressure). */
  write(chunk: Buffer): Promise<void>;
  /** Finishes the file and moves it into place. */
  finish(): Promise<StoredBlob>;
  /** Drops the temporary file. */
  abort(): Promise<void>;
  /** Bytes written so far. */
  readonly size: number;
}

export class BlobTooLargeError extends Error {
  constructor(limit: number) {
    super(`Content exceeds the upload limit of ${limit} bytes`);
    this.name = 'BlobTooLargeError';
  }
}

export interface BlobStore {
  /** A writer for one new blob, refusing more than `maxBytes`. */
  create(maxBytes: number): BlobWriter;
  /** The blob's bytes, or those from `range.start` to `range.end` inclusive. */
  open(sha256: string, range?: { start: number; end: number }): Readable;
  path(sha256: string): string;
  /** Where a purge puts a blob it is removing until its rows are gone for good (tmp/purge-<sha256>). */
  asidePath(sha256: string): string;
  has(sha256: string): Promise<boolean>;
  /** Every blob on disk, by digest (the start's reclaim walks them). */
  digests(): Iterable<string>;
  /** Deletes a blob no version names. */
  remove(sha256: string): void;
  /** After the version that names `blob` committed: its journal entry goes (a crash before that leaves it for the start's reclaim). */
  settle(blob: StoredBlob): Promise<void>;
  /**
   * The journal entries in tmp/ (placing-<sha256>-<id>): blobs placed by finish() whose
   * versions may not have committed. The start's reclaim judges them instead of every blob.
   */
  placed(): { sha256: string; marker: string }[];
  /** Present once every blob on disk was judged: from then on the journal names every blob that could be an orphan. */
  readonly journalFile: string;
}

const SHA256 = /^[0-9a-f]{64}$/;

/** A blob directory being made: `made` once it exists (a rename may go in), `durable` once its new entries are. */
interface BlobDirectory {
  made: Promise<void>;
  durable: Promise<void>;
}
const DURABLE_DIRECTORY: BlobDirectory = { made: Promise.resolve(), durable: Promise.resolve() };
const JOURNAL_FILE = 'journaled';
/** What the journal file says to an operator who finds it. */
export const JOURNAL_TEXT = 'Every blob that could be an orphan is named by a tmp/placing-* entry (docs/content.md, Trashcan)\n';
/**
 * Bytes an upload gathers before one writev hands them to the disk (batched-file.ts): at most
 * twice this is held per upload, one batch being written and the next gathering.
 */
export const WRITE_BATCH_BYTES = 1024 * 1024;

/**
 * `syncDirectory` is the directory fsync; tests pass a recorder to see what was made durable and
 * when. Concurrent uploads share its calls (directory-sync.ts).
 */
export function createBlobStore(root: string, options: { syncDirectory?: SyncDirectory } = {}): BlobStore {
  const syncDirectory = sharedDirectorySync(options.syncDirectory ?? fsyncDirectory);
  const tmp = join(root, 'tmp');
  // Whatever else tmp/ holds at start is a partial upload of a process that died (SIGKILL, power
  // loss): no row names it and nobody will finish it, so it would only fill the disk. A blob a
  // purge moved aside (purge-<sha>) stays for the start's reclaim (blob-reclaim.ts) to judge.
  const fresh = !existsSync(root);
  mkdirSync(tmp, { recursive: true, mode: 0o700 });
  // A new store has no blob to judge: its journal names every orphan from the start.
  if (fresh) writeFileSync(join(root, JOURNAL_FILE), JOURNAL_TEXT, { mode: 0o600 });
  for (const entry of readdirSync(tmp)) if (!entry.startsWith('purge-') && !entry.startsWith('placing-')) rmSync(join(tmp, entry), { recursive: true, force: true });
  const pathOf = (sha256: string) => {
    if (!SHA256.test(sha256)) throw new TypeError(`Not a SHA-256 hex digest: "${sha256}"`);
    return join(root, sha256.slice(0, 2), sha256.slice(2, 4), sha256);
  };
  // The blob directories (<aa>/<bb>, at most 65,536) known to exist with their entries durable:
  // an upload into one makes no mkdir call (a recursive mkdirSync on the event loop per upload, which
  // waits on the directory's lock while other uploads rename into it). The store removes blobs,
  // never their directories.
  const durableDirectories = new Set<string>();
  const makingDirectories = new Map<string, BlobDirectory>();
  const blobDirectory = (dir: string): BlobDirectory => {
    if (durableDirectories.has(dir)) return DURABLE_DIRECTORY;
    let making = makingDirectories.get(dir);
    if (making !== undefined) return making;
    const made = mkdir(dir, { recursive: true, mode: 0o700 });
    // `created` is the first directory mkdir made (<aa> or <aa>/<bb>); each new one is an entry in
    // its parent. An upload into a directory another is making waits for the same fsyncs.
    const durable = made
      .then((created) => Promise.all((created === undefined ? [] : created === dir ? [dirname(created)] : [dirname(created), created]).map((parent) => syncDirectory(parent))))
      .then(() => void durableDirectories.add(dir))
      .finally(() => makingDirectories.delete(dir));
    // Awaited by whoever asked; an early failure of theirs must not leave it unhandled.
    durable.catch(() => undefined);
    making = { made: made.then(() => undefined), durable };
    makingDirectories.set(dir, making);
    return making;
  };
  return {
    path: pathOf,
    asidePath: (sha256) => join(tmp, `purge-${pathOf(sha256).slice(-64)}`),
    *digests() {
      for (const a of readdirSync(root)) {
        if (!/^[0-9a-f]{2}$/.test(a)) continue;
        for (const b of readdirSync(join(root, a))) {
          if (!/^[0-9a-f]{2}$/.test(b)) continue;
          for (const name of readdirSync(join(root, a, b))) if (SHA256.test(name)) yield name;
        }
      }
    },
    remove: (sha256) => rmSync(pathOf(sha256), { force: true }),
    // Off the event loop (an unlink can wait on the file system's journal while other uploads
    // fsync), and one unlink: rm() would lstat the entry twice first.
    settle: async (blob) => {
      if (blob.marker === undefined) return;
      try {
        await unlink(blob.marker);
      } catch (error) {
        // ENOENT: nothing left to remove, which is what settle() is for.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    },
    placed: () => readdirSync(tmp).flatMap((entry) => {
      const sha256 = /^placing-([0-9a-f]{64})-/.exec(entry)?.[1];
      return sha256 === undefined ? [] : [{ sha256, marker: join(tmp, entry) }];
    }),
    journalFile: join(root, JOURNAL_FILE),
    open: (sha256, range) => createReadStream(pathOf(sha256), range && { start: range.start, end: range.end }),
    async has(sha256) {
      try {
        await stat(pathOf(sha256));
        return true;
      } catch {
        // Missing (or unreadable) means "not stored": the caller writes it again.
        return false;
      }
    },
    create(maxBytes) {
      const tmpPath = join(tmp, randomUUID());
      const file = createBatchedFile(tmpPath, { mode: 0o600, batchBytes: WRITE_BATCH_BYTES });
      const hash = createHash('sha256');
      let size = 0;
      const writer: BlobWriter = {
        get size() {
          return size;
        },
        async write(chunk) {
          size += chunk.length;
          if (size > maxBytes) throw new BlobTooLargeError(maxBytes);
          hash.update(chunk);
          await file.write(chunk);
        },
        async finish() {
          const sha256 = hash.digest('hex');
          const target = pathOf(sha256);
          // The journal entry: a crash between the rename below and the commit of the version that
          // names the blob leaves it, and the next start judges that one blob instead of walking
          // every blob on disk (issue 24). It is a second name of the temporary file (one link(),
          // where an empty file took an open and a close), so it holds no bytes of its own.
          const marker = join(tmp, `placing-${sha256}-${randomUUID()}`);
          // Before the rename, the bytes must be durable (the fsync at close) and so must the
          // journal entry (the fsync of tmp/, shared with the uploads finishing at the same time):
          // two independent waits on the disk, so they run at once.
          await Promise.all([file.syncAndClose(), file.created().then(() => link(tmpPath, marker)).then(() => syncDirectory(tmp))]);
          let directory = blobDirectory(dirname(target));
          await directory.made;
          // Same bytes, same name: renaming over an existing blob replaces it with identical content.
          // The rename is an entry in the blob's directory: without its fsync a power loss could take
          // the blob back while the version row that names it (committed next) survives.
          await rename(tmpPath, target).catch(async (error: unknown) => {
            // A blob directory removed by hand since this store made it: make it again, once.
            if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
            durableDirectories.delete(dirname(target));
            directory = blobDirectory(dirname(target));
            await directory.made;
            await rename(tmpPath, target);
          });
          // The new directories' fsyncs (started when they were made) and the rename's, side by side.
          await Promise.all([directory.durable, syncDirectory(dirname(target))]);
          return { sha256, size, marker };
        },
        async abort() {
          await file.destroy();
          await rm(tmpPath, { force: true });
        },
      };
      return writer;
    },
  };
}
