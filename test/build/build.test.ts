import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import * as esbuild from 'esbuild';
// @ts-ignore -- build.mjs is plain JavaScript without declarations.
import { build, foreignImports, listEntries, versionTruth } from '../../build.mjs';

const ROOT = join(import.meta.dirname, '..', '..');

function tempRoot(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'airlock-build-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

test('listEntries() names service mains <svc>-api and <svc>-<role>, scripts by file, skipping libraries', () => {
  const root = tempRoot({
    'src/kernel/index.ts': '',
    'src/semantic/main.ts': '',
    'src/semantic/main-worker.ts': '',
    'src/semantic/routes.ts': '',
    'scripts/check_things.ts': '',
    'scripts/_shared.ts': '',
    'scripts/start.ts': '',
    'scripts/run.sh': '',
  });
  try {
    assert.deepEqual(listEntries(root).map((e: { name: string }) => e.name), ['check_things', 'semantic-api', 'semantic-worker']);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('build() bundles executables with a shebang and source map, and is reproducible', async () => {
  const root = tempRoot({
    'src/demo/main.ts': "import { hostname } from 'node:os';\nimport { greet } from './greet.ts';\nconsole.log(greet(hostname()));\n",
    'src/demo/greet.ts': 'export function greet(name: string): string { return `hello ${name}`; }\n',
  });
  try {
    const first = await build({ root, outdir: join(root, 'dist') });
    const bundle = join(root, 'dist', 'bin', 'demo-api.mjs');
    const text = readFileSync(bundle, 'utf8');
    assert.ok(text.startsWith('#!/usr/bin/env node\n'));
    // The Node-version prologue runs first: no static import may be linked before it.
    assert.ok(text.indexOf('needs Node.js 24 or newer') < text.indexOf('process.getBuiltinModule("node:os")'));
    assert.doesNotMatch(text, /^import /m);
    assert.match(text, /\/\/# sourceMappingURL=demo-api\.mjs\.map/);
    assert.equal(statSync(bundle).mode & 0o111, 0o111, 'executable bit');
    assert.deepEqual(first.files.map((f: { path: string }) => f.path), ['bin/airlock.mjs', 'bin/demo-api.mjs', 'bin/demo-api.mjs.map']);
    assert.equal(first.version, '0.0.0+unknown');
    assert.match(execFileSync(process.execPath, [bundle], { encoding: 'utf8' }), /^hello /);
    const second = await build({ root, outdir: join(root, 'dist') });
    assert.deepEqual(second, first, 'same sources, same bytes and hashes');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('build() refuses a bundle that imports a package', async () => {
  const root = tempRoot({ 'src/demo/main.ts': "import leftPad from 'left-pad';\nconsole.log(leftPad('x', 3));\n" });
  try {
    await assert.rejects(build({ root, outdir: join(root, 'dist') }), /Bundles may import only node: built-ins; found:\n {2}.*demo-api\.mjs imports "left-pad"/);
    assert.deepEqual(readdirSync(join(root, 'dist')), [], 'no half-checked bundles left behind');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('foreignImports() lists every non-node: import of a metafile', () => {
  const metafile = { outputs: { 'a.mjs': { imports: [{ path: 'node:fs' }, { path: 'fs' }, { path: 'pkg/x' }] } } };
  assert.deepEqual(foreignImports(metafile), [{ output: 'a.mjs', path: 'fs' }, { output: 'a.mjs', path: 'pkg/x' }]);
});

test('the project bundles import nothing but node: built-ins', async () => {
  const outdir = mkdtempSync(join(tmpdir(), 'airlock-dist-'));
  try {
    const metadata = await build({ root: ROOT, outdir });
    const bundles = (metadata.files as { path: string }[]).filter((f) => f.path.endsWith('.mjs')).map((f) => join(outdir, f.path));
    // Parse the finished bundles again, independently of the build's own check.
    const reparsed = await esbuild.build({ entryPoints: bundles, bundle: true, write: false, metafile: true, packages: 'external', platform: 'node', format: 'esm', outdir: join(outdir, 'reparsed'), logLevel: 'silent' });
    for (const [output, info] of Object.entries(reparsed.metafile.outputs)) {
      for (const entry of info.imports) assert.ok(entry.path.startsWith('node:'), `${output} imports "${entry.path}"`);
    }
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
});

test('versionTruth() picks the highest v0.x.y tag on HEAD numerically, else 0.0.0+<shortsha>', async () => {
  const root = mkdtempSync(join(tmpdir(), 'airlock-version-'));
  const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } }).trim();
  try {
    git('init', '-q', '-b', 'main');
    git('commit', '-q', '--allow-empty', '-m', 'one');
    const sha = git('rev-parse', 'HEAD');
    assert.deepEqual(versionTruth(root), { version: `0.0.0+${sha.slice(0, 7)}`, revision: sha });
    git('tag', 'v0.9.0');
    git('tag', 'v0.10.0');
    git('tag', 'v1.0.0-rc');
    assert.equal(versionTruth(root).version, 'v0.10.0');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
