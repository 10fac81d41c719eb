// Whether a --target may be materialized (seed 001 "Limits": an exact 40-character commit of
// main), checked against the repository with git rather than by the pattern alone. The result
// is data: exit 2 for a usage or environment problem, exit 1 for a target that is not admissible.

import { EXIT_FAILED, EXIT_USAGE } from '../../src/kernel/index.ts';
import { runGit } from './git.ts';

export const MAIN_REF = 'refs/heads/main';
const FULL_SHA = /^[0-9a-f]{40}$/;

export type TargetVerdict = { ok: true; commit: string } | { ok: false; exitCode: typeof EXIT_USAGE | typeof EXIT_FAILED; reasons: string[] };

/** Checks `target` in `repo`: format, main exists, the object is a commit, main contains it. */
export function verifyTarget(repo: string, target: string): TargetVerdict {
  if (!FULL_SHA.test(target)) {
    const hint = /^[0-9a-f]{4,39}$/i.test(target) ? 'an abbreviated id is not enough' : 'a branch, tag or expression is not accepted';
    return usage(`Target "${target}" is not an exact 40-character commit id (lowercase hex): ${hint}`);
  }
  const gitDir = runGit(repo, ['rev-parse', '--git-dir']);
  if (gitDir.status !== 0) return usage(`Repository "${repo}" is not a git repository: ${gitDir.stderr}`);
  const main = runGit(repo, ['rev-parse', '--verify', '--quiet', `${MAIN_REF}^{commit}`]);
  if (main.status !== 0) return usage(`Repository "${repo}" has no branch "main" (${MAIN_REF})`);
  const exists = runGit(repo, ['cat-file', '-e', `${target}^{commit}`]);
  if (exists.status !== 0) return refuse(`Target "${target}" is not a commit in repository "${repo}"`);
  const ancestor = runGit(repo, ['merge-base', '--is-ancestor', target, MAIN_REF]);
  if (ancestor.status === 1) return refuse(`Target "${target}" is not on main: main (${main.stdout.toString('utf8').trim()}) does not contain it`);
  if (ancestor.status !== 0) return usage(`Cannot check whether "${target}" is on main: ${ancestor.stderr}`);
  return { ok: true, commit: target };
}

function usage(reason: string): TargetVerdict {
  return { ok: false, exitCode: EXIT_USAGE, reasons: [reason] };
}

function refuse(reason: string): TargetVerdict {
  return { ok: false, exitCode: EXIT_FAILED, reasons: [reason] };
}
