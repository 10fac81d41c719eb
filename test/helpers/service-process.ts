// A service or operator command run from the checkout as its own process, as an operator runs
// it: for the restore tests, where a service must die (SIGKILL: the host is lost), its data
// directory go, and evidence_restore rebuild it before the service starts again.

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export const ROOT = join(import.meta.dirname, '..', '..');

export interface ServiceProcess {
  /** Each listener's URL, by the listener name its `listening` line gives. */
  urls: Record<string, string>;
  child: ChildProcess;
  /** Sends `signal` (SIGTERM drains, SIGKILL is a lost host) and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts `node <entry> --listen 127.0.0.1:0` with only `env` (and PATH), and waits for its
 * `listening` lines: `listeners` of them.
 */
export async function startServiceProcess(entry: string, options: { env: Record<string, string>; listeners?: number; args?: readonly string[] }): Promise<ServiceProcess> {
  const args = options.args ?? ['--listen', '127.0.0.1:0'];
  const child = spawn(process.execPath, [join(ROOT, entry), ...args], { env: { PATH: process.env['PATH'] ?? '', ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const urls: Record<string, string> = {};
  const wanted = options.listeners ?? 1;
  for await (const line of createInterface({ input: child.stdout! })) {
    const parsed = JSON.parse(line) as { msg: string; listener?: string; service: string; url: string };
    if (parsed.msg !== 'listening') continue;
    urls[parsed.listener ?? parsed.service] = parsed.url;
    if (Object.keys(urls).length === wanted) {
      return {
        urls,
        child,
        stop: (signal = 'SIGTERM') => {
          if (child.exitCode === null) child.kill(signal);
          return exited;
        },
      };
    }
  }
  throw new Error(`${entry} exited before listening: ${stderr}`);
}

/** Runs `node <entry> ...args` (a path from the checkout's root, e.g. scripts/evidence_restore.ts) to its end. */
export function runEntry(entry: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, entry), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.on('exit', (code) => resolve({ status: code ?? -1, stdout, stderr }));
  });
}

/** The environment that turns sync replication on against `natsUrl` (one server: one replica). */
export function syncReplicationEnv(natsUrl: string): Record<string, string> {
  return { AIRLOCK_EVIDENCE_REPLICATION: 'sync', AIRLOCK_EVIDENCE_NATS_URL: natsUrl, AIRLOCK_EVIDENCE_REPLICAS: '1' };
}
