// Runs the executor command on one issue (sh -c CMD, the issue as JSON on stdin and in
// SCAN_ISSUE_* variables) under a time limit; on expiry the whole process group is killed.

import { spawn } from 'node:child_process';
import type { Issue } from './issues.ts';

/** Seed 002 "Limits": the executor's timeout for full review prompts is at least 90 seconds. */
export const MIN_EXECUTOR_TIMEOUT_SECONDS = 90;

export interface Outcome {
  number: number;
  title: string;
  outcome: 'succeeded' | 'failed' | 'timed_out';
  exit_code: number | null;
  duration_ms: number;
  started_at: string;
  output_tail: string;
}

export function runExecutor(command: string, issue: Issue, options: { timeoutMs: number; env: NodeJS.ProcessEnv }): Promise<Outcome> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', command], {
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...options.env, SCAN_ISSUE_NUMBER: String(issue.number), SCAN_ISSUE_TITLE: issue.title, SCAN_ISSUE_URL: issue.url, SCAN_ISSUE_LABELS: issue.labels.join(',') },
    });
    let output = '';
    const keep = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-4000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.stdin.on('error', () => undefined); // An executor that ignores stdin may close it early.
    child.stdin.end(JSON.stringify(issue));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL'); // The group is gone already; kill the child itself.
      }
    }, options.timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({
        number: issue.number,
        title: issue.title,
        outcome: timedOut ? 'timed_out' : code === 0 ? 'succeeded' : 'failed',
        exit_code: code,
        duration_ms: Date.now() - started,
        started_at: new Date(started).toISOString(),
        output_tail: output.slice(-1000),
      });
    });
  });
}
