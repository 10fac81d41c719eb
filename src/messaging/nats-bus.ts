// The bus on a real NATS server, through our client (src/messaging/nats/).

import type { Logger } from '../kernel/index.ts';
import type { Bus, BusMessage, BusSubscription } from './bus.ts';
import { MSG_ID_HEADER } from './bus.ts';
import { connectNats } from './nats/client.ts';
import type { NatsClientOptions } from './nats/client.ts';
import { createRecentIds } from './recent-ids.ts';
import { parseNatsUrls } from './nats/url.ts';

export interface NatsBusOptions extends Omit<NatsClientOptions, 'servers' | 'log'> {
  url: string;
  log?: Logger;
}

/** Connects to NATS_URL; rejects when no server of the URL answers. */
export async function openNatsBus(options: NatsBusOptions): Promise<Bus> {
  const { url, ...rest } = options;
  const client = await connectNats({ ...rest, servers: parseNatsUrls(url) });
  return {
    kind: 'nats',
    publish: (subject, payload, publishOptions = {}) => client.publish(subject, payload, publishOptions.headers ? { headers: publishOptions.headers } : {}),
    subscribe(subject, onMessage): BusSubscription {
      const recent = createRecentIds();
      const sub = client.subscribe(subject, (message) => {
        const id = message.headers[MSG_ID_HEADER];
        if (id !== undefined && !recent.firstSighting(id)) return;
        const delivered: BusMessage = { subject: message.subject, headers: message.headers, payload: message.payload };
        onMessage(delivered);
      });
      return { unsubscribe: () => sub.unsubscribe() };
    },
    ready: () => client.flush(),
    health() {
      const status = client.status();
      return {
        kind: 'nats',
        connected: status.connected,
        target: status.server ?? parseNatsUrls(url)[0]!.display,
        max_payload: status.max_payload,
        reconnects: status.reconnects,
        last_error: status.last_error,
      };
    },
    close: () => client.close(),
  };
}
