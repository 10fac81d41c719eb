// Reads a file (or stdin) for a command, at most a given number of bytes: a command reading an
// operator's file must not hang on /dev/zero or exhaust memory on a huge file, and an unreadable
// file is the operator's mistake, reported with its errno code rather than a stack.

import { closeSync, openSync, readSync } from 'node:fs';

export type BoundedRead = { ok: true; bytes: Buffer } | { ok: false; reason: 'too_large' } | { ok: false; reason: 'unreadable'; code: string };

/** Reads FILE (stdin when undefined) up to `limit` bytes; more than `limit` is `too_large`. */
export function readFileBounded(file: string | undefined, limit: number): BoundedRead {
  let fd: number;
  try {
    fd = file === undefined ? 0 : openSync(file, 'r');
  } catch (error) {
    return { ok: false, reason: 'unreadable', code: errnoCode(error) };
  }
  const buffer = Buffer.alloc(limit + 1);
  let length = 0;
  try {
    for (let n = -1; n !== 0 && length < buffer.length; length += n) n = readSync(fd, buffer, length, buffer.length - length, null);
  } catch (error) {
    return { ok: false, reason: 'unreadable', code: errnoCode(error) };
  } finally {
    if (file !== undefined) closeSync(fd);
  }
  if (length > limit) return { ok: false, reason: 'too_large' };
  return { ok: true, bytes: buffer.subarray(0, length) };
}

function errnoCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}
