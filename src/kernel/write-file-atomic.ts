// Writes a file so that a reader sees the old bytes or the new ones, never a torn mix: a
// temporary file in the same directory, fsync, rename, then fsync of the directory. Evidence
// files, materialized configuration and dev secrets (mode 0600) all go through it.

import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Atomically replaces `file` with `text`, creating its directory when needed. The new file has
 * `mode` (0644 by default; 0600 for secrets) from its first byte on.
 *
 * @example
 * writeFileAtomic('var/dev-secrets.json', JSON.stringify(secrets), { mode: 0o600 });
 */
export function writeFileAtomic(file: string, text: string, options: { mode?: number } = {}): void {
  const directory = dirname(file);
  mkdirSync(directory, { recursive: true });
  const temporary = join(directory, `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const mode = options.mode ?? 0o644;
  const fd = openSync(temporary, 'wx', mode);
  try {
    // The process umask may have narrowed the mode; set exactly what was asked.
    fchmodSync(fd, mode);
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  const dirFd = openSync(directory, 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}
