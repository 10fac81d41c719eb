// Counts the pages SQLite reads from the database file for a piece of code, where the step
// counter (sqlite-steps.ts) cannot see: a virtual table such as FTS5 reads its index through
// its own blob handles, not through statements. SQLite reads every page it does not have in its
// cache with one pread(2), and Linux counts each thread's read calls (/proc/thread-self/io,
// syscr); node:sqlite runs on the calling thread. Run the code on a connection opened for the
// count, so that its page cache starts empty and every page the code needs is read once.

import { readFileSync } from 'node:fs';

function readCalls(): number {
  const io = readFileSync('/proc/thread-self/io', 'utf8');
  const calls = /^syscr: (\d+)$/m.exec(io);
  if (calls === null) throw new Error(`/proc/thread-self/io has no syscr line: ${io}`);
  return Number(calls[1]);
}

// The read calls one look at the counter makes itself (readFileSync reads until end of file).
const OWN_CALLS = -readCalls() + readCalls();

/** Runs `run` and counts the read calls this thread made meanwhile: the pages SQLite read. */
export function pageReads<T>(run: () => T): { result: T; reads: number } {
  const before = readCalls();
  const result = run();
  return { result, reads: readCalls() - before - OWN_CALLS };
}
