// Request/reply over our NATS client: one wildcard inbox subscription per client, a token per
// request, a time limit, and "no responders" (a `NATS/1.0 503` reply) reported as such.

import { randomBytes } from 'node:crypto';
import { AirlockError } from '../errors.ts';
import type { NatsClient, NatsMessage } from './client.ts';
import type { NatsHeaders } from './protocol.ts';

export interface Requester {
  request(subject: string, payload: Uint8Array, options: { timeoutMs: number; headers?: NatsHeaders }): Promise<NatsMessage>;
}

export function createRequester(client: NatsClient): Requester {
  const prefix = `_INBOX.${randomBytes(11).toString('hex')}`;
  const pending = new Map<string, { resolve: (m: NatsMessage) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  let next = 0;
  client.subscribe(`${prefix}.*`, (message) => {
    const token = message.subject.slice(prefix.length + 1);
    const waiter = pending.get(token);
    if (!waiter) return;
    pending.delete(token);
    clearTimeout(waiter.timer);
    if (message.status?.startsWith('503')) waiter.reject(new AirlockError('bus_unavailable', 'No responders: nothing on the server answers this subject'));
    else waiter.resolve(message);
  });
  return {
    request(subject, payload, options) {
      const token = String(next++);
      return new Promise<NatsMessage>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(token);
          reject(new AirlockError('bus_timeout', `No reply on "${subject}" within ${options.timeoutMs} ms`));
        }, options.timeoutMs);
        pending.set(token, { resolve, reject, timer });
        client.publish(subject, payload, { replyTo: `${prefix}.${token}`, ...(options.headers && { headers: options.headers }) }).catch((error: Error) => {
          if (!pending.delete(token)) return;
          clearTimeout(timer);
          reject(error);
        });
      });
    },
  };
}
