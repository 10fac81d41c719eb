// dist/bin/airlock.mjs: every command in one file. Each command is bundled on its own (no
// imports left: see prologue.ts) and stored as text in one block comment at the end of the file,
// which the parser skips at memchr speed; the dispatcher reads only the chosen command's bytes
// back from its own file and compiles them with `new AsyncFunction`. In the standalone binary
// the same texts are SEA assets (seaParts), so the others are never even read.
// The command is the link name (`ln -s airlock semantic-api`) or the first argument.

import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as esbuild from 'esbuild';
import type { BundleEntry } from '../scripts/_bundle-entries.ts';
import { builtinsAsGlobals, prologueSource } from './prologue.ts';

export interface EmbeddedCommand {
  name: string;
  /** One line for `airlock --help`. */
  summary: string;
  /** An AsyncFunction body taking `__airlock_meta` (what import.meta would be). */
  body: string;
}

const ENTRY_NAMESPACE = 'airlock-entry';
const AsyncFunction = (async () => {}).constructor as new (...args: string[]) => unknown;

/** Bundles each entry as an AsyncFunction body: no imports, no exports, import.meta from the dispatcher. */
export async function bundleBodies(root: string, entries: readonly BundleEntry[], define: Record<string, string>): Promise<Map<string, string>> {
  const bodies = new Map<string, string>();
  if (entries.length === 0) return bodies;
  const result = await esbuild.build({
    absWorkingDir: root,
    // A wrapper entry that only imports the command: a script's own exports are not re-exported.
    entryPoints: Object.fromEntries(entries.map((e) => [e.name, `${ENTRY_NAMESPACE}:${e.source}`])),
    outdir: join(root, 'airlock-bodies'),
    write: false,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node24',
    legalComments: 'none',
    define: {
      ...define,
      'import.meta.main': 'true',
      'import.meta.dirname': '__airlock_meta.dirname',
      'import.meta.filename': '__airlock_meta.filename',
      'import.meta.url': '__airlock_meta.url',
    },
    plugins: [
      builtinsAsGlobals(),
      {
        name: ENTRY_NAMESPACE,
        setup(build) {
          build.onResolve({ filter: new RegExp(`^${ENTRY_NAMESPACE}:`) }, (args) => ({ path: args.path.slice(ENTRY_NAMESPACE.length + 1), namespace: ENTRY_NAMESPACE }));
          build.onLoad({ filter: /.*/, namespace: ENTRY_NAMESPACE }, (args) => ({ contents: `import ${JSON.stringify(args.path)};\n`, loader: 'js', resolveDir: root }));
        },
      },
    ],
    logLevel: 'warning',
  });
  for (const file of result.outputFiles) {
    const name = file.path.slice(file.path.lastIndexOf('/') + 1).replace(/\.js$/, '');
    const body = `"use strict";\n${file.text}\n//# sourceURL=airlock/${name}.mjs\n`;
    try {
      // Compiling here (not running) proves no import, export or unknown import.meta is left.
      new AsyncFunction('__airlock_meta', body);
    } catch (error) {
      throw new Error(`airlock: the command "${name}" cannot be embedded: ${(error as Error).message}`);
    }
    bodies.set(name, body);
  }
  return bodies;
}

/** Each command's one-line summary: the first line after "Usage:" of its --help (kernel formatHelp and helpText both put it there). */
export async function commandSummaries(binDir: string, names: readonly string[], node = process.execPath): Promise<Map<string, string>> {
  const run = promisify(execFile);
  const summaries = new Map<string, string>();
  const queue = [...names];
  const worker = async () => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      const { stdout } = await run(node, [join(binDir, `${name}.mjs`), '--help'], { timeout: 20_000, env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/' } }).catch((error: Error) => {
        throw new Error(`${name} --help failed, so airlock cannot list it: ${error.message}`);
      });
      summaries.set(name, summaryOf(stdout));
    }
  };
  await Promise.all([worker(), worker()]);
  return summaries;
}

/**
 * The first paragraph after a leading "Usage:" line, its wrapped lines joined, up to its first
 * sentence end ("." or ";" before more text), or '' when the help has none.
 */
export function summaryOf(help: string): string {
  const lines = help.split('\n');
  if (!lines[0]?.startsWith('Usage:')) return '';
  const start = lines.findIndex((line, i) => i > 0 && line.trim() !== '');
  if (start < 0) return '';
  const end = lines.findIndex((line, i) => i > start && line.trim() === '');
  const paragraph = lines.slice(start, end < 0 ? undefined : end).map((line) => line.trim()).join(' ');
  const sentence = /[.;]\s+\S/.exec(paragraph);
  return sentence ? paragraph.slice(0, sentence.index) : paragraph;
}

/** Where the bodies start; a body's `*` + `/` is stored as `*`, NUL, `/` so the comment stays one. */
export const BODIES_MARKER = '\n/*AIRLOCK-BODIES\n';
const COMMENT_END = '*/';
const ESCAPED_END = '*\u0000/';

interface TableRow {
  summary: string;
  /** Bytes after BODIES_MARKER where the escaped body starts, and its length in bytes. */
  offset: number;
  length: number;
}

/** The source of airlock.mjs. */
export function airlockSource(commands: readonly EmbeddedCommand[], version: string): string {
  const table: Record<string, TableRow> = {};
  const stored: string[] = [];
  let offset = 0;
  for (const c of commands) {
    if (c.body.includes('\u0000')) throw new Error(`airlock: the command "${c.name}" holds a NUL character, which its storage escape uses: remove it`);
    const text = c.body.replaceAll(COMMENT_END, ESCAPED_END);
    const length = Buffer.byteLength(text);
    table[c.name] = { summary: c.summary, offset, length };
    stored.push(text);
    offset += length;
  }
  // The byte where the bodies start, written fixed-width so that writing it moves nothing.
  const head = (start: number) => `#!/usr/bin/env node\n${prologueSource()}\nconst VERSION = ${JSON.stringify(version)};\nconst BODIES_AT = ${String(start).padStart(12, ' ')};\nconst COMMANDS = ${JSON.stringify(table)};\n${DISPATCH}${BODIES_MARKER}`;
  const start = Buffer.byteLength(head(0));
  return `${head(start)}${stored.join('')}${COMMENT_END}\n`;
}

/** airlock.mjs split for a SEA: the dispatcher alone as main, and each command's body as an asset. */
export function seaParts(source: string): { main: string; bodies: Map<string, string> } {
  const at = source.indexOf(BODIES_MARKER);
  const row = /^const COMMANDS = (.*);$/m.exec(source);
  if (at < 0 || !row) throw new Error('Not an airlock.mjs made by this build: no command table or bodies');
  const table = JSON.parse(row[1] as string) as Record<string, TableRow>;
  const block = Buffer.from(source.slice(at + BODIES_MARKER.length));
  const bodies = new Map(Object.entries(table).map(([name, { offset, length }]) => [name, block.toString('utf8', offset, offset + length).replaceAll(ESCAPED_END, COMMENT_END)]));
  return { main: `${source.slice(0, at)}\n`, bodies };
}

// Kept as plain JavaScript: it is the start of airlock.mjs.
const DISPATCH = String.raw`
const { basename, dirname, join } = process.getBuiltinModule('node:path');
const { closeSync, openSync, readSync, realpathSync } = process.getBuiltinModule('node:fs');
const { fileURLToPath, pathToFileURL } = process.getBuiltinModule('node:url');
const sea = process.getBuiltinModule('node:sea');
const isSea = sea?.isSea() === true;
// Installed as <root>/bin/airlock (binary) or <root>/dist/bin/airlock.mjs beside the bundles.
const self = realpathSync(isSea ? process.execPath : fileURLToPath(import.meta.url));
const invokedAs = basename(isSea ? process.argv0 : String(process.argv[1] ?? '')).replace(/\.mjs$/, '');
// Only the chosen command's bytes are read: a SEA asset, or BODIES_AT + offset of this file.
const loadBody = (name) => {
  if (isSea) return sea.getAsset(name, 'utf8');
  const { offset, length } = COMMANDS[name];
  const bytes = Buffer.alloc(length);
  const fd = openSync(self, 'r');
  try {
    for (let done = 0; done < length;) done += readSync(fd, bytes, done, length - done, BODIES_AT + offset + done) || length;
  } finally {
    closeSync(fd);
  }
  return bytes.toString('utf8').replaceAll('*\0/', '*/');
};
const has = (name) => typeof name === 'string' && Object.hasOwn(COMMANDS, name);
const linked = has(invokedAs);
const name = linked ? invokedAs : process.argv[2];
const args = process.argv.slice(linked ? 2 : 3);
const usage = () => {
  const names = Object.keys(COMMANDS);
  const width = Math.max(...names.map((n) => n.length), 0) + 2;
  return 'Usage: airlock <command> [args]   (or a link named after the command: ln -s airlock semantic-api)\n\n' +
    'Every Airlock service and verifier in one executable (' + VERSION + '). "airlock <command> --help" shows a command\'s own help.\n\nCommands:\n' +
    names.map((n) => '  ' + n.padEnd(width) + COMMANDS[n].summary).join('\n') + '\n\nExit codes: 0 ok, 1 a check failed, 2 usage or environment error\n';
};
if (name === '--help' || name === '-h' || name === 'help') {
  if (args.includes('--json')) process.stdout.write(JSON.stringify({ ok: true, version: VERSION, commands: Object.keys(COMMANDS).map((n) => ({ name: n, summary: COMMANDS[n].summary })) }, null, 2) + '\n');
  else process.stdout.write(usage());
} else if (name === '--version') {
  process.stdout.write(VERSION + '\n');
} else if (!has(name)) {
  process.stderr.write(name === undefined ? usage() : 'airlock: unknown command "' + name + '"; run "airlock --help" for the list\n');
  process.exitCode = 2;
} else {
  // The command sees the import.meta its own bundle would: <root>/dist/bin/<name>.mjs.
  const filename = join(isSea ? join(dirname(dirname(self)), 'dist', 'bin') : dirname(self), name + '.mjs');
  process.argv = [process.argv[0], filename, ...args];
  const meta = { main: true, filename, dirname: dirname(filename), url: pathToFileURL(filename).href };
  const AsyncFunction = (async () => {}).constructor;
  await new AsyncFunction('__airlock_meta', loadBody(name))(meta);
}
`;
