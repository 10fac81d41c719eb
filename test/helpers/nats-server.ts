// Starts Debian's nats-server on a free loopback port for a test, with an optional user/password,
// token, TLS, max_payload and monitoring port, and restarts it on the same port. A missing nats-server fails the
// test with the command that installs it.

import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const INSTALL_HINT = 'nats-server is not installed: run "bash scripts/install_nats_server.sh" (Debian package nats-server)';

export interface NatsServerOptions {
  user?: string;
  pass?: string;
  token?: string;
  maxPayload?: number;
  tls?: { cert: string; key: string };
  /** Enable JetStream with a file store that survives restart(). */
  jetstream?: boolean;
  /** Open the monitoring port (nats-server -m) on a free loopback port: `monitorUrl`. */
  monitor?: boolean;
}

export interface RunningNatsServer {
  port: number;
  url: string;
  /** http://127.0.0.1:<port> of the monitoring endpoint (/healthz, /varz) when `monitor` was asked for. */
  monitorUrl: string | undefined;
  stop(): Promise<void>;
  start(): Promise<void>;
  restart(): Promise<void>;
}

export function natsServerBinary(): string {
  const found = spawnSync('sh', ['-c', 'command -v nats-server'], { encoding: 'utf8' });
  const path = found.stdout.trim();
  if (found.status !== 0 || path === '') throw new Error(INSTALL_HINT);
  return path;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function startNatsServer(options: NatsServerOptions = {}): Promise<RunningNatsServer> {
  const binary = natsServerBinary();
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'airlock-nats-'));
  const lines = [`listen: "127.0.0.1:${port}"`];
  if (options.maxPayload !== undefined) lines.push(`max_payload: ${options.maxPayload}`);
  if (options.user !== undefined) lines.push(`authorization { user: ${JSON.stringify(options.user)}, password: ${JSON.stringify(options.pass ?? '')} }`);
  if (options.token !== undefined) lines.push(`authorization { token: ${JSON.stringify(options.token)} }`);
  const monitorPort = options.monitor ? await freePort() : undefined;
  if (monitorPort !== undefined) lines.push(`http: "127.0.0.1:${monitorPort}"`);
  if (options.jetstream) lines.push(`jetstream { store_dir: ${JSON.stringify(join(dir, 'js'))} }`);
  if (options.tls) lines.push(`tls { cert_file: ${JSON.stringify(options.tls.cert)}, key_file: ${JSON.stringify(options.tls.key)} }`);
  const config = join(dir, 'nats.conf');
  writeFileSync(config, `${lines.filter((l) => l !== '').join('\n')}\n`);
  let child: ChildProcess | undefined;

  async function start(): Promise<void> {
    child = spawn(binary, ['-c', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    await waitForListener(child, port);
  }

  async function stop(): Promise<void> {
    const running = child;
    child = undefined;
    await killServer(running);
  }

  await start();
  return { port, url: `nats://127.0.0.1:${port}`, monitorUrl: monitorPort === undefined ? undefined : `http://127.0.0.1:${monitorPort}`, start, stop, restart: async () => (await stop(), await start()) };
}

/** SIGKILLs a running nats-server (a host lost) and waits until it exited. */
export async function killServer(running: ChildProcess | undefined): Promise<void> {
  if (!running || running.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    running.once('exit', () => resolve());
    running.kill('SIGKILL');
  });
}

/** Waits until the nats-server `child` answers on `port`; throws with its stderr when it exits or takes over 10 s. */
export async function waitForListener(child: ChildProcess, port: number): Promise<void> {
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`nats-server exited: ${stderr.slice(-500)}`);
    if (await answers(port)) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`nats-server did not listen on ${port}: ${stderr.slice(-500)}`);
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('data', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** A self-signed certificate for 127.0.0.1 and localhost (openssl), for the tls:// tests. */
export function selfSignedCertificate(): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-nats-tls-'));
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', key, '-out', cert], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`openssl could not make a test certificate: ${made.stderr}`);
  return { cert, key };
}
