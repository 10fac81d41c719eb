// A file written in batches of chunks, one writev each. An upload arrives in the socket's 64 KiB
// chunks, and a write per chunk (what a write stream does while the disk keeps up) costs a round
// trip through libuv's pool each: a submission that wakes a pool thread, and a completion that
// wakes the event loop. The event loop is what limits concurrent uploads (docs/performance.md,
// "Content upload"), so the chunks are gathered, as they are (no copy), and handed over together:
// the same bytes reach the page cache in a sixteenth of the calls. One batch is on its way to the
// disk while the next gathers; a caller whose next batch is full waits (and its socket with it),
// so an upload holds at most two batches in memory.

import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';

export interface BatchedFile {
  /** Queues `chunk`, kept as it is (the caller must not change it); resolves when the file can take more. */
  write(chunk: Buffer): Promise<void>;
  /** Resolves once the file exists (link() and rename() may name it from then on). */
  created(): Promise<void>;
  /** Writes what is queued, then fsyncs the file and closes it: its bytes are durable when this resolves. */
  syncAndClose(): Promise<void>;
  /** Closes the file without writing what is queued (the caller removes it). */
  destroy(): Promise<void>;
}

/** Creates (or truncates) `path` for writing in batches of about `batchBytes`. */
export function createBatchedFile(path: string, options: { mode: number; batchBytes: number }): BatchedFile {
  const opening = open(path, 'w', options.mode);
  // Its failure reaches the caller through the next write, created(), syncAndClose() or destroy().
  opening.catch(() => undefined);
  let queued: Buffer[] = [];
  let queuedBytes = 0;
  // The batch on its way to the disk; it never rejects: a failure is kept in `failure` instead.
  let writing: Promise<void> = Promise.resolve();
  let failure: unknown;
  let closed = false;

  const writeQueued = (): Promise<void> => {
    const buffers = queued;
    queued = [];
    queuedBytes = 0;
    return opening.then((handle) => writeAll(handle, buffers)).catch((error: unknown) => void (failure ??= error));
  };

  return {
    async write(chunk) {
      if (failure !== undefined) throw failure;
      queued.push(chunk);
      queuedBytes += chunk.length;
      while (queuedBytes >= options.batchBytes) {
        await writing;
        if (failure !== undefined) throw failure;
        // Another write may have handed this batch over while this one waited.
        if (queuedBytes >= options.batchBytes) writing = writeQueued();
      }
    },
    created: () => opening.then(() => undefined),
    async syncAndClose() {
      await writing;
      if (queuedBytes > 0) await writeQueued();
      if (failure !== undefined) throw failure;
      const handle = await opening;
      closed = true;
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
    },
    async destroy() {
      await writing;
      if (closed) return;
      closed = true;
      queued = [];
      queuedBytes = 0;
      let handle: FileHandle;
      try {
        handle = await opening;
      } catch {
        return; // Never opened: nothing to close.
      }
      await handle.close();
    },
  };
}

/** writev until every byte is written (a regular file may take fewer bytes than asked). */
async function writeAll(handle: FileHandle, buffers: Buffer[]): Promise<void> {
  let rest = buffers;
  while (rest.length > 0) {
    const { bytesWritten } = await handle.writev(rest);
    if (bytesWritten === 0) throw new Error('The file took no bytes: the disk may be full');
    rest = after(rest, bytesWritten);
  }
}

/** What is left of `buffers` once their first `bytes` bytes are written. */
function after(buffers: Buffer[], bytes: number): Buffer[] {
  let skipped = 0;
  for (let index = 0; index < buffers.length; index++) {
    const buffer = buffers[index]!;
    if (skipped + buffer.length > bytes) return [buffer.subarray(bytes - skipped), ...buffers.slice(index + 1)];
    skipped += buffer.length;
  }
  return [];
}
