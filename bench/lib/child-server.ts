// Starts a server under test in its own process (so it has a core to itself, like in
// production) and reads its "listening" line from stdout.

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

export interface ChildServer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Runs `node <file>` with env; resolves once it printed {"msg":"listening","url":...}. */
export function startChildServer(file: string, env: Record<string, string> = {}): Promise<ChildServer> {
  // stderr goes to /dev/null: the access log writes a line per request (as it would to a journal),
  // which would drown the report. A server that fails to start still says so through its exit.
  // BENCH_CPU_PROF_DIR=<dir> writes a V8 CPU profile of each server (baseline included) there.
  const profile = process.env['BENCH_CPU_PROF_DIR'];
  const args = profile === undefined ? [file] : ['--cpu-prof', `--cpu-prof-dir=${profile}`, file];
  const child: ChildProcess = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'ignore'] });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const onExit = (code: number | null) => reject(new Error(`Bench server "${file}" exited with ${code} before listening`));
    child.once('exit', onExit);
    lines.on('line', (line) => {
      let parsed: { msg?: string; url?: string };
      try {
        parsed = JSON.parse(line) as { msg?: string; url?: string };
      } catch {
        return; // Not the listening line: servers may print other things first.
      }
      if (parsed.msg !== 'listening' || parsed.url === undefined) return;
      child.off('exit', onExit);
      lines.close();
      resolve({
        url: parsed.url,
        pid: child.pid!,
        stop: () => new Promise<void>((done) => {
          if (child.exitCode !== null) return done();
          child.once('exit', () => done());
          child.kill('SIGTERM');
        }),
      });
    });
  });
}

/**
 * CPU time (user + system) a process has used, in milliseconds, from /proc (Linux; undefined
 * elsewhere). On a busy machine requests/s says how much CPU the server got; CPU per request says
 * what it needed.
 */
export function cpuMs(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime, in clock ticks of 1/100 s on Linux.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}
