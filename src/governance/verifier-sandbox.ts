// Runs one shipped verifier for admission dry-run step 5 so that it cannot write: Node's
// permission model denies every file-system write, child process, worker and addon; node:sqlite
// (which the permission model does not cover) opens every database read-only; and the listeners
// the verifier is pointed at are reached through a loopback proxy that forwards GET and HEAD only
// and records any other method as a write. A verifier that tried to write fails the step.

import { spawn } from 'node:child_process';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Most output kept from a verifier for its reason. */
const OUTPUT_TAIL = 400;

/** Forces node:sqlite read-only inside the verifier (module hooks see both import and require). */
const READ_ONLY_SQLITE = `import { registerHooks } from 'node:module';
registerHooks({
  resolve(specifier, context, next) {
    if ((specifier === 'node:sqlite' || specifier === 'sqlite') && context.parentURL !== 'airlock-read-only:sqlite') return { url: 'airlock-read-only:sqlite', shortCircuit: true };
    return next(specifier, context);
  },
  load(url, context, next) {
    if (url !== 'airlock-read-only:sqlite') return next(url, context);
    return { format: 'module', shortCircuit: true, source: "import * as sqlite from 'node:sqlite'; export * from 'node:sqlite'; export class DatabaseSync extends sqlite.DatabaseSync { constructor(path, options) { super(path, { ...options, readOnly: true }); } } export default { ...sqlite, DatabaseSync };" };
  },
});
`;

/** Output that says the verifier tried to write (and was refused). */
const WRITE_REFUSED = [/ERR_ACCESS_DENIED/, /attempt to write a readonly database/i];

export type SandboxOutcome = { ok: true; detail: string } | { ok: false; reason: string };

export interface SandboxRun {
  /** The command as the contract spells it (for reasons). */
  command: string;
  /** The bundle, absolute, and its arguments. */
  file: string;
  args: readonly string[];
  /** The service's own configuration: the verifier's whole environment besides PATH. */
  env: Record<string, string>;
  /** Directories the verifier may read. */
  readable: readonly string[];
  /** Listener base URLs of the service (as `args` and `env` name them), each replaced by a GET-only proxy to it. */
  listeners: readonly string[];
  timeoutMs: number;
}

interface Proxy {
  url: string;
  writes: string[];
  close(): Promise<void>;
}

/** A loopback proxy to `target` that forwards GET and HEAD and answers anything else 405, noting it. */
async function readOnlyProxy(target: string): Promise<Proxy> {
  const writes: string[] = [];
  const base = new URL(target);
  const server = createServer((req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      writes.push(`${req.method} ${(req.url ?? '/').split('?')[0]}`);
      req.resume();
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'application/problem+json' });
      res.end(JSON.stringify({ type: 'about:blank', title: 'Method Not Allowed', status: 405, detail: 'A verifier is read-only: only GET and HEAD reach the service' }));
      return;
    }
    const headers = { ...req.headers, host: base.host };
    const upstream = httpRequest({ host: base.hostname, port: base.port, method: req.method, path: `${base.pathname.replace(/\/$/, '')}${req.url ?? '/'}`, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => {
      // Refused or reset upstream: the verifier sees its socket close, as it would have directly.
      res.destroy();
    });
    upstream.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    writes,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** Runs the verifier under the permission model, its listeners behind read-only proxies; exit 0 without a write passes. */
export async function runSandboxed(run: SandboxRun): Promise<SandboxOutcome> {
  const proxies = await Promise.all(run.listeners.map((url) => readOnlyProxy(url)));
  const hosts = run.listeners.map((url) => new URL(url).host);
  const behindProxies = (value: string) => proxies.reduce((text, proxy, i) => text.split(hosts[i]!).join(new URL(proxy.url).host), value);
  const args = run.args.map(behindProxies);
  const env = Object.fromEntries(Object.entries(run.env).map(([name, value]) => [name, behindProxies(value)]));
  const flags = ['--permission', `--allow-fs-read=${run.readable.join(',')}`, '--allow-net', '--no-warnings', '--import', `data:text/javascript,${encodeURIComponent(READ_ONLY_SQLITE)}`];
  try {
    const { code, signal, output } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [...flags, run.file, ...args], { cwd: run.readable[0], stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env['PATH'] ?? '', ...env } });
      let output = '';
      const keep = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-OUTPUT_TAIL * 4));
      child.stdout.on('data', keep);
      child.stderr.on('data', keep);
      const timer = setTimeout(() => child.kill('SIGKILL'), run.timeoutMs);
      child.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        resolve({ code, signal, output });
      });
    });
    const writes = proxies.flatMap((p) => p.writes);
    if (writes.length > 0) return { ok: false, reason: `verify command "${run.command}" is no read-only verifier: it sent ${writes.join(', ')}` };
    const refused = output.split('\n').find((line) => WRITE_REFUSED.some((pattern) => pattern.test(line)));
    if (refused !== undefined) return { ok: false, reason: `verify command "${run.command}" is no read-only verifier: it tried to write (${refused.trim().slice(0, OUTPUT_TAIL)})` };
    if (signal === 'SIGKILL') return { ok: false, reason: `verify command "${run.command}" did not finish within ${run.timeoutMs} ms` };
    if (code === 0) return { ok: true, detail: 'verify command exited 0' };
    const tail = output.trim().split('\n').at(-1)?.slice(-OUTPUT_TAIL) ?? '';
    return { ok: false, reason: `verify command "${run.command}" exited ${code ?? signal}${tail ? `: ${tail}` : ''}` };
  } catch (error) {
    return { ok: false, reason: `verify command "${run.command}" could not start: ${(error as Error).message}` };
  } finally {
    await Promise.all(proxies.map((p) => p.close()));
  }
}
