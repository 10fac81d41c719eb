// The NATS client against a real 3-server nats-server cluster on loopback: given every server's
// URL (comma-separated, as AIRLOCK_EVIDENCE_NATS_URL and NATS_URL take them), it connects to any
// server that answers and, when its server dies, reconnects to another and carries on.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connectNats, parseNatsUrls } from '../../../src/kernel/index.ts';
import type { NatsMessage } from '../../../src/kernel/index.ts';
import { startNatsCluster } from '../../helpers/nats-cluster.ts';
import type { RunningNatsCluster } from '../../helpers/nats-cluster.ts';
import { until } from '../../helpers/until.ts';

const FAST = { initialMs: 20, maxMs: 200, jitterMs: 10 };

describe('NATS client against a nats-server cluster', () => {
  let cluster: RunningNatsCluster;
  before(async () => {
    cluster = await startNatsCluster({ size: 3, jetstream: false });
  });
  after(async () => cluster.stop());

  test('connectNats() with several URLs skips a server that is down and connects to the next', async () => {
    const [first, second] = cluster.servers;
    await first!.stop();
    try {
      const client = await connectNats({ servers: parseNatsUrls(cluster.urls), reconnect: FAST });
      assert.equal(client.status().server, second!.url);
      await client.close();
    } finally {
      await first!.start();
    }
  });

  test('a client whose server dies reconnects to another server of the cluster and its publishes arrive', async () => {
    const [, , third] = cluster.servers;
    // The subscriber sits on the third server only; messages reach it over the cluster's routes.
    const subscriber = await connectNats({ servers: parseNatsUrls(third!.url) });
    const got: NatsMessage[] = [];
    subscriber.subscribe('cluster.test', (m) => got.push(m));
    await subscriber.flush();
    const publisher = await connectNats({ servers: parseNatsUrls(cluster.urls), reconnect: FAST });
    const before = publisher.status().server;
    assert.notEqual(before, third!.url, 'the publisher starts on the first server that answers');
    // Routes between servers settle asynchronously after a subscribe: wait until the first message crosses.
    await until(() => {
      void publisher.publish('cluster.test', Buffer.from('warm-up'));
      return got.length > 0;
    });
    const dying = cluster.servers.find((server) => server.url === before)!;
    await dying.stop();
    try {
      await publisher.publish('cluster.test', Buffer.from('after failover'));
      // Generous: under a full test run on 2 cores the reconnect and the route's delivery took over 5 s once.
      await until(() => got.some((m) => m.payload.toString() === 'after failover'), 15_000);
      const status = publisher.status();
      assert.equal(status.connected, true);
      assert.notEqual(status.server, before);
      assert.equal(status.reconnects, 1);
    } finally {
      await publisher.close();
      await subscriber.close();
      // Restarted whatever happened above, so the next test finds the whole cluster.
      await dying.start();
    }
  });

  test('a client given one URL learns the other members from INFO connect_urls and fails over to one of them', async () => {
    const [first] = cluster.servers;
    const client = await connectNats({ servers: parseNatsUrls(first!.url), reconnect: FAST });
    await first!.stop();
    try {
      await client.publish('cluster.learned', Buffer.from('x'));
      const status = client.status();
      assert.equal(status.connected, true);
      assert.notEqual(status.server, first!.url);
      assert.ok(cluster.servers.slice(1).some((server) => server.url === status.server), `reconnected to ${status.server}`);
    } finally {
      await client.close();
      await first!.start();
    }
  });
});

