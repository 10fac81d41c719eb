// DESIGN.md and STYLE.md: a service imports the kernel only and never another service. The dev
// wiring between services lives in scripts/_dev-wiring.ts, for npm start.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { globSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const IMPORT = /^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;

/** `[file, imported path]` for every relative import of `file` that leaves its service for another. */
function crossServiceImports(file: string): [string, string][] {
  const service = file.split('/')[1]!;
  const found: [string, string][] = [];
  for (const match of readFileSync(join(ROOT, file), 'utf8').matchAll(IMPORT)) {
    const specifier = match[1] ?? match[2] ?? match[3]!;
    if (!specifier.startsWith('.')) continue;
    const target = relative(ROOT, resolve(ROOT, dirname(file), specifier));
    const [top, owner] = target.split('/');
    if (top === 'src' && owner !== service && owner !== 'kernel') found.push([file, target]);
  }
  return found;
}

test('no service imports another service (src/<service>/** reaches only itself and src/kernel)', () => {
  const files = globSync('src/*/**/*.ts', { cwd: ROOT }).filter((file) => !file.startsWith('src/kernel/'));
  assert.ok(files.length > 100, 'the walk found the services');
  assert.deepEqual(files.flatMap(crossServiceImports), []);
});
