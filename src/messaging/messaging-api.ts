// The messaging API (messaging-api, also `jhf-shuttle serve`): GET /api/v1/health and
// GET /api/v1/status over the bus, the mailbox adapter, the lane observers and restart recovery.
// No /readyz and no /metrics (seed 002): unknown paths are 404.

import { AirlockError, createLogger, createService, health, json, readFileBounded, versionTruth } from '../kernel/index.ts';
import type { HealthCheck, Logger, Service, Store } from '../kernel/index.ts';
import type { Bus } from './bus.ts';
import { API_SPEC, busConfig, laneConfig, readWithListen } from './config.ts';
import { createObserverRegistry, parseObserversFile } from './lane-observer.ts';
import { startLanes } from './lanes.ts';
import type { Lanes, Timers } from './lanes.ts';
import { SERVICE_NAME } from './mailbox-adapter.ts';
import { openStoreAndBus } from './open-bus.ts';
import { API_LISTENER, messagingRoutes, UNCONFIGURED_HANDLERS } from './routes.ts';

/** The seed's healthcheck timeout: a probe of the adapter gives up after 3 s. */
export const PROBE_TIMEOUT_MS = 3000;

export interface MessagingApi extends Service {
  readonly bus: Bus;
  readonly store: Store;
  readonly lanes: Lanes;
}

export interface MessagingApiOptions {
  env?: NodeJS.ProcessEnv;
  listen?: string;
  log?: Logger;
  version?: string;
  timers?: Timers;
  random?: () => number;
}

export async function createMessagingApi(options: MessagingApiOptions = {}): Promise<MessagingApi> {
  const values = readWithListen(API_SPEC, options.env ?? process.env, 'MESSAGING_LISTEN', options.listen);
  const bus0 = busConfig(values);
  const lanesConfig = laneConfig(values);
  const registry = createObserverRegistry();
  const observers = values.MESSAGING_OBSERVERS_FILE === undefined ? [] : parseObserversFile(readObserversFile(values.MESSAGING_OBSERVERS_FILE), lanesConfig.observers, registry);
  const version = options.version ?? versionTruth();
  const log = options.log ?? createLogger({ name: `${SERVICE_NAME}.api`, service: SERVICE_NAME });
  const { store, bus } = await openStoreAndBus(bus0, { log, name: 'messaging-api', version });
  const mailboxUrl = values.MESSAGING_MAILBOX_URL;
  let adapter: { ok: boolean; error?: string; checked_at?: string } = { ok: false, error: 'not probed yet' };
  const probeAdapter = async () => {
    adapter = { ...(await probeHealthz(`${mailboxUrl}/healthz`)), checked_at: new Date().toISOString() };
    return adapter;
  };
  const lanes = startLanes({
    store,
    observers,
    probes: { bus: async () => (bus.health().connected ? { ok: true } : { ok: false, error: bus.health().last_error ?? 'disconnected' }), mailbox_adapter: probeAdapter },
    recovery: lanesConfig.recovery,
    log,
    ...(options.timers && { timers: options.timers }),
    ...(options.random && { random: options.random }),
  });

  const checks = (): Record<string, HealthCheck[]> => {
    const state = bus.health();
    return {
      [`bus:${state.kind}`]: [{ status: state.connected ? 'pass' : 'fail', observedValue: state.connected ? 'connected' : 'disconnected', ...(!state.connected && state.last_error !== undefined && { output: state.last_error }) }],
      'mailbox-adapter': [{ status: adapter.ok ? 'pass' : 'warn', observedValue: mailboxUrl, ...(!adapter.ok && adapter.error !== undefined && { output: adapter.error }) }],
    };
  };
  const handlers = {
    ...UNCONFIGURED_HANDLERS,
    apiHealth: async () => {
      await probeAdapter();
      return health({ version, checks: checks() });
    },
    apiStatus: async () => {
      await probeAdapter();
      const state = bus.health();
      // Ready only while every part the API depends on is up: the bus and the mailbox adapter.
      const down = [...(state.connected ? [] : ['bus']), ...(adapter.ok ? [] : ['mailbox_adapter'])];
      return json({
        service: SERVICE_NAME,
        version,
        ready: down.length === 0,
        not_ready: down,
        bus: { kind: state.kind, target: state.target, connected: state.connected, max_payload: state.max_payload, persistence: state.persistence, reconnects: state.reconnects, last_error: state.last_error ?? null },
        mailbox_adapter: { url: mailboxUrl, reachable: adapter.ok, checked_at: adapter.checked_at, ...(adapter.error !== undefined && { error: adapter.error }) },
        observers: lanes.observers(),
        recovery: {
          interval_seconds: lanesConfig.recovery.intervalSeconds,
          max_backoff_seconds: lanesConfig.recovery.maxBackoffSeconds,
          jitter_seconds: lanesConfig.recovery.jitterSeconds,
          ...lanes.recovery(),
        },
      });
    },
  };
  const service = createService({
    name: SERVICE_NAME,
    version,
    routes: messagingRoutes(handlers).filter((r) => r.listener === API_LISTENER),
    log,
    listeners: { [API_LISTENER]: values.MESSAGING_LISTEN },
    onClose: async () => {
      await lanes.stop();
      await bus.close();
      await store.close();
    },
  });
  return Object.assign(service, { bus, store, lanes });
}

/** A list of observers is a few kilobytes; a bigger file (or /dev/zero) is refused, not read without end. */
const MAX_OBSERVERS_FILE_BYTES = 1024 * 1024;

function readObserversFile(path: string): string {
  const loaded = readFileBounded(path, MAX_OBSERVERS_FILE_BYTES);
  if (!loaded.ok && loaded.reason === 'unreadable') throw new AirlockError('config_invalid', `Cannot read MESSAGING_OBSERVERS_FILE "${path}": ${loaded.code}`);
  if (!loaded.ok) throw new AirlockError('config_invalid', `MESSAGING_OBSERVERS_FILE "${path}" is larger than ${MAX_OBSERVERS_FILE_BYTES} bytes: list the observers as a JSON array`);
  return loaded.bytes.toString('utf8');
}

/** GET url within the probe timeout; ok when it answers 2xx. */
async function probeHealthz(url: string): Promise<{ ok: boolean; error?: string }> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    await res.arrayBuffer();
    return res.ok ? { ok: true } : { ok: false, error: `answered ${res.status}` };
  } catch (error) {
    return { ok: false, error: (error as Error).name === 'TimeoutError' ? `no answer within ${PROBE_TIMEOUT_MS} ms` : `unreachable: ${(error as Error).message}` };
  }
}
