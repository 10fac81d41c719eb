// The part of JetStream (NATS's persistence layer, reached through the $JS.API request subjects)
// that makes "acknowledged" mean "stored": a file-backed stream over the mailbox subjects with a
// de-duplication window keyed on Nats-Msg-Id, publishes acknowledged by the stream's PubAck (and
// retried with the same id until one arrives), and durable push consumers whose messages are
// acknowledged one by one, so a subscriber that was away gets what it missed.

import { AirlockError } from '../errors.ts';
import type { NatsClient, NatsMessage } from './client.ts';
import type { NatsHeaders } from './protocol.ts';
import { createRequester } from './request.ts';

const NS = 1_000_000_000;
const API_TIMEOUT_MS = 2000;
const ACK = Buffer.from('+ACK');

export interface StreamConfig {
  name: string;
  subjects: readonly string[];
  duplicateWindowSeconds: number;
  maxAgeSeconds: number;
}

export interface PubAck {
  stream: string;
  seq: number;
  duplicate: boolean;
}

export interface JetStream {
  /** Creates the stream unless it exists; resolves false when the server has no JetStream. */
  ensureStream(config: StreamConfig): Promise<boolean>;
  /** Publishes and waits for the stream's PubAck, resending with the same headers until `deadlineMs`. */
  publish(subject: string, payload: Uint8Array, options: { headers: NatsHeaders; deadlineMs: number }): Promise<PubAck>;
  /**
   * A durable push consumer on `stream`, filtered to `filterSubject`; each message is acknowledged
   * after `onMessage` unless it returned false. stop() resolves once the server has taken (or failed to answer) every ack.
   */
  consume(stream: string, options: { durable: string; filterSubject: string; ackWaitSeconds: number }, onMessage: (message: NatsMessage) => boolean | void): Promise<{ stop(): Promise<void> }>;
}

type ApiReply = { error?: { code?: number; err_code?: number; description?: string } } & Record<string, unknown>;

export function createJetStream(client: NatsClient): JetStream {
  const requester = createRequester(client);
  const api = async (subject: string, body: unknown): Promise<ApiReply> => {
    const reply = await requester.request(subject, Buffer.from(body === undefined ? '' : JSON.stringify(body)), { timeoutMs: API_TIMEOUT_MS });
    return JSON.parse(reply.payload.toString('utf8')) as ApiReply;
  };
  return {
    async ensureStream(config) {
      let info: ApiReply;
      try {
        info = await api(`$JS.API.STREAM.INFO.${config.name}`, undefined);
      } catch (error) {
        if ((error as AirlockError).code === 'bus_unavailable') return false; // No responders: JetStream is off.
        throw error;
      }
      if (!info.error) return true;
      if (info.error.code !== 404) throw new AirlockError('bus_unavailable', `JetStream refused STREAM.INFO ${config.name}: ${info.error.description ?? 'error'}`);
      const created = await api(`$JS.API.STREAM.CREATE.${config.name}`, {
        name: config.name,
        subjects: config.subjects,
        retention: 'limits',
        storage: 'file',
        discard: 'old',
        num_replicas: 1,
        duplicate_window: config.duplicateWindowSeconds * NS,
        max_age: config.maxAgeSeconds * NS,
      });
      // Another process may have created it in between: "stream name already in use" is fine.
      if (created.error && created.error.err_code !== 10058) throw new AirlockError('bus_unavailable', `JetStream refused STREAM.CREATE ${config.name}: ${created.error.description ?? 'error'}`);
      return true;
    },
    async publish(subject, payload, options) {
      const deadline = Date.now() + options.deadlineMs;
      let last: Error | undefined;
      while (Date.now() < deadline) {
        try {
          const reply = await requester.request(subject, payload, { timeoutMs: Math.min(API_TIMEOUT_MS, Math.max(1, deadline - Date.now())), headers: options.headers });
          const ack = JSON.parse(reply.payload.toString('utf8')) as ApiReply;
          if (ack.error) throw new AirlockError('bus_unavailable', `JetStream refused the message: ${ack.error.description ?? 'error'}`);
          return { stream: String(ack['stream']), seq: Number(ack['seq']), duplicate: ack['duplicate'] === true };
        } catch (error) {
          last = error as Error;
          const code = (error as AirlockError).code;
          // A refusal or an oversized message will not change by resending; a lost reply might.
          if (code === 'bus_payload_too_large' || (code === 'bus_unavailable' && !/No responders|closed/.test(last.message))) throw error;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      throw new AirlockError('bus_timeout', `No JetStream acknowledgement for "${subject}" within ${options.deadlineMs} ms${last ? `: ${last.message}` : ''}`);
    },
    async consume(stream, options, onMessage) {
      const deliverSubject = `_DELIVER.${stream}.${options.durable}`;
      const created = await api(`$JS.API.CONSUMER.DURABLE.CREATE.${stream}.${options.durable}`, {
        stream_name: stream,
        config: {
          durable_name: options.durable,
          deliver_subject: deliverSubject,
          deliver_policy: 'new',
          ack_policy: 'explicit',
          ack_wait: options.ackWaitSeconds * NS,
          max_deliver: -1,
          filter_subject: options.filterSubject,
          replay_policy: 'instant',
        },
      });
      if (created.error) throw new AirlockError('bus_unavailable', `JetStream refused consumer "${options.durable}": ${created.error.description ?? 'error'}`);
      // A push consumer delivers every message to each subscription on its deliver subject: a second
      // subscriber would get (and ack) a copy of everything, so it is refused, as NATS clients do.
      if (created['push_bound'] === true) throw new AirlockError('bus_unavailable', `Durable consumer "${options.durable}" is in use by another subscriber: stop it first, or use another name`);
      // Each ack is a request: the server answers once the consumer has taken it (JetStream's
      // "ack ack"), so stop() can wait until every delivered message is acknowledged for good
      // and a subscriber that exits right after its last message does not get it again next time.
      const acks = new Set<Promise<void>>();
      const sub = client.subscribe(deliverSubject, (message) => {
        // Not taken (false): no ack, so the server delivers it again after the ack wait, to
        // whoever then holds the consumer; acknowledging it would lose it.
        if (onMessage(message) === false || message.replyTo === undefined) return;
        // A lost ack means a redelivery, which the subscriber drops by id: nothing to report.
        const ack = requester.request(message.replyTo, ACK, { timeoutMs: API_TIMEOUT_MS }).then(() => undefined, () => undefined);
        acks.add(ack);
        void ack.then(() => acks.delete(ack));
      });
      await client.flush();
      return {
        async stop() {
          sub.unsubscribe();
          // stop() may be called from inside onMessage: that message's ack is sent once it returns.
          await Promise.resolve();
          await Promise.all(acks);
        },
      };
    },
  };
}
