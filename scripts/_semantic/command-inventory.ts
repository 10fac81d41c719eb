// Every command a checkout ships, by the rules of build.mjs: src/<service>/main.ts is
// <service>-api, main-<role>.ts is <service>-<role>, scripts/<name>.ts is <name> (files starting
// with "_" are libraries; start.ts and write_contracts.ts work on a checkout and are not shipped),
// and each scripts/<name>.sh that is not a library. A test keeps this in step with build.mjs.

import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';

/** Scripts that work on a checkout, not shipped commands (build.mjs NOT_BUNDLED). */
export const CHECKOUT_SCRIPTS: readonly string[] = ['start.ts', 'write_contracts.ts'];

export interface Command {
  /** As an operator types it: `semantic-api`, `check_docs_contract`, `bootstrap.sh`. */
  name: string;
  kind: 'bundle' | 'bash';
  source: string;
}

/** The commands of the checkout at `root`, sorted by name. */
export function listCommands(root: string): Command[] {
  const commands: Command[] = [];
  const src = join(root, 'src');
  for (const service of existsSync(src) ? readdirSync(src).sort() : []) {
    if (service === 'kernel' || !statSync(join(src, service)).isDirectory()) continue;
    for (const file of readdirSync(join(src, service)).sort()) {
      const role = /^main(?:-([a-z0-9-]+))?\.ts$/.exec(file);
      if (role) commands.push({ name: `${service}-${role[1] ?? 'api'}`, kind: 'bundle', source: `src/${service}/${file}` });
    }
  }
  const scripts = join(root, 'scripts');
  for (const file of existsSync(scripts) ? readdirSync(scripts).sort() : []) {
    if (file.startsWith('_') || !statSync(join(scripts, file)).isFile()) continue;
    if (file.endsWith('.ts') && !CHECKOUT_SCRIPTS.includes(file)) commands.push({ name: basename(file, '.ts'), kind: 'bundle', source: `scripts/${file}` });
    if (file.endsWith('.sh')) commands.push({ name: file, kind: 'bash', source: `scripts/${file}` });
  }
  return commands.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
