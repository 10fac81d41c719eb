// A NATS client that stays connected: it reconnects with capped exponential backoff and jitter,
// re-subscribes, and keeps publishes while disconnected (bounded) to send them once it is back.
// publish() resolves only after a PONG answered a PING written after the message: the server
// has it. A message written on a connection that died before its PONG is sent again on the next
// one (at least once; subscribers drop repeats by their Nats-Msg-Id).
// Servers: the configured URLs (a cluster's, comma-separated), plus the other members a cluster
// advertises in INFO `connect_urls`, so a client that was given one URL still reconnects to any.

import type { Socket } from 'node:net';
import type { ConnectionOptions as TlsOptions } from 'node:tls';
import { AirlockError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { openConnection } from './connection.ts';
import type { Credentials } from './connection.ts';
import type { ServerOp } from './parser.ts';
import { encodePublish, encodeSubscribe, encodeUnsubscribe, PING, PONG, publishedSize } from './protocol.ts';
import type { NatsHeaders } from './protocol.ts';
import type { NatsServerAddress } from './url.ts';

export interface NatsMessage {
  subject: string;
  replyTo?: string;
  headers: Record<string, string>;
  /** The status of a header block such as `NATS/1.0 503` (no responders). */
  status?: string;
  payload: Buffer;
}

export interface ReconnectPolicy {
  initialMs: number;
  maxMs: number;
  jitterMs: number;
}

export interface NatsClientOptions {
  servers: readonly NatsServerAddress[];
  credentials?: Credentials;
  tls?: TlsOptions;
  name?: string;
  version?: string;
  reconnect?: Partial<ReconnectPolicy>;
  /** How long a publish may wait for the server's confirmation, connected or not. */
  ackTimeoutMs?: number;
  connectTimeoutMs?: number;
  /** Most bytes kept while disconnected; a publish beyond it fails at once. */
  bufferBytes?: number;
  pingIntervalMs?: number;
  log?: Logger;
}

export interface NatsStatus {
  connected: boolean;
  server: string | undefined;
  server_version: string | undefined;
  max_payload: number;
  reconnects: number;
  /** Servers the client may connect to: those configured and those the cluster advertised. */
  known_servers: number;
  pending_publishes: number;
  last_error: string | undefined;
}

export interface NatsSubscription {
  readonly sid: number;
  unsubscribe(): void;
}

export interface NatsClient {
  publish(subject: string, payload: Uint8Array, options?: { headers?: NatsHeaders; replyTo?: string }): Promise<void>;
  /** Resolves once the server answered a PING sent after everything written so far. */
  flush(): Promise<void>;
  subscribe(subject: string, onMessage: (message: NatsMessage) => void, options?: { queue?: string }): NatsSubscription;
  status(): NatsStatus;
  /** Resolves on each (re)connection; for tests and for "subscribed" lines. */
  onConnect(listener: () => void): void;
  close(): Promise<void>;
}

interface Entry {
  subject: string;
  frame: Buffer;
  resolve: () => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
  /** Confirmed or timed out: never settled or sent again. */
  done: boolean;
}

/** A PING in flight: the batch of messages it confirms, or a flush() waiting for it. */
interface PingWaiter {
  batch?: Entry[];
  done?: (ok: boolean) => void;
}

const DEFAULT_RECONNECT: ReconnectPolicy = { initialMs: 100, maxMs: 5000, jitterMs: 100 };

/** Connects to the first server that answers (trying each once); rejects when none does. */
export async function connectNats(options: NatsClientOptions): Promise<NatsClient> {
  const policy = { ...DEFAULT_RECONNECT, ...options.reconnect };
  const ackTimeoutMs = options.ackTimeoutMs ?? 10_000;
  const bufferLimit = options.bufferBytes ?? 8 * 1024 * 1024;
  const subscriptions = new Map<number, { subject: string; queue?: string; onMessage: (m: NatsMessage) => void }>();
  const connectListeners: (() => void)[] = [];
  /** The configured servers first, then those the cluster advertised. */
  const servers: NatsServerAddress[] = [...options.servers];
  let outbox: Entry[] = [];
  /** Publishes queued this event-loop turn, written together (one socket write) at its end. */
  let unsent: Entry[] = [];
  /** Publishes on the socket, waiting for the PING that will confirm them. */
  let written: Entry[] = [];
  let pingWaiters: PingWaiter[] = [];
  let socket: Socket | undefined;
  let current: NatsServerAddress | undefined;
  let serverVersion: string | undefined;
  let maxPayload = 1024 * 1024;
  let reconnects = 0;
  let lastError: string | undefined;
  let closed = false;
  let nextSid = 1;
  let nextServer = 0;
  let flushScheduled = false;
  let pingTimer: NodeJS.Timeout | undefined;
  let reconnectTimer: NodeJS.Timeout | undefined;

  async function attach(): Promise<void> {
    let lastFailure: Error | undefined;
    for (let i = 0, count = servers.length; i < count; i++) {
      const address = servers[(nextServer + i) % count]!;
      try {
        const opened = await openConnection({
          address,
          credentials: credentialsFor(address, options.credentials),
          ...(options.tls && { tls: options.tls }),
          name: options.name ?? 'airlock-messaging',
          version: options.version ?? '0.0.0',
          timeoutMs: options.connectTimeoutMs ?? 5000,
        });
        nextServer = (nextServer + i) % count;
        if (closed) {
          opened.socket.destroy();
          return;
        }
        socket = opened.socket;
        current = address;
        serverVersion = opened.info.version;
        maxPayload = opened.info.max_payload;
        learnServers(opened.info.connect_urls, address);
        lastError = undefined;
        opened.setHandler(onOp);
        socket.on('close', () => onDisconnect(opened.socket));
        socket.on('error', (error) => (lastError = error.message));
        for (const [sid, sub] of subscriptions) socket.write(encodeSubscribe(sub.subject, sid, sub.queue));
        const resend = outbox;
        outbox = [];
        for (const entry of resend) writeEntry(entry);
        scheduleFlush();
        pingTimer = setInterval(keepalive, options.pingIntervalMs ?? 30_000);
        pingTimer.unref();
        for (const listener of connectListeners) listener();
        return;
      } catch (error) {
        lastFailure = error as Error;
        lastError = lastFailure.message;
      }
    }
    throw lastFailure ?? new Error('No NATS server configured');
  }

  function onOp(op: ServerOp): void {
    switch (op.op) {
      case 'ping':
        socket?.write(PONG);
        return;
      case 'pong': {
        const waiter = pingWaiters.shift();
        for (const entry of waiter?.batch ?? []) settle(entry);
        waiter?.done?.(true);
        return;
      }
      case 'info':
        maxPayload = op.info.max_payload;
        if (current) learnServers(op.info.connect_urls, current);
        return;
      case 'err':
        lastError = op.message;
        options.log?.warn('nats server error', { server: current?.display, error: op.message });
        refuse(op.message);
        return;
      case 'msg': {
        const sub = subscriptions.get(op.sid);
        if (!sub) return;
        sub.onMessage({ subject: op.subject, ...(op.replyTo !== undefined && { replyTo: op.replyTo }), headers: op.headers ?? {}, ...(op.status !== undefined && { status: op.status }), payload: op.payload });
        return;
      }
      case 'ok':
        return;
    }
  }

  /**
   * Adds the cluster members an INFO advertises ("host:port" entries), with the scheme and the
   * URL-borne credentials of the server that advertised them; known servers are not added twice.
   */
  function learnServers(advertised: unknown, via: NatsServerAddress): void {
    if (!Array.isArray(advertised)) return;
    for (const entry of advertised) {
      if (typeof entry !== 'string') continue;
      const match = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(entry);
      if (!match) continue;
      const host = match[1]!;
      const port = Number(match[2]);
      if (servers.some((known) => known.host === host && known.port === port)) continue;
      const scheme = via.tls ? 'tls' : 'nats';
      const { display: _display, host: _host, port: _port, ...rest } = via;
      servers.push({ ...rest, host, port, display: `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}` });
    }
  }

  function keepalive(): void {
    if (!socket) return;
    // Two keepalives unanswered: the connection is stale, drop it and reconnect.
    if (pingWaiters.length >= 2) {
      lastError = 'stale connection: PINGs unanswered';
      socket.destroy();
      return;
    }
    pingWaiters.push({});
    socket.write(PING);
  }

  function onDisconnect(dead: Socket): void {
    if (socket !== dead) return;
    socket = undefined;
    clearInterval(pingTimer);
    // Unconfirmed messages go first, in their order, to the next connection.
    const unconfirmed = [...pingWaiters.flatMap((w) => w.batch ?? []), ...written, ...unsent].filter((e) => !e.done);
    for (const waiter of pingWaiters) waiter.done?.(false);
    pingWaiters = [];
    outbox = [...unconfirmed, ...outbox];
    written = [];
    unsent = [];
    if (closed) return;
    options.log?.warn('nats disconnected', { server: current?.display, error: lastError });
    scheduleReconnect(0);
  }

  function scheduleReconnect(attempt: number): void {
    const base = Math.min(policy.maxMs, policy.initialMs * 2 ** attempt);
    const delay = base + Math.floor(Math.random() * policy.jitterMs);
    reconnectTimer = setTimeout(() => {
      if (closed) return;
      nextServer = (nextServer + 1) % servers.length;
      attach().then(
        () => {
          reconnects++;
          options.log?.info('nats reconnected', { server: current?.display, attempt: attempt + 1 });
        },
        () => scheduleReconnect(attempt + 1),
      );
    }, delay);
  }

  function writeEntry(entry: Entry): void {
    unsent.push(entry);
  }

  /** The frames of the unsent publishes, plus `tail`, as one buffer: one write, not one per message. */
  function takeUnsent(tail: string): Buffer | string {
    const frames = unsent.filter((e) => !e.done);
    written.push(...frames);
    unsent = [];
    return frames.length === 0 ? tail : Buffer.concat([...frames.map((e) => e.frame), Buffer.from(tail)]);
  }

  /** One PING per event-loop turn, written with the turn's publishes, confirms every message before it. */
  function scheduleFlush(): void {
    if (flushScheduled || !socket || (written.length === 0 && unsent.length === 0)) return;
    flushScheduled = true;
    setImmediate(() => {
      flushScheduled = false;
      if (!socket) return;
      const frames = takeUnsent(PING);
      if (written.length === 0) return;
      pingWaiters.push({ batch: written });
      written = [];
      socket.write(frames);
    });
  }

  /**
   * The server keeps the connection after refusing a publish for permissions, and then answers the
   * PING: without this the refused message would count as confirmed. The server handles messages in
   * order, so the refusal belongs to the oldest unconfirmed publish to that subject.
   */
  function refuse(message: string): void {
    const subject = /^Permissions Violation for Publish to "(.+)"$/.exec(message)?.[1];
    if (subject === undefined) return;
    const entry = [...pingWaiters.flatMap((w) => w.batch ?? []), ...written, ...unsent].find((e) => !e.done && e.subject === subject);
    if (!entry) return;
    entry.done = true;
    clearTimeout(entry.timer);
    entry.reject(new AirlockError('bus_unavailable', `The NATS server refused the message to "${subject}": ${message}`));
  }

  function settle(entry: Entry): void {
    if (entry.done) return;
    entry.done = true;
    clearTimeout(entry.timer);
    entry.resolve();
  }

  function pendingBytes(): number {
    let total = 0;
    for (const entry of outbox) total += entry.frame.length;
    return total;
  }

  const client: NatsClient = {
    publish(subject, payload, publishOptions = {}) {
      if (closed) return Promise.reject(new AirlockError('bus_unavailable', 'Cannot publish: the NATS client is closed'));
      const size = publishedSize(payload, publishOptions.headers);
      if (size > maxPayload) {
        return Promise.reject(new AirlockError('bus_payload_too_large', `Cannot publish ${size} bytes to "${subject}": the server's max_payload is ${maxPayload}`));
      }
      const frame = encodePublish(subject, payload, publishOptions);
      if (!socket && pendingBytes() + frame.length > bufferLimit) {
        return Promise.reject(new AirlockError('bus_unavailable', `Cannot publish to "${subject}": disconnected and ${bufferLimit} bytes are already waiting`));
      }
      return new Promise<void>((resolve, reject) => {
        const entry: Entry = {
          subject,
          frame,
          resolve,
          reject,
          done: false,
          timer: setTimeout(() => {
            entry.done = true;
            outbox = outbox.filter((e) => e !== entry);
            written = written.filter((e) => e !== entry);
            unsent = unsent.filter((e) => e !== entry);
            reject(new AirlockError('bus_timeout', `The NATS server did not confirm the message to "${subject}" within ${ackTimeoutMs} ms`));
          }, ackTimeoutMs),
        };
        if (socket) {
          writeEntry(entry);
          scheduleFlush();
        } else outbox.push(entry);
      });
    },
    flush() {
      if (!socket) return Promise.reject(new AirlockError('bus_unavailable', 'Cannot flush: not connected to a NATS server'));
      const onSocket = socket;
      return new Promise<void>((resolve, reject) => {
        // Publishes queued this turn go out before the PING, which then confirms them and every
        // publish written before it: they settle before flush() resolves.
        const frames = takeUnsent(PING);
        pingWaiters.push({ batch: written, done: (ok) => (ok ? resolve() : reject(new AirlockError('bus_unavailable', 'Connection lost before the server answered PING'))) });
        written = [];
        onSocket.write(frames);
      });
    },
    subscribe(subject, onMessage, subscribeOptions = {}) {
      const sid = nextSid++;
      const frame = encodeSubscribe(subject, sid, subscribeOptions.queue);
      subscriptions.set(sid, { subject, onMessage, ...(subscribeOptions.queue !== undefined && { queue: subscribeOptions.queue }) });
      // After the publishes queued before it, as the calls were made: the new subscription must not get them.
      socket?.write(takeUnsent(frame));
      return {
        sid,
        unsubscribe() {
          if (!subscriptions.delete(sid)) return;
          if (socket) socket.write(takeUnsent(encodeUnsubscribe(sid)));
        },
      };
    },
    status() {
      return {
        connected: socket !== undefined,
        server: current?.display,
        server_version: serverVersion,
        max_payload: maxPayload,
        reconnects,
        known_servers: servers.length,
        pending_publishes: outbox.length + unsent.length + written.length + pingWaiters.reduce((n, w) => n + (w.batch?.length ?? 0), 0),
        last_error: lastError,
      };
    },
    onConnect(listener) {
      connectListeners.push(listener);
    },
    async close() {
      if (closed) return;
      if (socket && (unsent.length > 0 || written.length > 0 || pingWaiters.length > 0)) await client.flush().catch(() => undefined);
      closed = true;
      clearTimeout(reconnectTimer);
      clearInterval(pingTimer);
      const error = new AirlockError('bus_unavailable', 'The NATS client closed before the server confirmed the message');
      for (const entry of [...outbox, ...unsent, ...written, ...pingWaiters.flatMap((w) => w.batch ?? [])]) {
        if (entry.done) continue;
        entry.done = true;
        clearTimeout(entry.timer);
        entry.reject(error);
      }
      outbox = [];
      unsent = [];
      written = [];
      const open = socket;
      socket = undefined;
      if (open) await new Promise<void>((resolve) => open.end(resolve));
    },
  };

  await attach();
  return client;
}

/** Configured credentials win; otherwise those written in the server's URL. */
function credentialsFor(address: NatsServerAddress, configured: Credentials | undefined): Credentials {
  if (configured && (configured.user !== undefined || configured.token !== undefined)) return configured;
  return {
    ...(address.user !== undefined && { user: address.user }),
    ...(address.pass !== undefined && { pass: address.pass }),
    ...(address.token !== undefined && { token: address.token }),
  };
}
