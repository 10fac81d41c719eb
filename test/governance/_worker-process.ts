// The governance service as a child process (control-api role) on a given data directory, for
// tests that need real processes: SIGKILL at any instant, two processes on one database.

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { REPO, rootEnv } from './_fixtures.ts';
import { listenerEnv } from './_service.ts';
import { compileCache } from '../helpers/compile-cache.ts';

const MAIN = join(REPO, 'src', 'governance', 'main.ts');

/** Starts the service on `dataDir`; resolves with the child and its worker URL once it listens. */
export function startWorkerProcess(root: string, dataDir: string): Promise<{ child: ChildProcess; worker: string }> {
  const child = spawn(process.execPath, [MAIN, '--role', 'control-api'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env['PATH'] ?? '', ...compileCache(),
      ...rootEnv(root),
      AIRLOCK_DATA_DIR: dataDir,
      ...listenerEnv(),
    },
  });
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const line = stdout.split('\n').find((l) => l.includes('"listener":"worker"'));
      if (line) resolve({ child, worker: (JSON.parse(line) as { url: string }).url });
    });
    child.on('exit', (code, signal) => reject(new Error(`governance-api ended before listening (${code ?? signal}): ${stderr.slice(-2000)}`)));
  });
}

