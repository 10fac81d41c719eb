// Directory fsyncs shared between concurrent uploads. An fsync of a directory makes durable every
// entry created, renamed or removed in it before the fsync started, whoever made them: so an upload
// that asks while another's fsync of the same directory is running waits for it to end and then
// shares one more fsync with everyone else who asked meanwhile (as a group commit does for rows).
// Sixteen uploads making their journal entries in tmp/ at once cost two or three fsyncs, not sixteen.

import { open } from 'node:fs/promises';

export type SyncDirectory = (path: string) => Promise<void>;

/** fsync of a directory: makes the entries created or renamed in it durable (Linux). */
export async function fsyncDirectory(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * `sync` shared between callers: a call resolves once an fsync of `path` that started after the
 * call began has ended (it rejects with that fsync's error).
 */
export function sharedDirectorySync(sync: SyncDirectory = fsyncDirectory): SyncDirectory {
  const running = new Map<string, Promise<void>>();
  const waiting = new Map<string, Promise<void>>();
  const start = (path: string): Promise<void> => {
    const run = sync(path).finally(() => {
      if (running.get(path) === run) running.delete(path);
    });
    running.set(path, run);
    return run;
  };
  return (path) => {
    const current = running.get(path);
    if (current === undefined) return start(path);
    // The running fsync may have started before this caller's entry existed: the next one counts.
    let next = waiting.get(path);
    if (next === undefined) {
      const after = () => {
        waiting.delete(path);
        return start(path);
      };
      next = current.then(after, after);
      waiting.set(path, next);
    }
    return next;
  };
}
