// The bus on a real NATS server, through our client (src/kernel/nats/). With JetStream on the
// server (NATS_JETSTREAM=auto, the default, or on), mailbox subjects go to the file-backed stream
// MAILBOX: a publish is acknowledged by the stream's PubAck, a repeated Nats-Msg-Id inside the
// de-duplication window is stored once, and durable subscribers get what they missed. Without
// JetStream (auto on a server that has none, or off), core NATS: the server has the message, and
// only subscribers connected at that moment get it.

import { AirlockError, connectNats, createJetStream, parseNatsUrls } from '../kernel/index.ts';
import type { Logger, NatsClient, NatsClientOptions, NatsMessage } from '../kernel/index.ts';
import type { Bus, BusMessage, BusSubscription } from './bus.ts';
import { MSG_ID_HEADER } from './bus.ts';
import { createRecentIds } from './recent-ids.ts';

export const STREAM_NAME = 'MAILBOX';
export const STREAM_SUBJECTS = ['mailbox.>'];
/** Nats-Msg-Id de-duplication window of the stream: a retry within it is stored once. */
export const DUPLICATE_WINDOW_SECONDS = 120;
export const STREAM_MAX_AGE_SECONDS = 7 * 24 * 3600;
/** Unacknowledged durable deliveries are sent again after this long. */
export const ACK_WAIT_SECONDS = 2;

export type JetStreamMode = 'auto' | 'on' | 'off';

export interface NatsBusOptions extends Omit<NatsClientOptions, 'servers' | 'log'> {
  url: string;
  jetstream?: JetStreamMode;
  log?: Logger;
}

/** Connects to NATS_URL (and prepares the stream); rejects when no server answers, or JetStream is `on` but missing. */
export async function openNatsBus(options: NatsBusOptions): Promise<Bus> {
  const { url, jetstream: mode = 'auto', ...rest } = options;
  let client: NatsClient;
  try {
    client = await connectNats({ ...rest, servers: parseNatsUrls(url) });
  } catch (error) {
    // An operator's mistake (address, credentials, TLS), not a crash: one line that says what to
    // check, without a stack. The message names the server, never a credential.
    throw new AirlockError('bus_unavailable', `${(error as Error).message}: check NATS_URL, the NATS credentials and NATS_TLS_CA_FILE, and that nats-server is running`, { cause: error });
  }
  const js = createJetStream(client);
  const stream = { name: STREAM_NAME, subjects: STREAM_SUBJECTS, duplicateWindowSeconds: DUPLICATE_WINDOW_SECONDS, maxAgeSeconds: STREAM_MAX_AGE_SECONDS };
  let persistent = false;
  if (mode !== 'off') {
    try {
      persistent = await js.ensureStream(stream);
    } catch (error) {
      await client.close();
      throw error;
    }
    if (!persistent && mode === 'on') {
      await client.close();
      throw new AirlockError('bus_unavailable', `NATS_JETSTREAM=on but the server at ${parseNatsUrls(url)[0]!.display} has no JetStream: start nats-server with -js (or set NATS_JETSTREAM=auto)`);
    }
    if (!persistent) options.log?.warn('nats server has no JetStream: core NATS, a message reaches only subscribers connected at that moment');
    // A server restarted with an empty store gets its stream back.
    if (persistent) client.onConnect(() => void js.ensureStream(stream).catch((error: Error) => options.log?.warn('stream check after reconnect failed', { error: error.message })));
  }
  const ackTimeoutMs = options.ackTimeoutMs ?? 10_000;
  const inStream = (subject: string) => persistent && subject.startsWith('mailbox.');
  const deliver = (recent: ReturnType<typeof createRecentIds>, onMessage: (m: BusMessage) => boolean | void) => (message: NatsMessage) => {
    const id = message.headers[MSG_ID_HEADER];
    if (id !== undefined && !recent.firstSighting(id)) return;
    const taken = onMessage({ subject: message.subject, headers: message.headers, payload: message.payload });
    // A message the subscriber did not take comes again, and must not then be dropped as a repeat.
    if (taken === false && id !== undefined) recent.forget(id);
    return taken;
  };
  return {
    kind: 'nats',
    async publish(subject, payload, publishOptions = {}) {
      if (inStream(subject)) {
        await js.publish(subject, payload, { headers: publishOptions.headers ?? {}, deadlineMs: ackTimeoutMs });
        return;
      }
      await client.publish(subject, payload, publishOptions.headers ? { headers: publishOptions.headers } : {});
    },
    subscribe(subject, onMessage): BusSubscription {
      const sub = client.subscribe(subject, deliver(createRecentIds(), onMessage));
      return { unsubscribe: () => sub.unsubscribe() };
    },
    async subscribeDurable(subject, durable, onMessage) {
      if (!persistent || !subject.startsWith('mailbox.')) throw new AirlockError('bus_unavailable', `Durable subscriptions need JetStream and a mailbox subject; got "${subject}" on ${persistent ? 'JetStream' : 'core NATS'}`);
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(durable)) throw new TypeError(`Invalid durable name "${durable}": letters, digits, "-" and "_"`);
      const consumer = await js.consume(STREAM_NAME, { durable, filterSubject: subject, ackWaitSeconds: ACK_WAIT_SECONDS }, deliver(createRecentIds(), onMessage));
      return { unsubscribe: () => consumer.stop() };
    },
    ready: () => client.flush(),
    health() {
      const status = client.status();
      return {
        kind: 'nats',
        connected: status.connected,
        target: status.server ?? parseNatsUrls(url)[0]!.display,
        max_payload: status.max_payload,
        persistence: persistent ? 'jetstream' : 'core',
        reconnects: status.reconnects,
        last_error: status.last_error,
      };
    },
    close: () => client.close(),
  };
}
