// Opens the bus the configuration names: NATS when NATS_URL is set, the embedded bus otherwise.

import { readFileSync } from 'node:fs';
import type { Logger, Store } from '../kernel/index.ts';
import type { Bus } from './bus.ts';
import type { BusConfig } from './config.ts';
import { openEmbeddedBus } from './embedded-bus.ts';
import { openNatsBus } from './nats-bus.ts';

export async function openBus(config: BusConfig, options: { store: Store; log?: Logger; name: string; version: string }): Promise<Bus> {
  if (config.natsUrl === undefined) return openEmbeddedBus({ store: options.store });
  return openNatsBus({
    url: config.natsUrl,
    credentials: config.credentials,
    jetstream: config.jetstream,
    reconnect: config.reconnect,
    ...(config.tlsCaFile !== undefined && { tls: { ca: readFileSync(config.tlsCaFile) } }),
    name: options.name,
    version: options.version,
    ...(options.log && { log: options.log }),
  });
}
