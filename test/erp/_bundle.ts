// Starts the bundled erp-api (dist/bin/erp-api.mjs built by build.mjs) as its own process on port 0
// and reads its `listening` line: for tests that must hold the executable operators run.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { compileCache } from '../helpers/compile-cache.ts';

export interface RunningBundle {
  url: string;
  child: ChildProcess;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

export async function startBundle(bundle: string, env: Record<string, string>): Promise<RunningBundle> {
  const child = spawn(process.execPath, [bundle, '--listen', '127.0.0.1:0'], { env: { PATH: process.env['PATH'] ?? '', ...compileCache(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  for await (const line of createInterface({ input: child.stdout! })) {
    const parsed = JSON.parse(line) as { msg: string; service: string; url: string };
    assert.equal(parsed.service, 'erp', stderr);
    return { url: parsed.url, child, stop: () => (child.kill('SIGTERM'), exited) };
  }
  throw new Error(`erp-api exited before listening: ${stderr}`);
}
