#!/usr/bin/env node
// Bundles every service entry (src/<service>/main.ts, main-<role>.ts) and every verifier
// (scripts/*.ts) into one ESM file each under dist/bin/, plus dist/bin/airlock.mjs holding all
// of them (delivery/airlock-bundle.ts), refuses any bundle that imports something other than a
// node: built-in, and writes dist/package-metadata.json. Each bundle starts with the prologue of
// delivery/prologue.ts (Node >= 24 or one line and exit 2; JSON-only stderr).
// `--sea` also makes the standalone binary dist/sea/airlock with `node --build-sea`, on the Node
// binary pinned in toolchain/node-sha256.json only; `--only NAME` makes dist/sea/NAME instead.
//
// Names: src/<svc>/main.ts -> <svc>-api.mjs; src/<svc>/main-<role>.ts -> <svc>-<role>.mjs;
// scripts/<name>.ts -> <name>.mjs (files starting with "_" are libraries, not commands).

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import * as esbuild from 'esbuild';
import { airlockSource, bundleBodies, commandSummaries, seaParts } from './delivery/airlock-bundle.ts';
import { builtinsAsGlobals, prologueSource } from './delivery/prologue.ts';
import { verifyNode } from './delivery/toolchain.ts';
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
  const define = { AIRLOCK_BUILD_VERSION: JSON.stringify(version) };
  let inputs = [];
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
      banner: { js: `#!/usr/bin/env node\n${prologueSource()}` },
      define,
      plugins: [builtinsAsGlobals()],
      metafile: true,
      logLevel: 'warning',
    });
    const foreign = foreignImports(result.metafile);
    if (foreign.length > 0) {
      rmSync(binDir, { recursive: true, force: true });
      throw new Error(`Bundles may import only node: built-ins; found:\n${foreign.map((f) => `  ${f.output} imports "${f.path}"`).join('\n')}`);
    }
    for (const { name } of entries) chmodSync(join(binDir, `${name}.mjs`), 0o755);
    // Source files bundled (built-ins excluded: they are namespaced), for the release's SBOM.
    inputs = Object.keys(result.metafile.inputs).filter((path) => !path.includes(':')).sort();
    const bodies = await bundleBodies(root, entries, define);
    const summaries = await commandSummaries(binDir, entries.map((e) => e.name));
    const commands = entries.map(({ name }) => ({ name, summary: summaries.get(name) ?? '', body: bodies.get(name) ?? '' }));
    writeFileSync(join(binDir, 'airlock.mjs'), airlockSource(commands, version), { mode: 0o755 });
    chmodSync(join(binDir, 'airlock.mjs'), 0o755);
  }
  const files = readdirSync(binDir).sort().map((file) => {
    const bytes = readFileSync(join(binDir, file));
    return { path: `bin/${file}`, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
  });
  const metadata = { name: 'airlock', version, revision, entries: entries.map((e) => ({ name: e.name, source: relative(root, e.source) })), files };
  writeFileSync(join(outdir, 'package-metadata.json'), `${JSON.stringify(metadata, null, 2)}\n`);
  return { ...metadata, inputs };
}

/** Thrown for a usage mistake (exit 2), e.g. an unknown --only name. */
export class UsageError extends Error {}

/**
 * Makes dist/sea/airlock (every command) with `node --build-sea`, or with `names` one binary per
 * named bundle. The running Node is what gets embedded, so it must be the pinned one.
 */
export function buildSea({ outdir = join(ROOT, 'dist'), names, pinFile } = {}) {
  const binDir = join(outdir, 'bin');
  const available = readdirSync(binDir).filter((f) => f.endsWith('.mjs')).map((f) => basename(f, '.mjs'));
  const unknown = (names ?? []).filter((n) => !available.includes(n));
  if (unknown.length > 0) throw new UsageError(`--only names no bundle: ${unknown.map((n) => `"${n}"`).join(', ')} (bundles: ${available.join(', ')})`);
  verifyNode(pinFile ? { pinFile } : {});
  const seaDir = join(outdir, 'sea');
  mkdirSync(seaDir, { recursive: true });
  const made = [];
  for (const name of names ?? ['airlock']) {
    const work = join(seaDir, `${name}.work`);
    rmSync(work, { recursive: true, force: true });
    mkdirSync(work);
    let main = join(binDir, `${name}.mjs`);
    const assets = {};
    if (name === 'airlock') {
      // The dispatcher is the main script; each command is an asset read only when it runs.
      const parts = seaParts(readFileSync(main, 'utf8'));
      main = join(work, 'airlock-main.mjs');
      writeFileSync(main, parts.main);
      for (const [command, body] of parts.bodies) {
        assets[command] = join(work, `${command}.js`);
        writeFileSync(assets[command], body);
      }
    }
    const configPath = join(work, 'sea.json');
    const config = { main, mainFormat: 'module', output: join(seaDir, name), disableExperimentalSEAWarning: true, useCodeCache: false, useSnapshot: false, assets };
    writeFileSync(configPath, `${JSON.stringify(config, null, 2)}\n`);
    execFileSync(process.execPath, ['--build-sea', configPath], { stdio: ['ignore', 'ignore', 'inherit'] });
    rmSync(work, { recursive: true, force: true });
    made.push(join(seaDir, name));
  }
  return made;
}

if (import.meta.main) {
  let values;
  try {
    ({ values } = parseArgs({ options: { sea: { type: 'boolean' }, only: { type: 'string', multiple: true }, help: { type: 'boolean', short: 'h' } } }));
  } catch (error) {
    process.stderr.write(`build: ${error.message}; run node build.mjs --help\n`);
    process.exit(2);
  }
  if (values.help) {
    process.stdout.write('Usage: node build.mjs [--sea [--only NAME]...]\n\nBundles dist/bin/<name>.mjs for every service and verifier and dist/bin/airlock.mjs holding them all;\n--sea also makes the standalone binary dist/sea/airlock (--only NAME: dist/sea/NAME instead).\nRefuses a Node binary that does not match toolchain/node-sha256.json.\nExit codes: 0 built, 1 build failed, 2 usage error (e.g. --only names no bundle)\n');
  } else {
    try {
      // An unknown --only name is refused before anything is built.
      const known = [...listEntries().map((e) => e.name), 'airlock'];
      const unknown = (values.only ?? []).filter((n) => !known.includes(n));
      if (unknown.length > 0) throw new UsageError(`--only names no command: ${unknown.map((n) => `"${n}"`).join(', ')}; run node build.mjs without --sea to see the bundles in dist/bin`);
      verifyNode();
      const metadata = await build();
      process.stdout.write(`Built ${metadata.entries.length} bundles, version ${metadata.version}\n`);
      if (values.sea) for (const path of buildSea({ names: values.only })) process.stdout.write(`Made ${relative(ROOT, path)}\n`);
    } catch (error) {
      process.stderr.write(`build: ${error.message}\n`);
      process.exitCode = error instanceof UsageError ? 2 : 1;
    }
  }
}
