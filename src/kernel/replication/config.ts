// Evidence replication settings from the environment, the same for every service:
// AIRLOCK_EVIDENCE_REPLICATION (off, async or sync), AIRLOCK_EVIDENCE_NATS_URL (comma-separated
// nats:// URLs of the cluster), AIRLOCK_EVIDENCE_REPLICAS (default: 3 when the cluster has at
// least 3 servers, else 1), AIRLOCK_EVIDENCE_STREAM (default AIRLOCK_EVIDENCE), and the health
// and wait bounds. A mode other than off without a URL is a configuration error, never "off".

import { AirlockError } from '../errors.ts';
import { parseNatsUrls } from '../nats/url.ts';
import type { NatsServerAddress } from '../nats/url.ts';
import { DEFAULT_EVIDENCE_STREAM } from './evidence-message.ts';

export type ReplicationMode = 'off' | 'async' | 'sync';

export interface ReplicationConfig {
  mode: Exclude<ReplicationMode, 'off'>;
  servers: NatsServerAddress[];
  /** Undefined: 3 when the cluster has at least 3 servers, else 1. */
  replicas: number | undefined;
  stream: string;
  /** Health turns warn when the oldest unreplicated row is older than this (async). */
  lagWarnSeconds: number;
  /** How long a sync write waits for the stream's acknowledgement before it answers 503. */
  syncTimeoutMs: number;
}

export const REPLICATION_VARIABLES = {
  mode: 'AIRLOCK_EVIDENCE_REPLICATION',
  url: 'AIRLOCK_EVIDENCE_NATS_URL',
  replicas: 'AIRLOCK_EVIDENCE_REPLICAS',
  stream: 'AIRLOCK_EVIDENCE_STREAM',
  lagWarn: 'AIRLOCK_EVIDENCE_LAG_WARN_SECONDS',
  syncTimeout: 'AIRLOCK_EVIDENCE_SYNC_TIMEOUT_SECONDS',
} as const;

export const DEFAULT_LAG_WARN_SECONDS = 10;
export const DEFAULT_SYNC_TIMEOUT_SECONDS = 20;

/** The replication settings `env` asks for; undefined when replication is off. Throws `config_invalid` with the variable's name. */
export function replicationConfigFromEnv(env: Readonly<Record<string, string | undefined>>): ReplicationConfig | undefined {
  const v = REPLICATION_VARIABLES;
  const mode = (env[v.mode] ?? '').trim() || 'off';
  if (mode !== 'off' && mode !== 'async' && mode !== 'sync') {
    throw new AirlockError('config_invalid', `Invalid ${v.mode} "${mode}": use off, async or sync`);
  }
  if (mode === 'off') return undefined;
  const url = (env[v.url] ?? '').trim();
  if (url === '') throw new AirlockError('config_invalid', `Missing ${v.url}: ${v.mode}=${mode} needs the NATS cluster's URLs (nats://host:4222,nats://host2:4222,...)`);
  let servers: NatsServerAddress[];
  try {
    servers = parseNatsUrls(url);
  } catch (error) {
    throw new AirlockError('config_invalid', `Invalid ${v.url}: ${(error as Error).message}`, { cause: error });
  }
  const stream = (env[v.stream] ?? '').trim() || DEFAULT_EVIDENCE_STREAM;
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(stream)) throw new AirlockError('config_invalid', `Invalid ${v.stream} "${stream}": use letters, digits, _ and - (a JetStream stream name)`);
  return {
    mode,
    servers,
    replicas: optionalWhole(env, v.replicas, { min: 1, max: 5 }),
    stream,
    lagWarnSeconds: optionalWhole(env, v.lagWarn, { min: 1, max: 86_400 }) ?? DEFAULT_LAG_WARN_SECONDS,
    syncTimeoutMs: (optionalWhole(env, v.syncTimeout, { min: 1, max: 600 }) ?? DEFAULT_SYNC_TIMEOUT_SECONDS) * 1000,
  };
}

function optionalWhole(env: Readonly<Record<string, string | undefined>>, name: string, range: { min: number; max: number }): number | undefined {
  const text = (env[name] ?? '').trim();
  if (text === '') return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < range.min || value > range.max) {
    throw new AirlockError('config_invalid', `Invalid ${name} "${text}": use a whole number from ${range.min} to ${range.max}`);
  }
  return value;
}
