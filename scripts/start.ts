// npm start: runs every executable of configs/stack-contract.json from this checkout on
// loopback, with embedded dev defaults (each service's src/<service>/dev-defaults.ts, if it has
// one: generated tokens in var/dev-secrets.json, sample artifacts), prints each listening URL and
// working curl lines. It stops everything on Ctrl-C, on SIGTERM or SIGINT to its own process
// (whose id it prints) and when its parent process ends. A service wired to another (ERP and
// agent-context to governance: scripts/_dev-wiring.ts) starts once that one listens. The URLs are
// the ones the services printed in their listening lines: when *_LISTEN moves a listener, the curl
// lines and the wiring follow it. Variables already set in the environment win over the defaults.
// Operators on a host without a checkout run the bundles instead.

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { DEV_WIRING, devWiring } from './_dev-wiring.ts';
import type { StartedPeer } from './_dev-wiring.ts';

/** How often npm start looks whether its parent process still runs. */
const PARENT_CHECK_MS = 250;

interface StackExecutable {
  name: string;
  role: string;
  source: string;
  args?: string[];
  listeners: { name: string; env: string; port: number; host?: string }[];
}
interface StackService {
  service: string;
  executables: StackExecutable[];
}
type DevDefaults = (varDir: string) => { env: Record<string, string>; curl: string[] };

const ROOT = resolve(import.meta.dirname, '..');
const contract = JSON.parse(readFileSync(join(ROOT, 'configs', 'stack-contract.json'), 'utf8')) as { services: StackService[] };
const varDir = resolve(process.env['AIRLOCK_DATA_DIR'] ?? join(ROOT, 'var'));

if (contract.services.length === 0) {
  process.stdout.write('No service in configs/stack-contract.json: nothing to start\n');
  process.exit(0);
}

/** The service's dev defaults, when src/<service>/dev-defaults.ts exports a *DevDefaults function. */
async function devDefaults(service: string): Promise<{ env: Record<string, string>; curl: string[] }> {
  const file = join(ROOT, 'src', service, 'dev-defaults.ts');
  if (!existsSync(file)) return { env: {}, curl: [] };
  const module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  const make = Object.entries(module).find(([name, value]) => name.endsWith('DevDefaults') && typeof value === 'function')?.[1] as DevDefaults | undefined;
  if (!make) throw new TypeError(`${file} exports no *DevDefaults function`);
  return make(varDir);
}

const children = new Set<ChildProcess>();
const curl: string[] = [];
/** Default base URL of a listener (what dev defaults print) -> the URL it actually bound. */
const bound = new Map<string, string>();
const listening: string[] = [];
let expectedLines = contract.services.reduce((n, s) => n + s.executables.reduce((m, e) => m + e.listeners.length, 0), 0);
let stopping = false;

// Every service's own defaults first (in contract order, so the curl lines keep their order), then
// each service starts once the services it is wired to (scripts/_dev-wiring.ts) are listening.
const defaults = new Map<string, { env: Record<string, string>; curl: string[] }>();
for (const service of contract.services) {
  const own = await devDefaults(service.service);
  defaults.set(service.service, own);
  curl.push(...own.curl.map((line) => `  ${line}`));
}
const up = new Map<string, { promise: Promise<StartedPeer>; resolve: (peer: StartedPeer) => void }>();
for (const service of contract.services) up.set(service.service, Promise.withResolvers<StartedPeer>());
for (const service of contract.services) void startService(service);

async function startService(service: StackService): Promise<void> {
  const after = DEV_WIRING[service.service]?.after ?? [];
  const peers = Object.fromEntries(await Promise.all(after.map(async (name) => {
    const peer = up.get(name);
    if (peer === undefined) throw new Error(`${service.service} is wired to "${name}", which configs/stack-contract.json does not run`);
    return [name, await peer.promise] as const;
  })));
  if (stopping) return;
  const env = { ...defaults.get(service.service)!.env, ...devWiring(service.service, peers) };
  const urls: Record<string, string> = {};
  let pending = service.executables.reduce((n, e) => n + e.listeners.length, 0);
  const onListening = (listener: string, url: string) => {
    urls[listener] = url;
    if (--pending === 0) up.get(service.service)!.resolve({ env, urls });
  };
  for (const executable of service.executables) {
    const label = `${executable.name}${executable.args?.length ? ` ${executable.role}` : ''}`;
    const child = spawn(process.execPath, [join(ROOT, executable.source), ...(executable.args ?? [])], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { AIRLOCK_DATA_DIR: varDir, ...env, ...process.env },
    });
    children.add(child);
    createInterface({ input: child.stdout! }).on('line', (line) => onStdout(label, executable, line, onListening));
    createInterface({ input: child.stderr! }).on('line', (line) => process.stderr.write(`[${label}] ${line}\n`));
    child.on('exit', (code, signal) => {
      children.delete(child);
      if (!stopping) {
        process.stderr.write(`[${label}] exited (${signal ?? code}); stopping the stack\n`);
        stop(1);
      } else if (children.size === 0) process.exit(process.exitCode ?? 0);
    });
  }
}

function onStdout(label: string, executable: StackExecutable, line: string, onListening: (listener: string, url: string) => void): void {
  let parsed: { msg?: string; url?: string; listener?: string } | undefined;
  try {
    parsed = JSON.parse(line) as typeof parsed;
  } catch {
    parsed = undefined; // Not JSON: an executable's plain output, passed through below.
  }
  if (parsed?.msg !== 'listening') {
    process.stdout.write(`[${label}] ${line}\n`);
    return;
  }
  process.stdout.write(`${line}\n`);
  const declared = executable.listeners.find((l) => l.name === parsed.listener);
  if (declared !== undefined && parsed.url !== undefined) bound.set(`http://${declared.host ?? '127.0.0.1'}:${declared.port}`, parsed.url);
  listening.push(`  ${label} (${parsed.listener ?? 'main'}): ${parsed.url}`);
  if (parsed.url !== undefined) onListening(parsed.listener ?? 'main', parsed.url);
  if (--expectedLines === 0) {
    const lines = curl.map((text) => boundUrls(text, bound));
    process.stdout.write(`\nThe stack is up (data in ${varDir}), listening on:\n${listening.join('\n')}\n\nTry:\n${lines.join('\n')}\n\nCtrl-C stops everything, as does SIGTERM or SIGINT to process ${process.pid} (kill ${process.pid}), or the end of its parent.\n`);
  }
}

/** `text` with every default base URL replaced by the URL its listener bound (a port is never a prefix of another). */
function boundUrls(text: string, urls: ReadonlyMap<string, string>): string {
  let out = text;
  for (const [fallback, actual] of urls) out = out.replace(new RegExp(`${fallback.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?!\\d)`, 'g'), actual);
  return out;
}

function stop(code: number): void {
  if (stopping) return;
  stopping = true;
  process.exitCode = code;
  for (const child of children) child.kill('SIGTERM');
  if (children.size === 0) process.exit(code);
}

process.once('SIGINT', () => stop(0));
process.once('SIGTERM', () => stop(0));

/** The parent process id and command name of `pid`, where /proc tells them (Linux). */
function procStat(pid: number): { ppid: number; comm: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    return { comm: stat.slice(stat.indexOf('(') + 1, close), ppid: Number(stat.slice(close + 2).split(' ')[1]) };
  } catch {
    return undefined;
  }
}

// When whatever started us ends (npm killed, a terminal closed, a supervisor's SIGKILL), we are
// re-parented: stop the stack rather than leave eleven services holding their ports. npm runs us
// through `sh -c`, and that shell outlives a SIGKILLed npm (we are not re-parented), so under npm
// the shell's own parent is watched too.
const parent = process.ppid;
const shell = process.env['npm_lifecycle_script'] !== undefined ? procStat(parent) : undefined;
const npm = shell !== undefined && ['sh', 'dash', 'bash'].includes(shell.comm) ? shell.ppid : undefined;
setInterval(() => {
  const ended = process.ppid !== parent ? parent : npm !== undefined && procStat(parent)?.ppid !== npm ? npm : undefined;
  if (ended === undefined) return;
  process.stderr.write(`npm start: parent process ${ended} ended; stopping the stack\n`);
  stop(0);
}, PARENT_CHECK_MS).unref();
