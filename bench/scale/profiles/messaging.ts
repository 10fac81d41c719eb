// The messaging service at scale. Its business event is the seed's mailbox publication: a JSON
// message POSTed to the mailbox adapter (messaging-mailbox), which puts it on the bus (the
// embedded bus: a bus_messages row) and records the publication (a mailbox_publications row).
// Three in four go to the plan-studio review transport mailbox, one in four to another mailbox.
// The process measured is the owner-readback service (messaging-owner-readback), the reader of
// that evidence; the mailbox adapter's and the API's health and status read the bus connection
// and the lane observers in memory, no evidence row, and are not timed here.

import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { openMessagingDatabase } from '../../../src/messaging/database.ts';
import { openEmbeddedBus } from '../../../src/messaging/embedded-bus.ts';
import { createMailboxPublisher } from '../../../src/messaging/mailbox-publisher.ts';
import { REVIEW_TRANSPORT_PATH } from '../../../src/messaging/routes.ts';
import { startService } from '../measure.ts';
import type { GrowOutcome, ReadRoute, ScaleProfile } from '../profile.ts';

const TOKEN = 'scale-bench-owner-readback-token';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const REVIEW_MAILBOX = 'plan-studio-review';
const OTHER_MAILBOX = 'ops-notices';
const GROW_CONCURRENCY = 16;

/** The n-th publication: its mailbox, its Nats-Msg-Id and its JSON body. */
function publication(n: number): { mailbox: string; msgId: string; body: Buffer } {
  const mailbox = n % 4 === 3 ? OTHER_MAILBOX : REVIEW_MAILBOX;
  const body = Buffer.from(JSON.stringify({ type: 'plan.review.requested', plan_id: `plan-${Math.floor(n / 3)}`, revision: n % 7, reviewer: 'studio', note: 'please review the plan revision' }));
  return { mailbox, msgId: `scale-${n}`, body };
}

function post(agent: Agent, url: URL, item: ReturnType<typeof publication>): Promise<number> {
  return new Promise((resolve) => {
    const req = request(new URL(`/api/v1/mailboxes/${item.mailbox}/messages`, url), {
      method: 'POST',
      agent,
      headers: { 'content-type': 'application/json', 'nats-msg-id': item.msgId, 'content-length': String(item.body.length) },
    }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.end(item.body);
  });
}

export function messagingProfile(): ScaleProfile {
  const grown: GrowOutcome = { events: 0, rawBytes: 0 };
  let dataDir = '';
  const source = (path: string) => fileURLToPath(new URL(`../../../src/messaging/${path}`, import.meta.url));
  const get = (name: string, path: string, headers: Record<string, string> = AUTH): ReadRoute => ({ name, request: { path, headers } });
  const profile: ScaleProfile = {
    service: 'messaging',
    businessEvent: 'mailbox publication',
    entry: source('main-owner-readback.ts'),
    bundle: 'messaging-owner-readback.mjs',
    env: (dir) => {
      dataDir = dir;
      return {
        AIRLOCK_DATA_DIR: dir,
        OWNER_READBACK_API_TOKEN: TOKEN,
        MESSAGING_OWNER_READBACK_LISTEN: '127.0.0.1:0',
        MESSAGING_MAILBOX_LISTEN: '127.0.0.1:0',
        MESSAGING_REVIEW_TRANSPORT_MAILBOX: REVIEW_MAILBOX,
      };
    },
    database: (dir) => join(dir, 'messaging.sqlite'),
    // The mailbox adapter, started beside the owner readback over the same data directory.
    async grow(_url, target) {
      const adapter = await startService({ ...profile, service: 'messaging-mailbox', entry: source('main-mailbox.ts') }, dataDir);
      const agent = new Agent({ keepAlive: true, maxSockets: GROW_CONCURRENCY });
      const base = new URL(adapter.url);
      let next = grown.events;
      try {
        const worker = async () => {
          while (next < target) {
            const item = publication(next++);
            const status = await post(agent, base, item);
            if (status !== 202) throw new Error(`The mailbox adapter answered ${status} to publication ${item.msgId}`);
            grown.events++;
            grown.rawBytes += item.body.length;
          }
        };
        await Promise.all(Array.from({ length: GROW_CONCURRENCY }, worker));
      } finally {
        agent.destroy();
        await adapter.stop();
      }
      return { ...grown };
    },
    // What the publish route calls: createMailboxPublisher() over the embedded bus and the store.
    async growDirect(dir, target) {
      const store = openMessagingDatabase(join(dir, 'messaging.sqlite'));
      const bus = openEmbeddedBus({ store });
      const publish = createMailboxPublisher({ bus, store });
      try {
        while (grown.events < target) {
          const batch: Promise<unknown>[] = [];
          while (batch.length < 2000 && grown.events < target) {
            const item = publication(grown.events++);
            grown.rawBytes += item.body.length;
            batch.push(publish({ mailbox: item.mailbox, subject: `mailbox.${item.mailbox}`, msgId: item.msgId, idFromClient: true, body: item.body, contentType: 'application/json', requestId: `req-${item.msgId}` }));
          }
          await Promise.all(batch);
        }
      } finally {
        await bus.close();
        await store.close();
      }
      return { ...grown };
    },
    reads: [
      get('GET /healthz', '/healthz'),
      get('GET /readyz', '/readyz'),
      get('GET review-transport (default 100 rows)', REVIEW_TRANSPORT_PATH),
      get('GET review-transport?limit=1', `${REVIEW_TRANSPORT_PATH}?limit=1`),
      get('GET review-transport?limit=500', `${REVIEW_TRANSPORT_PATH}?limit=500`),
    ],
    heaviest: get('GET review-transport?limit=500', `${REVIEW_TRANSPORT_PATH}?limit=500`),
    readiness: get('GET /readyz', '/readyz'),
  };
  return profile;
}
