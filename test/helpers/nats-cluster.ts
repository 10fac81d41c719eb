// Starts a real nats-server cluster on loopback for a test: `size` servers (Debian's nats-server),
// each with its own client port, cluster (route) port, server name and JetStream store directory,
// routed to one another under one cluster name. Each server can be stopped (SIGKILL: a host lost)
// and started again on its ports and store, so a test can take a server away in the middle.

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, killServer, natsServerBinary, waitForListener } from './nats-server.ts';

export interface ClusterServer {
  name: string;
  port: number;
  url: string;
  running(): boolean;
  stop(): Promise<void>;
  start(): Promise<void>;
}

export interface RunningNatsCluster {
  servers: ClusterServer[];
  /** Every client URL, comma-separated: what AIRLOCK_EVIDENCE_NATS_URL takes. */
  urls: string;
  stop(): Promise<void>;
}

/** Starts `size` servers (JetStream on unless `jetstream: false`) and waits until each listens. */
export async function startNatsCluster(options: { size?: number; jetstream?: boolean } = {}): Promise<RunningNatsCluster> {
  const binary = natsServerBinary();
  const size = options.size ?? 3;
  const dir = mkdtempSync(join(tmpdir(), 'airlock-nats-cluster-'));
  const ports = await Promise.all(Array.from({ length: size }, async () => ({ client: await freePort(), route: await freePort() })));
  const servers: ClusterServer[] = ports.map((port, index) => {
    const name = `n${index + 1}`;
    const routes = ports.filter((_, other) => other !== index).map((p) => `"nats-route://127.0.0.1:${p.route}"`);
    const lines = [
      `server_name: ${name}`,
      `listen: "127.0.0.1:${port.client}"`,
      `cluster { name: airlock, listen: "127.0.0.1:${port.route}", routes: [${routes.join(', ')}] }`,
    ];
    if (options.jetstream !== false) lines.push(`jetstream { store_dir: ${JSON.stringify(join(dir, name))} }`);
    const config = join(dir, `${name}.conf`);
    writeFileSync(config, `${lines.join('\n')}\n`);
    let child: ChildProcess | undefined;
    return {
      name,
      port: port.client,
      url: `nats://127.0.0.1:${port.client}`,
      running: () => child !== undefined && child.exitCode === null,
      async start() {
        child = spawn(binary, ['-c', config], { stdio: ['ignore', 'ignore', 'pipe'] });
        await waitForListener(child, port.client);
      },
      async stop() {
        const running = child;
        child = undefined;
        await killServer(running);
      },
    };
  });
  await Promise.all(servers.map((server) => server.start()));
  return {
    servers,
    urls: servers.map((server) => server.url).join(','),
    async stop() {
      await Promise.all(servers.map((server) => server.stop()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
