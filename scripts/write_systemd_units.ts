// write_systemd_units: the hardened systemd units of an installed tree (one per executable and
// role of configs/stack-contract.json, a timer per declared healthcheck), written into a folder
// only where their bytes differ. install_memory.sh uses it; the release archive carries the same
// units (delivery/units.ts) for install.sh.

import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { generateUnits } from '../delivery/units.ts';
import { defineCommand, EXIT_OK, main, usageError, writeFileAtomic } from '../src/kernel/index.ts';

const command = defineCommand({
  name: 'write_systemd_units',
  summary: 'Writes the hardened systemd units of every service role and healthcheck of the stack contract into a folder',
  description: [
    'Each unit runs as an unprivileged user in systemd\'s sandbox (read-only system, only its data directory writable,',
    'private /tmp and devices, loopback-only IP, no capabilities, a system-call filter): systemd-analyze security rates it OK.',
    'Units of the folder named airlock-*.service or .timer that the contract no longer has are removed.',
    'Prints "changed <file>" per unit written (or --json: {"ok":true,"units":[...],"changed":[...]}).',
  ].join('\n'),
  options: {
    root: { type: 'string', valueName: 'DIR', description: 'Folder holding configs/stack-contract.json and governance-manifest.json (default: two above this bundle)' },
    prefix: { type: 'string', valueName: 'DIR', description: 'Install prefix the units name (EnvironmentFile=<prefix>/etc/airlock.env)' },
    'data-dir': { type: 'string', valueName: 'DIR', description: 'Data directory: the parent of <service> folders, or with --shared-data-dir the one folder' },
    exec: { type: 'string', valueName: 'TEMPLATE', description: 'ExecStart before the arguments, {name} standing for the command (default: <prefix>/bin/airlock {name})' },
    'shared-data-dir': { type: 'boolean', description: 'One data directory and one user "airlock" for all services (when airlock.env sets AIRLOCK_DATA_DIR)' },
    out: { type: 'string', valueName: 'DIR', description: 'Where the units go' },
  },
  run({ values, json, print, printJson }) {
    const root = resolve(values.root ?? join(import.meta.dirname, '..', '..'));
    for (const name of ['prefix', 'data-dir', 'out'] as const) {
      const value = values[name];
      if (value === undefined) usageError(`Missing --${name}`);
      if (!value.startsWith('/') || /[\s"'$\\%]/.test(value)) usageError(`--${name} "${value}" must be an absolute path without spaces, quotes, $, % or backslashes`);
    }
    const read = (path: string) => {
      const file = join(root, path);
      if (!existsSync(file)) usageError(`Cannot read "${file}": give --root the folder of an install or checkout`);
      return JSON.parse(readFileSync(file, 'utf8')) as unknown;
    };
    const units = generateUnits(read('configs/stack-contract.json'), read('governance-manifest.json'), {
      prefix: values.prefix as string,
      dataDir: values['data-dir'] as string,
      ...(values.exec !== undefined && { exec: values.exec }),
      ...(values['shared-data-dir'] === true && { sharedDataDir: true }),
    });
    const out = values.out as string;
    mkdirSync(out, { recursive: true });
    const changed: string[] = [];
    for (const unit of units) {
      const path = join(out, unit.file);
      if (existsSync(path) && readFileSync(path, 'utf8') === unit.text) continue;
      writeFileAtomic(path, unit.text, { mode: 0o644 });
      changed.push(unit.file);
    }
    const wanted = new Set(units.map((u) => u.file));
    for (const file of readdirSync(out)) {
      if (/^airlock-.*\.(service|timer)$/.test(file) && !wanted.has(file)) {
        rmSync(join(out, file));
        changed.push(`removed ${file}`);
      }
    }
    if (json) printJson({ ok: true, units: units.map((u) => u.file), changed });
    else for (const file of changed) print(`changed ${file}`);
    return EXIT_OK;
  },
});

await main(command);
