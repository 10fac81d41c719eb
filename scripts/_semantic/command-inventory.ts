// Every command a checkout ships: the bundles, by the same rule build.mjs bundles with
// (scripts/_bundle-entries.ts), and each scripts/<name>.sh that is not a library. An install
// prefix (install_memory.sh) has no sources: its bundles are the files of dist/bin.

import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { listEntries } from '../_bundle-entries.ts';

export interface Command {
  /** As an operator types it: `semantic-api`, `check_docs_contract`, `bootstrap.sh`. */
  name: string;
  kind: 'bundle' | 'bash';
  source: string;
}

/** The commands of the checkout at `root`, sorted by name. */
export function listCommands(root: string): Command[] {
  const entries = listEntries(root);
  const commands: Command[] = isInstallPrefix(root)
    ? installedBundles(root)
    : entries.map(({ name, source }) => ({ name, kind: 'bundle', source: relative(root, source) }));
  const scripts = join(root, 'scripts');
  for (const file of existsSync(scripts) ? readdirSync(scripts).sort() : []) {
    if (file.startsWith('_') || !file.endsWith('.sh') || !statSync(join(scripts, file)).isFile()) continue;
    commands.push({ name: file, kind: 'bash', source: `scripts/${file}` });
  }
  return commands.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** True for a root with no bundle sources (an install_memory.sh prefix): its commands are its bundles. */
export function isInstallPrefix(root: string): boolean {
  return listEntries(root).length === 0;
}

/** The bundles of an install prefix: dist/bin/<name>.mjs. */
function installedBundles(root: string): Command[] {
  const bin = join(root, 'dist', 'bin');
  const files = existsSync(bin) ? readdirSync(bin).filter((f) => f.endsWith('.mjs')).sort() : [];
  return files.map((file) => ({ name: file.slice(0, -'.mjs'.length), kind: 'bundle', source: `dist/bin/${file}` }));
}
