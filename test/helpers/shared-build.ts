// The bundles of this checkout (build.mjs, as `npm run build` makes them), built once and shared by
// every test file that runs them, instead of one build per file: a build is seconds of CPU, and a
// dozen files need one. The build sits in the temporary directory under a key of everything that
// goes into it (the sources build.mjs reads and the version it stamps), so a changed source gets a
// build of its own and a file never runs stale bundles. Files running side by side may both build
// it; each builds into a directory of its own and renames it into place, so neither sees a half one.
// Tests only read the build; a test that changes a bundle copies it first.

import { createHash } from 'node:crypto';
import { existsSync, globSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// @ts-ignore -- build.mjs is plain JavaScript without declarations.
import { build, versionTruth } from '../../build.mjs';

const ROOT = join(import.meta.dirname, '..', '..');
const PREFIX = 'airlock-test-build-';
/** The run's temporary directory, not the scratch one each test process gets (scratch-tmpdir.ts). */
const sharedTmpdir = () => process.env['AIRLOCK_TEST_SHARED_TMPDIR'] ?? tmpdir();
/** Builds nobody used for this long are removed when a new one is made (each is tens of MB). */
const UNUSED_MS = 6 * 60 * 60 * 1000;

/** Everything a build depends on: the sources it bundles or runs, and the version it stamps. */
function buildKey(): string {
  const hash = createHash('sha256');
  const { version, revision } = versionTruth(ROOT) as { version: string; revision: string };
  hash.update(`${version}\0${revision}\0`);
  const files = ['build.mjs', 'package.json', ...globSync('{src,scripts,delivery}/**/*', { cwd: ROOT })].sort();
  for (const file of files) {
    const path = join(ROOT, file);
    if (!statSync(path).isFile()) continue;
    hash.update(`${file}\0`).update(readFileSync(path)).update('\0');
  }
  return hash.digest('hex').slice(0, 24);
}

function pruneUnused(keep: string): void {
  for (const name of readdirSync(sharedTmpdir())) {
    if (!name.startsWith(PREFIX) || name === keep) continue;
    const path = join(sharedTmpdir(), name);
    try {
      if (Date.now() - statSync(path).mtimeMs > UNUSED_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // Another run removed it first: nothing left to do.
    }
  }
}

let built: Promise<string> | undefined;

/** The directory holding bin/ and package-metadata.json of this checkout's build; read-only. */
export function sharedBuild(): Promise<string> {
  built ??= (async () => {
    const name = `${PREFIX}${buildKey()}`;
    const dir = join(sharedTmpdir(), name);
    if (existsSync(join(dir, 'package-metadata.json'))) {
      const now = new Date();
      utimesSync(dir, now, now); // in use: not pruned
      return dir;
    }
    const work = mkdtempSync(join(sharedTmpdir(), `${name}.work-`));
    await build({ root: ROOT, outdir: work });
    try {
      renameSync(work, dir);
    } catch (error) {
      // Another file renamed its build into place first: the same bytes, so use that one.
      rmSync(work, { recursive: true, force: true });
      if (!existsSync(join(dir, 'package-metadata.json'))) throw error;
    }
    pruneUnused(name);
    return dir;
  })();
  return built;
}
