// Release version truth (seed 000 "Versioning"): the v0.x.y tag, or 0.0.0+<shortsha>.
// Bundles get the value baked in by build.mjs; a checkout asks git once.

import { execFileSync } from 'node:child_process';

// Replaced by esbuild's `define` in bundles; undeclared (typeof "undefined") when run from source.
declare const AIRLOCK_BUILD_VERSION: string | undefined;

let cached: string | undefined;

/** The version this code reports in health documents and metadata. */
export function versionTruth(): string {
  if (cached !== undefined) return cached;
  if (typeof AIRLOCK_BUILD_VERSION === 'string') return (cached = AIRLOCK_BUILD_VERSION);
  cached = fromGit();
  return cached;
}

function fromGit(): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: import.meta.dirname, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  let revision: string;
  try {
    revision = git('rev-parse', 'HEAD');
  } catch {
    // Not a checkout and not a bundle: say so rather than invent a version.
    return '0.0.0+unknown';
  }
  const tags = git('tag', '--points-at', 'HEAD').split('\n').filter((t) => /^v0\.\d+\.\d+$/.test(t)).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  return tags.at(-1) ?? `0.0.0+${revision.slice(0, 7)}`;
}
