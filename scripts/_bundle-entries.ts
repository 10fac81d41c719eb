// Which files become shipped commands, and under what names: build.mjs bundles exactly these,
// and the verifiers that inventory commands (docs, QA registry) read the same rule from here.
//
// src/<svc>/main.ts -> <svc>-api; src/<svc>/main-<role>.ts -> <svc>-<role>;
// scripts/<name>.ts -> <name> (files starting with "_" are libraries).

import { globSync } from 'node:fs';
import { basename, join } from 'node:path';

/** dist/bin/airlock.mjs (and the release's bin/airlock): every entry in one executable, made by build.mjs. */
export const ALL_IN_ONE = 'airlock';

/** Scripts that work on a checkout (sources, manifests), not shipped commands. */
export const NOT_BUNDLED: readonly string[] = ['start.ts', 'write_contracts.ts'];

export interface BundleEntry {
  /** dist/bin/<name>.mjs */
  name: string;
  /** Absolute path of the source file. */
  source: string;
}

/** Every entry to bundle under `root`, sorted by name; throws when two would share a name. */
export function listEntries(root: string): BundleEntry[] {
  const entries: BundleEntry[] = [];
  for (const file of globSync('src/*/main*.ts', { cwd: root })) {
    const [, service, name] = file.split('/') as [string, string, string];
    const role = /^main(?:-([a-z0-9-]+))?\.ts$/.exec(name);
    if (role && service !== 'kernel') entries.push({ name: `${service}-${role[1] ?? 'api'}`, source: join(root, file) });
  }
  for (const file of globSync('scripts/*.ts', { cwd: root })) {
    const name = basename(file);
    if (name.startsWith('_') || NOT_BUNDLED.includes(name)) continue;
    entries.push({ name: basename(name, '.ts'), source: join(root, file) });
  }
  const seen = new Set<string>();
  for (const { name } of entries) {
    if (seen.has(name)) throw new Error(`Two entries bundle to "${name}.mjs": rename one`);
    seen.add(name);
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : 1));
}
