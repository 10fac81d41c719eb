// Configuration of the three messaging executables, from environment variables. readConfig
// lists every problem at once; the bounds of the lane observers and of restart recovery are the
// seed's limits, so a value outside them is refused at start (exit 2), never clamped.

import { AirlockError, readConfig } from '../kernel/index.ts';
import type { ConfigSpec, ConfigValues, ListenAddress } from '../kernel/index.ts';
import { databasePath } from './database.ts';

export const DEFAULT_API_LISTEN = '127.0.0.1:18040';
export const DEFAULT_MAILBOX_LISTEN = '127.0.0.1:18041';
export const DEFAULT_READBACK_LISTEN = '127.0.0.1:18087';
/** Seed 002 "Limits": the mailbox publish payload. */
export const DEFAULT_MAILBOX_MAX_PAYLOAD = 131_072;

/** Seed 002 "Limits": lane observer polling and restart-recovery polling. */
export const OBSERVER_BOUNDS = { defaultSeconds: 45, floorSeconds: 30, idleSeconds: 120, maxLines: 300 } as const;
export const RECOVERY_BOUNDS = { minSeconds: 30, defaultSeconds: 45, maxBackoffSeconds: 300, jitterSeconds: 3 } as const;

export const DATA_SPEC = {
  AIRLOCK_DATA_DIR: { type: 'string', default: './var', description: 'Directory of the messaging database messaging.sqlite (embedded bus, publication evidence, lane events)' },
} as const;

export const BUS_SPEC = {
  NATS_URL: { type: 'string', description: 'NATS server(s), nats://host:4222 or tls://host:4222, comma-separated; unset: the embedded bus on node:sqlite' },
  NATS_USER: { type: 'string', description: 'NATS user (with NATS_PASSWORD)' },
  NATS_PASSWORD: { type: 'secret', description: 'NATS password' },
  NATS_TOKEN: { type: 'secret', description: 'NATS authentication token (instead of user and password)' },
  NATS_TLS_CA_FILE: { type: 'string', description: 'PEM file of the CA that signed the NATS server certificate (tls:// URLs); the system CAs otherwise' },
  NATS_MONITOR_URL: { type: 'url', description: "nats-server's monitoring endpoint (nats-server -m 8222), e.g. http://127.0.0.1:8222: the bus healthcheck (jhf-shuttle ping) probes its /healthz" },
  NATS_JETSTREAM: { type: 'enum', values: ['auto', 'on', 'off'], default: 'auto', description: 'Mailbox subjects in the JetStream stream MAILBOX (acknowledged when stored, de-duplicated by Nats-Msg-Id): auto uses it when the server has JetStream' },
  NATS_RECONNECT_WAIT_MS: { type: 'int', default: 100, min: 10, max: 60_000, description: 'First pause before reconnecting to NATS; it doubles per failed attempt' },
  NATS_RECONNECT_MAX_WAIT_MS: { type: 'int', default: 5000, min: 10, max: 300_000, description: 'Longest pause between reconnect attempts' },
} as const;

export const MAILBOX_SPEC = {
  ...DATA_SPEC,
  ...BUS_SPEC,
  MESSAGING_MAILBOX_LISTEN: { type: 'listen', default: DEFAULT_MAILBOX_LISTEN, description: 'host:port of the mailbox adapter (loopback unless AIRLOCK_ALLOW_NON_LOOPBACK=1)' },
  MAILBOX_ADAPTER_MAX_PAYLOAD_BYTES: { type: 'int', default: DEFAULT_MAILBOX_MAX_PAYLOAD, min: 1, max: 64 * 1024 * 1024, description: 'Largest message body the adapter publishes; more is 413' },
} as const;

export const API_SPEC = {
  ...DATA_SPEC,
  ...BUS_SPEC,
  MESSAGING_LISTEN: { type: 'listen', default: DEFAULT_API_LISTEN, description: 'host:port of the messaging API (loopback unless AIRLOCK_ALLOW_NON_LOOPBACK=1)' },
  MESSAGING_MAILBOX_URL: { type: 'url', default: `http://${DEFAULT_MAILBOX_LISTEN}`, description: 'Base URL of the mailbox adapter, probed for status and recovered when down' },
  MESSAGING_OBSERVERS_FILE: { type: 'string', description: 'JSON file: the lane observers, [{"target": NAME, "log_path": FILE, ...}]; one per gateway target' },
  MESSAGING_OBSERVER_INTERVAL_SECONDS: { type: 'int', default: OBSERVER_BOUNDS.defaultSeconds, min: OBSERVER_BOUNDS.floorSeconds, max: OBSERVER_BOUNDS.idleSeconds, description: 'Lane observer poll interval' },
  MESSAGING_OBSERVER_IDLE_INTERVAL_SECONDS: { type: 'int', default: OBSERVER_BOUNDS.idleSeconds, min: OBSERVER_BOUNDS.floorSeconds, max: OBSERVER_BOUNDS.idleSeconds, description: 'Lane observer poll interval once a poll found nothing new' },
  MESSAGING_OBSERVER_MAX_LINES: { type: 'int', default: OBSERVER_BOUNDS.maxLines, min: 1, max: OBSERVER_BOUNDS.maxLines, description: 'Most log lines one poll reads (the tail length)' },
  MESSAGING_OBSERVER_WINDOW_SECONDS: { type: 'int', default: 900, min: 1, max: 86_400, description: 'Only log lines this recent are read (lines with a timestamp)' },
  MESSAGING_OBSERVER_TIMEOUT_MS: { type: 'int', default: 5000, min: 100, max: 30_000, description: 'Hard time limit of one poll' },
  MESSAGING_RECOVERY_INTERVAL_SECONDS: { type: 'int', default: RECOVERY_BOUNDS.defaultSeconds, min: RECOVERY_BOUNDS.minSeconds, max: RECOVERY_BOUNDS.maxBackoffSeconds, description: 'Restart-recovery poll interval' },
  MESSAGING_RECOVERY_MAX_BACKOFF_SECONDS: { type: 'int', default: RECOVERY_BOUNDS.maxBackoffSeconds, min: RECOVERY_BOUNDS.minSeconds, max: RECOVERY_BOUNDS.maxBackoffSeconds, description: 'Longest pause between recovery polls while a part stays down' },
  MESSAGING_RECOVERY_JITTER_SECONDS: { type: 'int', default: RECOVERY_BOUNDS.jitterSeconds, min: 0, max: RECOVERY_BOUNDS.jitterSeconds, description: 'Random jitter added to each recovery poll' },
} as const;

export const READBACK_SPEC = {
  ...DATA_SPEC,
  MESSAGING_OWNER_READBACK_LISTEN: { type: 'listen', default: DEFAULT_READBACK_LISTEN, description: 'host:port of the owner-readback service (the seed\'s configurable host port)' },
  OWNER_READBACK_API_TOKEN: { type: 'secret', description: 'Bearer token of all three routes (the seed\'s API_TOKEN); unset: every route answers 503' },
  MESSAGING_REVIEW_TRANSPORT_MAILBOX: { type: 'string', default: 'plan-studio-review', description: 'Mailbox whose publications are the plan-studio review transport evidence' },
} as const;

export interface BusConfig {
  natsUrl: string | undefined;
  credentials: { user?: string; pass?: string; token?: string };
  tlsCaFile: string | undefined;
  jetstream: 'auto' | 'on' | 'off';
  reconnect: { initialMs: number; maxMs: number };
  databasePath: string;
}

export interface ObserverDefaults {
  intervalSeconds: number;
  idleIntervalSeconds: number;
  maxLines: number;
  windowSeconds: number;
  timeoutMs: number;
}

export interface RecoveryConfig {
  intervalSeconds: number;
  maxBackoffSeconds: number;
  jitterSeconds: number;
}

/** readConfig, with `--listen` applied to the listener variable first. */
export function readWithListen<S extends ConfigSpec>(spec: S, env: NodeJS.ProcessEnv, variable: keyof S & string, listen: string | undefined): ConfigValues<S> {
  return readConfig(spec, listen === undefined ? env : { ...env, [variable]: listen });
}

export function busConfig(values: ConfigValues<typeof BUS_SPEC & typeof DATA_SPEC>): BusConfig {
  const problems: string[] = [];
  if (values.NATS_PASSWORD !== undefined && values.NATS_USER === undefined) problems.push('NATS_PASSWORD: set without NATS_USER');
  if (values.NATS_TOKEN !== undefined && values.NATS_USER !== undefined) problems.push('NATS_TOKEN: set together with NATS_USER; keep one way to authenticate');
  if (values.NATS_URL !== undefined && !/^(nats|tls):\/\//i.test(values.NATS_URL.split(',')[0]!.trim()) && values.NATS_URL.includes('://')) problems.push('NATS_URL: use nats:// or tls://');
  if (problems.length > 0) throw new AirlockError('config_invalid', `Invalid configuration: ${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}`, { details: problems });
  return {
    natsUrl: values.NATS_URL,
    credentials: {
      ...(values.NATS_USER !== undefined && { user: values.NATS_USER }),
      ...(values.NATS_PASSWORD !== undefined && { pass: values.NATS_PASSWORD }),
      ...(values.NATS_TOKEN !== undefined && { token: values.NATS_TOKEN }),
    },
    tlsCaFile: values.NATS_TLS_CA_FILE,
    jetstream: values.NATS_JETSTREAM,
    reconnect: { initialMs: values.NATS_RECONNECT_WAIT_MS, maxMs: Math.max(values.NATS_RECONNECT_WAIT_MS, values.NATS_RECONNECT_MAX_WAIT_MS) },
    databasePath: databasePath(values.AIRLOCK_DATA_DIR),
  };
}

/** The API's observer and recovery settings; cross-variable bounds are refused like single ones. */
export function laneConfig(values: ConfigValues<typeof API_SPEC>): { observers: ObserverDefaults; recovery: RecoveryConfig } {
  const problems: string[] = [];
  if (values.MESSAGING_OBSERVER_IDLE_INTERVAL_SECONDS < values.MESSAGING_OBSERVER_INTERVAL_SECONDS) {
    problems.push(`MESSAGING_OBSERVER_IDLE_INTERVAL_SECONDS: ${values.MESSAGING_OBSERVER_IDLE_INTERVAL_SECONDS} is below the poll interval ${values.MESSAGING_OBSERVER_INTERVAL_SECONDS}`);
  }
  if (values.MESSAGING_RECOVERY_MAX_BACKOFF_SECONDS < values.MESSAGING_RECOVERY_INTERVAL_SECONDS) {
    problems.push(`MESSAGING_RECOVERY_MAX_BACKOFF_SECONDS: ${values.MESSAGING_RECOVERY_MAX_BACKOFF_SECONDS} is below the recovery interval ${values.MESSAGING_RECOVERY_INTERVAL_SECONDS}`);
  }
  if (problems.length > 0) throw new AirlockError('config_invalid', `Invalid configuration: ${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}`, { details: problems });
  return {
    observers: {
      intervalSeconds: values.MESSAGING_OBSERVER_INTERVAL_SECONDS,
      idleIntervalSeconds: values.MESSAGING_OBSERVER_IDLE_INTERVAL_SECONDS,
      maxLines: values.MESSAGING_OBSERVER_MAX_LINES,
      windowSeconds: values.MESSAGING_OBSERVER_WINDOW_SECONDS,
      timeoutMs: values.MESSAGING_OBSERVER_TIMEOUT_MS,
    },
    recovery: {
      intervalSeconds: values.MESSAGING_RECOVERY_INTERVAL_SECONDS,
      maxBackoffSeconds: values.MESSAGING_RECOVERY_MAX_BACKOFF_SECONDS,
      jitterSeconds: values.MESSAGING_RECOVERY_JITTER_SECONDS,
    },
  };
}

export type { ListenAddress };
