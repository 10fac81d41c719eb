import { test } from 'node:test';
import assert from 'node:assert/strict';
import { globSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { REPO } from './_fixtures.ts';

/** Each file's relative imports (type-only ones too: a circle of types is still a circle), within `files`. */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  return new Map(files.map((file) => {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(/^(?:import|export)\b[^'";]*?\bfrom\s+'(\.{1,2}\/[^']+)'/gm)].map((m) => resolve(dirname(file), m[1]!));
    return [file, targets.filter((t) => known.has(t))];
  }));
}

/** The import circles of a graph: one path per circle, each starting at its first file in sort order. */
function circles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'active' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'active');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'active') found.push(stack.slice(stack.indexOf(next)));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return found;
}

for (const folder of ['src/governance', 'src/kernel/schema']) {
  test(`${folder} has no import circle: shared types go down into a file both sides import`, () => {
    const files = globSync(`${folder}/**/*.ts`, { cwd: REPO }).map((f) => join(REPO, f));
    assert.ok(files.length > 10, `${folder} holds its files`);
    assert.deepEqual(circles(importGraph(files)).map((c) => c.map((f) => relative(REPO, f)).join(' -> ')), []);
  });
}

test('circles() finds a circle of type-only imports', () => {
  const graph = new Map([['/a.ts', ['/b.ts']], ['/b.ts', ['/c.ts']], ['/c.ts', ['/a.ts']], ['/d.ts', ['/a.ts']]]);
  assert.deepEqual(circles(graph), [['/a.ts', '/b.ts', '/c.ts']]);
});
