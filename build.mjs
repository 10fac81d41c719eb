#!/usr/bin/env node
// Bundles every service entry (src/<service>/main.ts, main-<role>.ts) and every verifier
// (scripts/*.ts) into one ESM file each under dist/bin/, refuses any bundle that imports
// something other than a node: built-in, and writes dist/package-metadata.json.
// `--sea` also makes standalone binaries under dist/sea/ with `node --build-sea`.
//
// Names: src/<svc>/main.ts -> <svc>-api.mjs; src/<svc>/main-<role>.ts -> <svc>-<role>.mjs;
// scripts/<name>.ts -> <name>.mjs (files starting with "_" are libraries, not commands).

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import * as esbuild from 'esbuild';
import { listEntries as listEntriesIn } from './scripts/_bundle-entries.ts';

const ROOT = import.meta.dirname;
/** Every entry to bundle: { name, source } sorted by name (the rule lives in scripts/_bundle-entries.ts). */
export function listEntries(root = ROOT) {
  return listEntriesIn(root);
}

/** Imports in an esbuild metafile that are not node: built-ins: [{ output, path }]. */
export function foreignImports(metafile) {
  const found = [];
  for (const [output, info] of Object.entries(metafile.outputs)) {
    for (const entry of info.imports) {
      if (!entry.path.startsWith('node:')) found.push({ output, path: entry.path });
    }
  }
  return found;
}

/** v0.x.y when HEAD carries such a tag, else 0.0.0+<shortsha>, else 0.0.0+unknown. */
export function versionTruth(root = ROOT) {
  const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  let revision = 'unknown';
  try {
    revision = git('rev-parse', 'HEAD');
  } catch {
    return { version: '0.0.0+unknown', revision };
  }
  const tags = git('tag', '--points-at', 'HEAD').split('\n').filter((t) => /^v0\.\d+\.\d+$/.test(t)).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  return { version: tags.at(-1) ?? `0.0.0+${revision.slice(0, 7)}`, revision };
}

export async function build({ outdir = join(ROOT, 'dist'), root = ROOT } = {}) {
  const binDir = join(outdir, 'bin');
  rmSync(binDir, { recursive: true, force: true });
  mkdirSync(binDir, { recursive: true });
  const entries = listEntries(root);
  const { version, revision } = versionTruth(root);
  if (entries.length > 0) {
    const result = await esbuild.build({
      absWorkingDir: root,
      entryPoints: Object.fromEntries(entries.map((e) => [e.name, relative(root, e.source)])),
      outdir: binDir,
      outExtension: { '.js': '.mjs' },
      bundle: true,
      // Bare imports stay external so the check below names them instead of inlining them.
      packages: 'external',
      platform: 'node',
      format: 'esm',
      target: 'node24',
      sourcemap: 'linked',
      legalComments: 'none',
      banner: { js: '#!/usr/bin/env node' },
      define: { AIRLOCK_BUILD_VERSION: JSON.stringify(version) },
      metafile: true,
      logLevel: 'warning',
    });
    const foreign = foreignImports(result.metafile);
    if (foreign.length > 0) {
      rmSync(binDir, { recursive: true, force: true });
      throw new Error(`Bundles may import only node: built-ins; found:\n${foreign.map((f) => `  ${f.output} imports "${f.path}"`).join('\n')}`);
    }
    for (const { name } of entries) chmodSync(join(binDir, `${name}.mjs`), 0o755);
  }
  const files = readdirSync(binDir).sort().map((file) => {
    const bytes = readFileSync(join(binDir, file));
    return { path: `bin/${file}`, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
  });
  const metadata = { name: 'airlock', version, revision, entries: entries.map((e) => ({ name: e.name, source: relative(root, e.source) })), files };
  writeFileSync(join(outdir, 'package-metadata.json'), `${JSON.stringify(metadata, null, 2)}\n`);
  return metadata;
}

/** Makes dist/sea/<name> for each bundle with `node --build-sea` (the running Node's binary). */
export function buildSea({ outdir = join(ROOT, 'dist'), names } = {}) {
  const seaDir = join(outdir, 'sea');
  mkdirSync(seaDir, { recursive: true });
  const made = [];
  for (const file of readdirSync(join(outdir, 'bin')).sort()) {
    if (!file.endsWith('.mjs')) continue;
    const name = basename(file, '.mjs');
    if (names && !names.includes(name)) continue;
    const configPath = join(seaDir, `${name}.sea.json`);
    const config = { main: join(outdir, 'bin', file), mainFormat: 'module', output: join(seaDir, name), disableExperimentalSEAWarning: true, useCodeCache: false, useSnapshot: false };
    writeFileSync(configPath, `${JSON.stringify(config, null, 2)}\n`);
    execFileSync(process.execPath, ['--build-sea', configPath], { stdio: ['ignore', 'ignore', 'inherit'] });
    rmSync(configPath);
    made.push(join(seaDir, name));
  }
  return made;
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { sea: { type: 'boolean' }, only: { type: 'string', multiple: true }, help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    process.stdout.write('Usage: node build.mjs [--sea [--only NAME]...]\n\nBundles dist/bin/<name>.mjs for every service and verifier; --sea also makes dist/sea/<name> standalone binaries.\n');
  } else {
    try {
      const metadata = await build();
      process.stdout.write(`Built ${metadata.entries.length} bundles, version ${metadata.version}\n`);
      if (values.sea) for (const path of buildSea({ names: values.only })) process.stdout.write(`Made ${relative(ROOT, path)}\n`);
    } catch (error) {
      process.stderr.write(`build: ${error.message}\n`);
      process.exitCode = 1;
    }
  }
}
