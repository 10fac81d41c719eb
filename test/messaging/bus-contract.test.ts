// One contract, two buses: the embedded bus on node:sqlite and NATS (a real nats-server) must
// behave the same behind the Bus interface.

import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Bus, BusMessage } from '../../src/messaging/bus.ts';
import { openMessagingDatabase } from '../../src/messaging/database.ts';
import { openEmbeddedBus } from '../../src/messaging/embedded-bus.ts';
import { openNatsBus } from '../../src/messaging/nats-bus.ts';
import { startNatsServer } from '../helpers/nats-server.ts';
import type { RunningNatsServer } from '../helpers/nats-server.ts';
import { until } from '../helpers/until.ts';

interface Harness {
  open(): Promise<Bus>;
  stop(): Promise<void>;
}

const implementations: [string, () => Promise<Harness>][] = [
  [
    'embedded',
    async () => {
      const path = join(mkdtempSync(join(tmpdir(), 'airlock-bus-')), 'messaging.sqlite');
      const stores: ReturnType<typeof openMessagingDatabase>[] = [];
      return {
        // Each bus has its own connection, as separate processes on one host would.
        async open() {
          const store = openMessagingDatabase(path);
          stores.push(store);
          return openEmbeddedBus({ store, pollMs: 5 });
        },
        async stop() {
          for (const s of stores) await s.close();
        },
      };
    },
  ],
  [
    'nats',
    async () => {
      const server: RunningNatsServer = await startNatsServer();
      return { open: () => openNatsBus({ url: server.url }), stop: () => server.stop() };
    },
  ],
];

for (const [name, make] of implementations) {
  describe(`Bus contract: ${name}`, () => {
    let harness: Harness;
    let publisher: Bus;
    let subscriber: Bus;
    before(async () => {
      harness = await make();
      publisher = await harness.open();
      subscriber = await harness.open();
    });
    after(async () => {
      await publisher.close();
      await subscriber.close();
      await harness.stop();
    });

    test(`${name}: a subscriber gets what is published after it subscribed, with headers, matching wildcards only`, async () => {
      const got: BusMessage[] = [];
      const sub = subscriber.subscribe('mailbox.*', (m) => got.push(m));
      await subscriber.ready();
      await publisher.publish('mailbox.ops', Buffer.from('hello'), { headers: { 'Nats-Msg-Id': `${name}-1`, 'Content-Type': 'text/plain' } });
      await publisher.publish('mailbox.ops.deeper', Buffer.from('no'));
      await publisher.publish('other.ops', Buffer.from('no'));
      await publisher.publish('mailbox.ops', Buffer.from([0, 255, 13, 10]));
      await until(() => got.length === 2);
      assert.equal(got[0]!.payload.toString(), 'hello');
      assert.equal(got[0]!.headers['Content-Type'], 'text/plain');
      assert.deepEqual([...got[1]!.payload], [0, 255, 13, 10]);
      sub.unsubscribe();
    });

    test(`${name}: the same Nats-Msg-Id published twice reaches a subscriber once`, async () => {
      const got: BusMessage[] = [];
      const sub = subscriber.subscribe('dedup.>', (m) => got.push(m));
      await subscriber.ready();
      for (const id of ['a', 'a', 'b', 'a']) await publisher.publish('dedup.x', Buffer.from(id), { headers: { 'Nats-Msg-Id': `${name}-dedup-${id}` } });
      await publisher.publish('dedup.end', Buffer.from('end'));
      await until(() => got.some((m) => m.subject === 'dedup.end'));
      assert.deepEqual(got.map((m) => m.payload.toString()), ['a', 'b', 'end']);
      sub.unsubscribe();
    });

    test(`${name}: a payload above max_payload is refused and nothing is delivered`, async () => {
      const got: BusMessage[] = [];
      const sub = subscriber.subscribe('big.>', (m) => got.push(m));
      await subscriber.ready();
      const max = publisher.health().max_payload;
      assert.equal(max, 1024 * 1024);
      await assert.rejects(publisher.publish('big.one', Buffer.alloc(max + 1)), { code: 'bus_payload_too_large' });
      await publisher.publish('big.end', Buffer.from('end'));
      await until(() => got.length === 1);
      assert.equal(got[0]!.subject, 'big.end');
      sub.unsubscribe();
    });

    test(`${name}: invalid subjects are refused`, async () => {
      await assert.rejects(async () => publisher.publish('a b', Buffer.from('x')), TypeError);
      await assert.rejects(async () => publisher.publish('mailbox.*', Buffer.from('x')), TypeError);
      assert.throws(() => subscriber.subscribe('a..b', () => undefined), TypeError);
    });

    test(`${name}: health names the kind and says connected`, () => {
      const health = publisher.health();
      assert.equal(health.kind, name);
      assert.equal(health.connected, true);
      assert.ok(!/pass|token/i.test(health.target));
    });
  });
}
