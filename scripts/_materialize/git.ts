// Runs git for the materializer: always `git -C <repo>`, never a shell, and without the
// caller's GIT_* variables so that GIT_DIR or GIT_INDEX_FILE from a hook cannot point the
// checks at another repository than the one named.

import { spawnSync } from 'node:child_process';
import { AirlockError } from '../../src/kernel/index.ts';

export interface GitResult {
  status: number;
  stdout: Buffer;
  stderr: string;
}

/** Runs `git -C repo ...args`; throws AirlockError('environment') only when git cannot run at all. */
export function runGit(repo: string, args: readonly string[]): GitResult {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('GIT_')));
  const result = spawnSync('git', ['-C', repo, ...args], { env: { ...env, GIT_TERMINAL_PROMPT: '0' }, maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw new AirlockError('environment', `Cannot run git: ${result.error.message}`, { cause: result.error });
  return { status: result.status ?? 128, stdout: result.stdout, stderr: result.stderr.toString('utf8').trim() };
}
