// The JetStream API calls a replicated log needs beyond jetstream.ts: a stream created with its
// replica count and a refusal to discard, one publish with its PubAck (or the stream's refusal)
// and no resend of its own, the last message of a subject, a message by stream sequence, and a
// replay of every message of a subject filter through an ephemeral consumer.

import { randomBytes } from 'node:crypto';
import { AirlockError } from '../errors.ts';
import type { NatsClient, NatsMessage } from './client.ts';
import type { NatsHeaders } from './protocol.ts';
import { createRequester } from './request.ts';

const NS = 1_000_000_000;

/** JetStream's error body: `code` is HTTP-like, `err_code` the precise reason. */
export interface JsApiError {
  code?: number;
  err_code?: number;
  description?: string;
}

export interface StreamSettings {
  name: string;
  subjects: readonly string[];
  replicas: number;
  duplicateWindowSeconds: number;
}

export interface StreamState {
  replicas: number;
  subjects: readonly string[];
  messages: number;
  /** The cluster's view of the stream: its leader and replicas (absent on a lone server). */
  cluster?: { leader?: string; replicas?: { name: string; current: boolean }[] };
}

/** One publish's outcome: the stream's sequence, or the stream's refusal (the message was not stored). */
export type PublishOutcome = { ok: true; seq: number; duplicate: boolean } | { ok: false; error: JsApiError };

export interface StoredMessage {
  subject: string;
  /** The stream's sequence. */
  seq: number;
  headers: Record<string, string>;
  data: Buffer;
}

/** JetStream's err_code when `Nats-Expected-Last-Subject-Sequence` does not hold. */
export const WRONG_LAST_SEQUENCE = 10071;
/** JetStream's err_code for "no message found". */
export const NO_MESSAGE_FOUND = 10037;

export interface StreamApi {
  /** The stream's state, or undefined when it does not exist. Throws when JetStream does not answer. */
  info(name: string): Promise<StreamState | undefined>;
  /** info(), retried while JetStream does not answer (a cluster electing a leader) up to `timeoutMs`. */
  infoWithin(name: string, timeoutMs: number): Promise<StreamState | undefined>;
  /** Creates the stream (file storage, kept forever, new messages refused when full); an existing one is left as it is. */
  ensure(settings: StreamSettings): Promise<StreamState>;
  /** Publishes once and waits for the PubAck up to `timeoutMs`: rejects on a timeout (stored or not, unknown). */
  publish(subject: string, payload: Uint8Array, options: { headers: NatsHeaders; timeoutMs: number }): Promise<PublishOutcome>;
  /** How many messages the stream holds on `subject` (0 when none). */
  subjectCount(stream: string, subject: string): Promise<number>;
  lastBySubject(stream: string, subject: string): Promise<StoredMessage | undefined>;
  messageAt(stream: string, seq: number): Promise<StoredMessage | undefined>;
  /** Every message of `filterSubject` in stream order, handed to `onMessage`; resolves when all that were there at the start arrived. */
  replay(stream: string, filterSubject: string, onMessage: (message: StoredMessage) => void, options?: { idleTimeoutMs?: number; createTimeoutMs?: number }): Promise<number>;
}

export function createStreamApi(client: NatsClient, options: { timeoutMs?: number } = {}): StreamApi {
  const requester = createRequester(client);
  const timeoutMs = options.timeoutMs ?? 5000;
  async function api(subject: string, body: unknown): Promise<Record<string, unknown> & { error?: JsApiError }> {
    const reply = await requester.request(subject, Buffer.from(body === undefined ? '' : JSON.stringify(body)), { timeoutMs });
    return JSON.parse(reply.payload.toString('utf8')) as Record<string, unknown> & { error?: JsApiError };
  }
  function refused(what: string, error: JsApiError): AirlockError {
    return new AirlockError('bus_unavailable', `JetStream refused ${what}: ${error.description ?? 'error'} (err_code ${error.err_code ?? '-'})`);
  }
  function stateOf(reply: Record<string, unknown>): StreamState {
    const config = reply['config'] as { num_replicas?: number; subjects?: string[] };
    const state = reply['state'] as { messages?: number };
    return {
      replicas: config.num_replicas ?? 1,
      subjects: config.subjects ?? [],
      messages: state?.messages ?? 0,
      ...(reply['cluster'] !== undefined && { cluster: reply['cluster'] as StreamState['cluster'] }),
    };
  }
  async function getMessage(stream: string, request: Record<string, unknown>): Promise<StoredMessage | undefined> {
    const reply = await api(`$JS.API.STREAM.MSG.GET.${stream}`, request);
    if (reply.error) {
      if (reply.error.err_code === NO_MESSAGE_FOUND || reply.error.code === 404) return undefined;
      throw refused(`STREAM.MSG.GET ${stream}`, reply.error);
    }
    const message = reply['message'] as { subject: string; seq: number; hdrs?: string; data?: string };
    return { subject: message.subject, seq: message.seq, headers: parseStoredHeaders(message.hdrs), data: Buffer.from(message.data ?? '', 'base64') };
  }
  return {
    async info(name) {
      const reply = await api(`$JS.API.STREAM.INFO.${name}`, undefined);
      if (reply.error) {
        if (reply.error.code === 404) return undefined;
        throw refused(`STREAM.INFO ${name}`, reply.error);
      }
      return stateOf(reply);
    },
    async infoWithin(name, waitMs) {
      const deadline = Date.now() + waitMs;
      for (;;) {
        try {
          return await this.info(name);
        } catch (error) {
          if ((error as AirlockError).code !== 'bus_timeout' || Date.now() >= deadline) throw error;
        }
      }
    },
    async ensure(settings) {
      const existing = await this.info(settings.name);
      if (existing) return existing;
      const created = await api(`$JS.API.STREAM.CREATE.${settings.name}`, {
        name: settings.name,
        subjects: settings.subjects,
        retention: 'limits',
        storage: 'file',
        // Evidence is never dropped to make room: a full stream refuses, and the refusal is reported.
        discard: 'new',
        max_age: 0,
        num_replicas: settings.replicas,
        duplicate_window: settings.duplicateWindowSeconds * NS,
      });
      if (created.error) {
        // Another process created it in between.
        if (created.error.err_code === 10058) return (await this.info(settings.name))!;
        throw refused(`STREAM.CREATE ${settings.name} with ${settings.replicas} replicas`, created.error);
      }
      return stateOf(created);
    },
    async publish(subject, payload, publishOptions) {
      const reply = await requester.request(subject, payload, { timeoutMs: publishOptions.timeoutMs, headers: publishOptions.headers });
      const ack = JSON.parse(reply.payload.toString('utf8')) as { error?: JsApiError; seq?: number; duplicate?: boolean };
      if (ack.error) return { ok: false, error: ack.error };
      return { ok: true, seq: Number(ack.seq), duplicate: ack.duplicate === true };
    },
    async subjectCount(stream, subject) {
      const reply = await api(`$JS.API.STREAM.INFO.${stream}`, { subjects_filter: subject });
      if (reply.error) throw refused(`STREAM.INFO ${stream} for "${subject}"`, reply.error);
      const subjects = (reply['state'] as { subjects?: Record<string, number> } | undefined)?.subjects;
      return Number(subjects?.[subject] ?? 0);
    },
    lastBySubject: (stream, subject) => getMessage(stream, { last_by_subj: subject }),
    messageAt: (stream, seq) => getMessage(stream, { seq }),
    async replay(stream, filterSubject, onMessage, replayOptions = {}) {
      const deliver = `_INBOX.replay.${randomBytes(8).toString('hex')}`;
      let received = 0;
      let expected = Number.POSITIVE_INFINITY;
      let failure: Error | undefined;
      let wake: (() => void) | undefined;
      const subscription = client.subscribe(deliver, (message: NatsMessage) => {
        // Flow-control and heartbeat messages carry a status and no stream metadata. A flow-control
        // request (and a heartbeat naming a stalled consumer) is answered, or the server stops sending.
        if (message.status !== undefined) {
          const answer = message.replyTo ?? message.headers['Nats-Consumer-Stalled'];
          if (answer !== undefined) client.publish(answer, new Uint8Array(0)).catch(() => undefined);
          return;
        }
        if (message.replyTo === undefined) return;
        const seq = streamSeqOf(message.replyTo);
        if (seq === undefined) return;
        try {
          onMessage({ subject: message.subject, seq, headers: message.headers, data: message.payload });
        } catch (error) {
          failure = error as Error;
        }
        received++;
        wake?.();
      });
      await client.flush();
      // A cluster that just lost a server answers consumer creation only once it has noticed (seconds): retry up to a bound.
      const createDeadline = Date.now() + (replayOptions.createTimeoutMs ?? 60_000);
      let created: Awaited<ReturnType<typeof api>>;
      for (;;) {
        try {
          created = await api(`$JS.API.CONSUMER.CREATE.${stream}`, {
            stream_name: stream,
            // Flow control: without it the server pushes a large stream faster than the client reads,
            // drops the connection as a slow consumer (64 MiB pending), and the replay stalls.
            config: { deliver_subject: deliver, deliver_policy: 'all', ack_policy: 'none', filter_subject: filterSubject, replay_policy: 'instant', inactive_threshold: 60 * NS, flow_control: true, idle_heartbeat: 5 * NS },
          });
          break;
        } catch (error) {
          if ((error as AirlockError).code !== 'bus_timeout' || Date.now() >= createDeadline) {
            subscription.unsubscribe();
            throw error;
          }
        }
      }
      if (created.error) {
        subscription.unsubscribe();
        throw refused(`CONSUMER.CREATE on ${stream} for "${filterSubject}"`, created.error);
      }
      expected = Number((created['num_pending'] as number | undefined) ?? 0);
      const consumer = String(created['name']);
      const idleMs = replayOptions.idleTimeoutMs ?? 10_000;
      try {
        while (received < expected && failure === undefined) {
          const before = received;
          await new Promise<void>((resolve) => {
            wake = resolve;
            setTimeout(resolve, idleMs).unref();
          });
          if (received === before && received < expected) {
            throw new AirlockError('bus_timeout', `Replay of "${filterSubject}" from ${stream} stalled at ${received} of ${expected} messages for ${idleMs} ms`);
          }
        }
        if (failure) throw failure;
        return received;
      } finally {
        wake = undefined;
        subscription.unsubscribe();
        await api(`$JS.API.CONSUMER.DELETE.${stream}.${consumer}`, undefined).catch(() => undefined);
      }
    },
  };
}

/**
 * The stream sequence in a JetStream delivery's reply subject: $JS.ACK.<stream>.<consumer>.<delivered>.<sseq>...
 * (9 tokens), or with a domain and account hash after ACK (12 tokens).
 */
function streamSeqOf(replyTo: string): number | undefined {
  const tokens = replyTo.split('.');
  if (tokens[0] !== '$JS' || tokens[1] !== 'ACK' || tokens.length < 9) return undefined;
  const seq = Number(tokens[tokens.length === 9 ? 5 : 7]);
  return Number.isSafeInteger(seq) ? seq : undefined;
}

/** The header block of a stored message ("NATS/1.0\r\nName: value\r\n..."), base64 in MSG.GET's answer. */
function parseStoredHeaders(base64: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (base64 === undefined) return headers;
  for (const line of Buffer.from(base64, 'base64').toString('utf8').split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return headers;
}
