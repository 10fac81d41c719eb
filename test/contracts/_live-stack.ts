// The whole dev stack (scripts/start.ts) on free ports for a contract test: every listener's bound
// URL by service and listener, and the secrets its dev defaults generated. Content's listener and
// its development OpenID provider get ports chosen here, because each names the other's URL.
// test/contracts/live-stack.test.ts starts one and runs every suite that needs it on that one.

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { compileCache } from '../helpers/compile-cache.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const START = join(ROOT, 'scripts', 'start.ts');

export interface LiveStack {
  /** `service/listener` -> the URL it bound. */
  urls: ReadonlyMap<string, string>;
  /** var/dev-secrets.json of the stack. */
  secrets: Record<string, Record<string, unknown>>;
  dataDir: string;
  /** Every log line the stack wrote on stderr so far. */
  stderr: readonly string[];
  /** Every line the stack wrote on stdout so far. */
  stdout: readonly string[];
  /** The pid of `node scripts/start.ts`, as `npm start` runs it. */
  pid: number;
  /** Its exit code, once it has exited. */
  exited: Promise<number | null>;
  /** Ends the stack if it still runs (SIGTERM) and removes its data directory. */
  stop(): Promise<void>;
}

/** A port nothing listens on right now (the kernel picks it; we let it go at once). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export async function startLiveStack(extraEnv: Record<string, string> = {}): Promise<LiveStack> {
  const contract = JSON.parse(readFileSync(join(ROOT, 'configs', 'stack-contract.json'), 'utf8')) as { services: { executables: { listeners: { env: string }[] }[] }[] };
  const moved = Object.fromEntries(contract.services.flatMap((s) => s.executables.flatMap((e) => e.listeners.map((l) => [l.env, '127.0.0.1:0']))));
  const [content, provider] = [await freePort(), await freePort()];
  const dataDir = mkdtempSync(join(tmpdir(), 'airlock-live-contract-'));
  const env = {
    PATH: `${dirname(process.execPath)}:${process.env['PATH'] ?? ''}`,
    ...compileCache(),
    AIRLOCK_DATA_DIR: dataDir,
    ...moved,
    CONTENT_LISTEN: `127.0.0.1:${content}`,
    CONTENT_PUBLIC_URL: `http://127.0.0.1:${content}`,
    CONTENT_DEV_OIDC_LISTEN: `127.0.0.1:${provider}`,
    CONTENT_OIDC_ISSUER: `http://127.0.0.1:${provider}`,
    ...extraEnv,
  };
  const child: ChildProcess = spawn(process.execPath, [START], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const urls = new Map<string, string>();
  const stderr: string[] = [];
  const stdout: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => stderr.push(line));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`The stack did not start within 90 s:\n${stderr.slice(-20).join('\n')}`)), 90_000);
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`The stack exited (${code}) while starting:\n${stderr.slice(-20).join('\n')}`)); });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      stdout.push(line);
      if (line.startsWith('{')) {
        const parsed = JSON.parse(line) as { msg?: string; service?: string; listener?: string; url?: string };
        if (parsed.msg === 'listening') urls.set(`${parsed.service}/${parsed.listener}`, parsed.url!);
      }
      if (line.startsWith('Ctrl-C stops everything')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  const secrets = JSON.parse(readFileSync(join(dataDir, 'dev-secrets.json'), 'utf8')) as Record<string, Record<string, unknown>>;
  return {
    urls, secrets, dataDir, stderr, stdout, pid: child.pid!, exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
