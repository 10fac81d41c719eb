// Admission dry-run step 5, "execute the declared verify entrypoint and read back the readiness
// targets" (seed 001). The live target is probed for real (loopback only, a time limit). The
// verify entrypoint runs only when it names a verify command that the stack contract (generated
// from each service's manifest) declares for the reviewed tool's own service, and only when that
// command is a read-only verifier: a curl GET, or a bundled verifier run in a sandbox that cannot
// write (verifier-sandbox.ts). A service's own executable (its API, its worker) is no verifier.
// The command's listener addresses are replaced by the listeners the service actually bound,
// and it gets that service's configuration (its data directory, its listener variables) only.

import { isAbsolute, join, normalize, sep } from 'node:path';
import { existsSync } from 'node:fs';
import { SERVICE_NAME } from './identity.ts';
import type { GovernanceRuntime, StackContractDocument } from './runtime.ts';
import { runSandboxed } from './verifier-sandbox.ts';

const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '[::1]'];
/** curl options that keep a request a plain GET (as the stack contract writes them). */
const READ_ONLY_CURL_FLAGS = /^(-[fsSL]+|--fail|--silent|--show-error|--location)$/;

export type StepOutcome = { ok: true; detail: string } | { ok: false; reason: string };

/** GETs an absolute loopback URL within the probe time limit: 2xx passes, anything else is the reason. */
export async function probeLiveTarget(runtime: GovernanceRuntime, target: string, label = 'live target'): Promise<StepOutcome> {
  const url = URL.parse(target);
  if (!url || !['http:', 'https:'].includes(url.protocol)) return { ok: false, reason: `${label} "${target}" is not an http(s) URL` };
  if (!LOOPBACK_HOSTS.includes(url.hostname)) return { ok: false, reason: `${label} "${target}" is not on a loopback host` };
  try {
    const response = await runtime.fetch(url, { signal: AbortSignal.timeout(runtime.config.dryRun.probeTimeoutMs), redirect: 'manual' });
    await response.body?.cancel();
    return response.status >= 200 && response.status <= 299
      ? { ok: true, detail: `${label} answered ${response.status}` }
      : { ok: false, reason: `${label} "${target}" answers ${response.status}, not 2xx` };
  } catch (error) {
    const { cause: inner } = error as { cause?: { code?: string; message?: string } };
    const cause = inner?.code ?? inner?.message ?? (error as Error).name;
    const why = cause === 'TimeoutError' ? `no answer within ${runtime.config.dryRun.probeTimeoutMs} ms` : `unreachable (${cause})`;
    return { ok: false, reason: `${label} "${target}" is ${why}` };
  }
}

/** The service whose verify commands hold the entrypoint (equal, or the command's leading words), and that command. */
export function declaredCommand(contract: StackContractDocument, entrypoint: string): { service: string; command: string } | undefined {
  for (const { service, verify } of contract.services) {
    const command = (verify ?? []).find((c) => c === entrypoint || c.startsWith(`${entrypoint} `));
    if (command !== undefined) return { service, command };
  }
  return undefined;
}

interface ListenerTarget {
  /** The address the stack contract writes into commands: http://127.0.0.1:<default port>. */
  declared: string;
  /** Where the listener is now. */
  actual: string;
  env: string;
}

/**
 * The service's listeners: for this service, the address it bound (or is configured to bind, in a
 * process of the other role); for another, its listener variable as this process's environment
 * carries it (npm start and systemd give every service the same environment file), else the default.
 */
function listenerTargets(runtime: GovernanceRuntime, service: string, contract: StackContractDocument): ListenerTarget[] {
  const listeners = contract.services.find((s) => s.service === service)?.executables.flatMap((e) => e.listeners) ?? [];
  return listeners.map((l) => {
    const declared = `http://${l.host}:${l.port}`;
    const configured = process.env[l.env];
    const actual = service === SERVICE_NAME ? runtime.listenerUrl(l.name) : configured && URL.canParse(`http://${configured}`) ? `http://${configured}` : undefined;
    return { declared, actual: actual ?? declared, env: l.env };
  });
}

function rebind(word: string, targets: readonly ListenerTarget[]): string {
  return targets.reduce((value, t) => (value === t.declared || value.startsWith(`${t.declared}/`) ? t.actual + value.slice(t.declared.length) : value), word);
}

/**
 * Runs a verify command declared for `service`: a curl GET in process, or a bundled verifier
 * (`node dist/bin/<name>.mjs ...`) in the read-only sandbox. Anything else, and an executable of
 * the stack itself, is refused with the reason.
 */
export async function runVerifier(runtime: GovernanceRuntime, service: string, command: string): Promise<StepOutcome> {
  if (!runtime.stackContract.ok) return { ok: false, reason: `the stack contract is unavailable: ${runtime.stackContract.detail}` };
  const contract = runtime.stackContract.document;
  const root = runtime.config.paths.root;
  const dataDir = runtime.config.dataDir;
  const targets = listenerTargets(runtime, service, contract);
  const words = command.split(/\s+/).filter((word) => word !== '').map((word) => rebind(word.replaceAll('${AIRLOCK_DATA_DIR}', dataDir).replaceAll('$AIRLOCK_DATA_DIR', dataDir), targets));
  const [program, file, ...rest] = words;
  if (program === 'curl') {
    const url = words.slice(1).filter((w) => !READ_ONLY_CURL_FLAGS.test(w));
    if (url.length !== 1) return { ok: false, reason: `verify command "${command}" is no read-only verifier: only a plain curl GET of one URL runs` };
    return probeLiveTarget(runtime, url[0]!, 'verify command target');
  }
  if (program !== 'node' || file === undefined || isAbsolute(file) || normalize(file).split(sep).includes('..') || !/^dist\/bin\/[^/]+\.mjs$/.test(file)) {
    return { ok: false, reason: `verify command "${command}" is no bundled verifier (node dist/bin/<name>.mjs) or curl GET, so it cannot run read-only` };
  }
  const name = file.slice('dist/bin/'.length, -'.mjs'.length);
  const executable = contract.services.flatMap((s) => s.executables.map((e) => ({ ...e, service: s.service }))).find((e) => e.name === name);
  if (executable) return { ok: false, reason: `verify command "${command}" runs "${name}", the ${executable.role} of service "${executable.service}": a service's own executable is no verifier` };
  if (!existsSync(join(root, file))) return { ok: false, reason: `verify command "${command}" is not shipped in this install: "${file}" is missing under "${root}" (npm run build)` };
  const env: Record<string, string> = { AIRLOCK_DATA_DIR: dataDir };
  for (const t of targets) env[t.env] = new URL(t.actual).host;
  const listeners = [...new Set(targets.map((t) => t.actual))];
  return runSandboxed({ command, file: join(root, file), args: rest, env, readable: [root, dataDir], listeners, timeoutMs: runtime.config.dryRun.verifyTimeoutMs });
}
