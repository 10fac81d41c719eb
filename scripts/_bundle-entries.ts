// Which files become shipped commands, and under what names: build.mjs bundles exactly these,
// and the verifiers that inventory commands (docs, QA registry) read the same rule from here.
//
// src/<svc>/main.ts -> <svc>-api; src/<svc>/main-<role>.ts -> <svc>-<role>;
// scripts/<name>.ts -> <name> (files starting with "_" are libraries).

import { existsSync, readdirSync, statSync } from 'node:fs';
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
  const src = join(root, 'src');
  for (const service of existsSync(src) ? readdirSync(src).sort() : []) {
    if (service === 'kernel' || !statSync(join(src, service)).isDirectory()) continue;
    for (const file of readdirSync(join(src, service)).sort()) {
      const role = /^main(?:-([a-z0-9-]+))?\.ts$/.exec(file);
      if (role) entries.push({ name: `${service}-${role[1] ?? 'api'}`, source: join(src, service, file) });
    }
  }
  const scripts = join(root, 'scripts');
  for (const file of existsSync(scripts) ? readdirSync(scripts).sort() : []) {
    if (!file.endsWith('.ts') || file.startsWith('_') || NOT_BUNDLED.includes(file)) continue;
    entries.push({ name: basename(file, '.ts'), source: join(scripts, file) });
  }
  const seen = new Set<string>();
  for (const { name } of entries) {
    if (seen.has(name)) throw new Error(`Two entries bundle to "${name}.mjs": rename one`);
    seen.add(name);
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : 1));
}
