// The embedded bus: NATS subjects and Nats-Msg-Id de-duplication on node:sqlite, for one host
// without a NATS server. A publish commits a row (the same id again is accepted and stored once);
// subscribers in any process on the host poll the table from the row that was last when they
// subscribed, so like core NATS they see what is published after they subscribe.

import { AirlockError, isValidSubject, statement, subjectMatches } from '../kernel/index.ts';
import type { Store } from '../kernel/index.ts';
import type { Bus, BusMessage, BusSubscription } from './bus.ts';
import { MSG_ID_HEADER } from './bus.ts';
import { BUS_MESSAGES } from './database.ts';
import { createRecentIds } from './recent-ids.ts';

/** The same default as nats-server's max_payload. */
export const EMBEDDED_MAX_PAYLOAD = 1024 * 1024;
export const DEFAULT_POLL_MS = 50;
const POLL_BATCH = 500;

export interface EmbeddedBusOptions {
  store: Store;
  pollMs?: number;
  maxPayload?: number;
}

export function openEmbeddedBus(options: EmbeddedBusOptions): Bus {
  const { store } = options;
  const maxPayload = options.maxPayload ?? EMBEDDED_MAX_PAYLOAD;
  const pollMs = options.pollMs ?? DEFAULT_POLL_MS;
  const lastSeq = store.sqlite.prepare('SELECT coalesce(max(seq), 0) AS seq FROM bus_messages');
  const after = store.sqlite.prepare('SELECT seq, subject, payload FROM bus_messages WHERE seq > ? ORDER BY seq LIMIT ?');
  const subscribers = new Set<{ pattern: string; onMessage: (m: BusMessage) => void; seen: ReturnType<typeof createRecentIds> }>();
  let cursor = Number((lastSeq.get() as { seq: number }).seq);
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let lastError: string | undefined;

  function poll(): void {
    try {
      for (;;) {
        const rows = after.all(cursor, POLL_BATCH) as { seq: number; subject: string; payload: string }[];
        for (const row of rows) {
          cursor = row.seq;
          const { headers, body } = JSON.parse(row.payload) as { headers: Record<string, string>; body: string };
          const message: BusMessage = { subject: row.subject, headers, payload: Buffer.from(body, 'base64') };
          for (const sub of subscribers) {
            if (!subjectMatches(sub.pattern, row.subject)) continue;
            const id = headers[MSG_ID_HEADER];
            if (id !== undefined && !sub.seen.firstSighting(id)) continue;
            sub.onMessage(message);
          }
        }
        if (rows.length < POLL_BATCH) break;
      }
      lastError = undefined;
    } catch (error) {
      lastError = (error as Error).message;
    }
  }

  function ensurePolling(): void {
    if (timer || closed) return;
    timer = setInterval(poll, pollMs);
  }

  return {
    kind: 'embedded',
    async publish(subject, payload, publishOptions = {}) {
      if (closed) throw new Error('Cannot publish: the embedded bus is closed');
      if (!isValidSubject(subject, { wildcards: false })) throw new TypeError(`Invalid subject "${subject}": use dot-separated tokens without spaces or wildcards`);
      const headers = { ...publishOptions.headers };
      const size = payload.length + Object.entries(headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
      if (size > maxPayload) {
        throw new AirlockError('bus_payload_too_large', `Cannot publish ${size} bytes to "${subject}": the embedded bus's max_payload is ${maxPayload}`);
      }
      const msgId = headers[MSG_ID_HEADER] ?? '';
      await store.write((sqlite, tx) => {
        if (msgId !== '' && statement(sqlite, 'SELECT 1 FROM bus_messages WHERE msg_id = ? LIMIT 1').get(msgId)) return;
        tx.append(BUS_MESSAGES, { subject, msg_id: msgId, payload: { headers, body: Buffer.from(payload).toString('base64') } });
      });
    },
    subscribe(subject, onMessage): BusSubscription {
      if (!isValidSubject(subject, { wildcards: true })) throw new TypeError(`Invalid subject "${subject}"`);
      const sub = { pattern: subject, onMessage, seen: createRecentIds() };
      if (subscribers.size === 0) cursor = Number((lastSeq.get() as { seq: number }).seq);
      subscribers.add(sub);
      ensurePolling();
      return {
        unsubscribe() {
          subscribers.delete(sub);
          if (subscribers.size === 0 && timer) {
            clearInterval(timer);
            timer = undefined;
          }
        },
      };
    },
    async subscribeDurable() {
      throw new AirlockError('bus_unavailable', 'Durable subscriptions need NATS with JetStream: set NATS_URL');
    },
    async ready() {
      return undefined;
    },
    health() {
      return { kind: 'embedded', connected: !closed && lastError === undefined, target: store.path, max_payload: maxPayload, persistence: 'sqlite', reconnects: 0, last_error: lastError };
    },
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      subscribers.clear();
    },
  };
}
