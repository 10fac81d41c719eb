// npm run release: dist/release/airlock-<version>-linux-<arch>.tar.gz, the same bytes for the
// same commit. It holds bin/airlock (the standalone binary on the pinned Node), the per-command
// bundles, contracts/, configs/, governance-manifest.json, README.md and docs/, the systemd units
// of every executable and healthcheck, install.sh, an SBOM (CycloneDX 1.5) and SHA256SUMS.

import { execFileSync } from 'node:child_process';
import { hash } from 'node:crypto';
import { existsSync, globSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import * as esbuild from 'esbuild';
// @ts-ignore -- build.mjs is plain JavaScript without declarations.
import { build, buildSea } from '../build.mjs';
import { buildSbom } from './sbom.ts';
import { tarGzip, type TarEntry } from './tar.ts';
import { verifyNode } from './toolchain.ts';
import { generateUnits, PLACEHOLDERS } from './units.ts';

const ROOT = join(import.meta.dirname, '..');

interface ReleaseFile {
  path: string;
  bytes: Uint8Array;
  mode: number;
}

/** Files under `dir` (relative to root), recursively, sorted. */
export function filesUnder(root: string, dir: string): string[] {
  // fs.globSync's `**` skips dot-files and dot-folders (an editor's .swp, a .DS_Store) that a
  // recursive readdir would have shipped in the archive.
  return globSync(`${dir}/**`, { cwd: root, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .sort();
}

/** Seconds since the epoch of HEAD's commit (the archive's mtimes), or 0 outside git. */
function commitTime(root: string): number {
  try {
    return Number(execFileSync('git', ['log', '-1', '--format=%ct'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()) || 0;
  } catch {
    return 0;
  }
}

export async function release(options: { root?: string; outdir?: string } = {}): Promise<{ archive: string; files: ReleaseFile[]; version: string; sha256: string }> {
  const root = options.root ?? ROOT;
  const outdir = options.outdir ?? join(root, 'dist');
  if (process.platform !== 'linux') throw new Error(`Releases are made for linux; this is ${process.platform}`);
  const node = verifyNode();
  const metadata = (await build({ root, outdir })) as { version: string; revision: string; inputs: string[] };
  const [binary] = buildSea({ outdir }) as string[];
  const mtime = commitTime(root);
  const files: ReleaseFile[] = [];
  const add = (path: string, bytes: Uint8Array, mode = 0o644) => files.push({ path, bytes, mode });
  add('bin/airlock', readFileSync(binary as string), 0o755);
  for (const name of readdirSync(join(outdir, 'bin')).sort()) add(`dist/bin/${name}`, readFileSync(join(outdir, 'bin', name)), name.endsWith('.mjs') ? 0o755 : 0o644);
  add('dist/package-metadata.json', readFileSync(join(outdir, 'package-metadata.json')));
  for (const path of [...filesUnder(root, 'contracts'), ...filesUnder(root, 'configs'), 'governance-manifest.json', 'README.md', ...filesUnder(root, 'docs')]) {
    add(path, readFileSync(join(root, path)));
  }
  const stack = JSON.parse(readFileSync(join(root, 'configs', 'stack-contract.json'), 'utf8')) as unknown;
  const manifest = JSON.parse(readFileSync(join(root, 'governance-manifest.json'), 'utf8')) as unknown;
  for (const unit of generateUnits(stack, manifest, PLACEHOLDERS)) add(`systemd/${unit.file}`, Buffer.from(unit.text));
  add('install.sh', readFileSync(join(import.meta.dirname, 'install.sh')), 0o755);
  const sbom = buildSbom({
    root,
    version: metadata.version,
    revision: metadata.revision,
    timestamp: new Date(mtime * 1000).toISOString(),
    node: { version: node.version, platform: node.platform, sha256: node.sha256 },
    inputs: metadata.inputs,
    esbuildVersion: esbuild.version,
  });
  add('sbom.cdx.json', Buffer.from(`${JSON.stringify(sbom, null, 2)}\n`));
  files.sort((a, b) => (a.path < b.path ? -1 : 1));
  const sums = files.map((f) => `${hash('sha256', f.bytes, 'hex')}  ${f.path}\n`).join('');
  files.push({ path: 'SHA256SUMS', bytes: Buffer.from(sums), mode: 0o644 });

  const base = `airlock-${metadata.version}-linux-${process.arch}`;
  const dirs = new Set<string>([base]);
  for (const file of files) for (let d = dirname(file.path); d !== '.'; d = dirname(d)) dirs.add(`${base}/${d}`);
  const entries: TarEntry[] = [
    ...[...dirs].map((path) => ({ path, mode: 0o755 })),
    ...files.map((f) => ({ path: `${base}/${f.path}`, bytes: f.bytes, mode: f.mode })),
  ].sort((a, b) => (a.path < b.path ? -1 : 1));
  const archive = join(outdir, 'release', `${base}.tar.gz`);
  // One archive in the folder: the one of this commit.
  rmSync(dirname(archive), { recursive: true, force: true });
  mkdirSync(dirname(archive), { recursive: true });
  writeFileSync(archive, tarGzip(entries, mtime));
  return { archive, files, version: metadata.version, sha256: writeChecksum(archive) };
}

/**
 * Writes `<archive>.sha256` beside the archive in `sha256sum` format (`sha256sum -c` checks it in
 * that folder) and returns the hex digest: the value an operator compares on the air-gapped host.
 */
export function writeChecksum(archive: string): string {
  const digest = hash('sha256', readFileSync(archive), 'hex');
  writeFileSync(`${archive}.sha256`, `${digest}  ${basename(archive)}\n`);
  return digest;
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    process.stdout.write('Usage: npm run release\n\nBuilds the bundles and the standalone binary on the pinned Node, then writes\ndist/release/airlock-<version>-linux-<arch>.tar.gz (the same bytes for the same commit),\nprints its SHA-256 and writes it beside the archive as <archive>.sha256.\nExit codes: 0 written, 1 failed\n');
  } else {
    const started = performance.now();
    try {
      const { archive, files, sha256 } = await release();
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      process.stdout.write(`Wrote ${relative(process.cwd(), archive)} (${files.length} files, ${(statSync(archive).size / 1e6).toFixed(1)} MB) in ${seconds} s\n`);
      process.stdout.write(`SHA-256 ${sha256}  (also in ${relative(process.cwd(), archive)}.sha256; compare it on the target host with sha256sum -c)\n`);
    } catch (error) {
      process.stderr.write(`release: ${(error as Error).message}\n`);
      process.exitCode = 1;
    }
  }
}
