// npm start: runs every service of the stack from this checkout on loopback, with embedded
// defaults, prefixes their logs, and stops them all on Ctrl-C. Operators on a host without a
// checkout run the bundles (dist/bin/<name>.mjs) instead.

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
// @ts-ignore -- build.mjs is plain JavaScript without declarations.
import { listEntries } from '../build.mjs';

const ROOT = new URL('..', import.meta.url).pathname;
const services = (listEntries(ROOT) as { name: string; source: string }[]).filter((e) => e.source.includes('/src/'));

if (services.length === 0) {
  process.stdout.write('No service exists yet: nothing to start. See README.md for what is built so far.\n');
  process.exit(0);
}

const children = new Map<string, ChildProcess>();
let stopping = false;

for (const { name, source } of services) {
  const child = spawn(process.execPath, [source], { stdio: ['ignore', 'pipe', 'pipe'], env: { AIRLOCK_DATA_DIR: `${ROOT}var`, ...process.env } });
  children.set(name, child);
  createInterface({ input: child.stdout! }).on('line', (line) => process.stdout.write(`${line}\n`));
  createInterface({ input: child.stderr! }).on('line', (line) => process.stderr.write(`[${name}] ${line}\n`));
  child.on('exit', (code, signal) => {
    children.delete(name);
    if (!stopping) {
      process.stderr.write(`[${name}] exited (${signal ?? code}); stopping the stack\n`);
      stop(1);
    } else if (children.size === 0) process.exit(process.exitCode ?? 0);
  });
}

function stop(code: number): void {
  if (stopping) return;
  stopping = true;
  process.exitCode = code;
  for (const child of children.values()) child.kill('SIGTERM');
  if (children.size === 0) process.exit(code);
}

process.once('SIGINT', () => stop(0));
process.once('SIGTERM', () => stop(0));
