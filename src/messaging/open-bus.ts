// Opens the bus the configuration names: NATS when NATS_URL is set, the embedded bus otherwise.

import { AirlockError, readFileBounded } from '../kernel/index.ts';
import type { Logger, Store } from '../kernel/index.ts';
import type { Bus } from './bus.ts';
import type { BusConfig } from './config.ts';
import { openMessagingDatabase } from './database.ts';
import { openEmbeddedBus } from './embedded-bus.ts';
import { openNatsBus } from './nats-bus.ts';

export async function openBus(config: BusConfig, options: { store: Store; log?: Logger; name: string; version: string }): Promise<Bus> {
  if (config.natsUrl === undefined) return openEmbeddedBus({ store: options.store });
  return openNatsBus({
    url: config.natsUrl,
    credentials: config.credentials,
    jetstream: config.jetstream,
    reconnect: config.reconnect,
    ...(config.tlsCaFile !== undefined && { tls: { ca: readCaFile(config.tlsCaFile) } }),
    name: options.name,
    version: options.version,
    ...(options.log && { log: options.log }),
  });
}

/**
 * What the mailbox adapter and the messaging API both open at start: the log learns the bus
 * credentials as secrets, then the messaging database, then the bus over it (the database is
 * closed again when the bus cannot open).
 */
export async function openStoreAndBus(config: BusConfig, options: { log: Logger; name: string; version: string }): Promise<{ store: Store; bus: Bus }> {
  options.log.addSecrets([config.credentials.pass, config.credentials.token].filter((v): v is string => v !== undefined));
  const store = openMessagingDatabase(config.databasePath);
  try {
    return { store, bus: await openBus(config, { store, ...options }) };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** A CA bundle is kilobytes; an unreadable one is the operator's mistake, one line, not a stack. */
function readCaFile(path: string): Buffer {
  const loaded = readFileBounded(path, 1024 * 1024);
  if (!loaded.ok && loaded.reason === 'unreadable') throw new AirlockError('config_invalid', `Cannot read NATS_TLS_CA_FILE "${path}": ${loaded.code}`);
  if (!loaded.ok) throw new AirlockError('config_invalid', `NATS_TLS_CA_FILE "${path}" is larger than 1 MiB: name a PEM file of CA certificates`);
  return loaded.bytes;
}
