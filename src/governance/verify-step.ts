// Admission dry-run step 5, "execute the declared verify entrypoint and read back the readiness
// targets" (seed 001): the live target is probed for real (loopback only, a time limit), and a
// verify entrypoint runs only when it names a verify command the stack contract ships: the
// command that runs is the contract's own string, never one taken from the payload, its
// program must exist under the install root, and it runs without a shell under a time limit.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { isAbsolute, join, normalize, sep } from 'node:path';
import type { GovernanceRuntime } from './runtime.ts';

const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '[::1]'];
/** Most output kept from a verify command for its reason. */
const OUTPUT_TAIL = 400;

export type StepOutcome = { ok: true; detail: string } | { ok: false; reason: string };

/** GETs an absolute loopback URL within the probe time limit: 2xx passes, anything else is the reason. */
export async function probeLiveTarget(runtime: GovernanceRuntime, target: string): Promise<StepOutcome> {
  const url = URL.parse(target);
  if (!url || !['http:', 'https:'].includes(url.protocol)) return { ok: false, reason: `live target "${target}" is not an http(s) URL` };
  if (!LOOPBACK_HOSTS.includes(url.hostname)) return { ok: false, reason: `live target "${target}" is not on a loopback host` };
  try {
    const response = await runtime.fetch(url, { signal: AbortSignal.timeout(runtime.config.dryRun.probeTimeoutMs), redirect: 'manual' });
    await response.body?.cancel();
    return response.status >= 200 && response.status <= 299
      ? { ok: true, detail: `live target answered ${response.status}` }
      : { ok: false, reason: `live target "${target}" answers ${response.status}, not 2xx` };
  } catch (error) {
    const { cause: inner } = error as { cause?: { code?: string; message?: string } };
    const cause = inner?.code ?? inner?.message ?? (error as Error).name;
    const why = cause === 'TimeoutError' ? `no answer within ${runtime.config.dryRun.probeTimeoutMs} ms` : `unreachable (${cause})`;
    return { ok: false, reason: `live target "${target}" is ${why}` };
  }
}

/** The stack-contract verify command the entrypoint names (equal, or the command's leading words), if any. */
export function shippedCommand(commands: readonly string[], entrypoint: string): string | undefined {
  return commands.find((c) => c === entrypoint || c.startsWith(`${entrypoint} `));
}

/**
 * Runs a shipped verify command: split on spaces (the contract's commands take no quoting), `node`
 * is this Node, the program path must stay under the install root and exist there. Exit 0 within
 * the time limit passes; anything else is the reason.
 */
export function runVerifyCommand(runtime: GovernanceRuntime, command: string): Promise<StepOutcome> {
  const root = runtime.config.paths.root;
  const [program, ...args] = command.split(/\s+/).filter((word) => word !== '');
  if (program === undefined) return Promise.resolve({ ok: false, reason: 'the verify command is empty' });
  const viaNode = program === 'node';
  const file = viaNode ? args[0] : program;
  if (file === undefined || isAbsolute(file) || normalize(file).split(sep).includes('..')) {
    return Promise.resolve({ ok: false, reason: `verify command "${command}" names no program inside the install root` });
  }
  if (!existsSync(join(root, file))) return Promise.resolve({ ok: false, reason: `verify command "${command}" is not shipped in this install: "${file}" is missing under "${root}" (npm run build)` });
  const limit = runtime.config.dryRun.verifyTimeoutMs;
  return new Promise((resolve) => {
    const child = spawn(viaNode ? process.execPath : join(root, file), args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env['PATH'] ?? '' } });
    let output = '';
    const keep = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-OUTPUT_TAIL));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGKILL'), limit);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ ok: false, reason: `verify command "${command}" could not start: ${error.message}` });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const tail = output.trim().split('\n').at(-1) ?? '';
      if (signal === 'SIGKILL') resolve({ ok: false, reason: `verify command "${command}" did not finish within ${limit} ms` });
      else if (code === 0) resolve({ ok: true, detail: `verify command exited 0` });
      else resolve({ ok: false, reason: `verify command "${command}" exited ${code ?? signal}${tail ? `: ${tail}` : ''}` });
    });
  });
}
