// The NATS bus on a nats-server with JetStream: a mailbox publish is acknowledged once stored,
// a repeated Nats-Msg-Id is stored and delivered once, and a durable subscriber gets what was
// published while it, or the server, was away.

import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Bus, BusMessage } from '../../src/messaging/bus.ts';
import { createMailboxService } from '../../src/messaging/mailbox-adapter.ts';
import type { MailboxService } from '../../src/messaging/mailbox-adapter.ts';
import { openNatsBus } from '../../src/messaging/nats-bus.ts';
import { send } from '../helpers/http.ts';
import { startNatsServer } from '../helpers/nats-server.ts';
import type { RunningNatsServer } from '../helpers/nats-server.ts';
import { until } from '../helpers/until.ts';

const FAST = { initialMs: 20, maxMs: 100, jitterMs: 10 };

const ids = (got: BusMessage[]) => got.map((m) => m.headers['Nats-Msg-Id']);

describe('NATS bus with JetStream', () => {
  let server: RunningNatsServer;
  let publisher: Bus;
  before(async () => {
    server = await startNatsServer({ jetstream: true });
    publisher = await openNatsBus({ url: server.url, jetstream: 'on', reconnect: FAST });
  });
  after(async () => {
    await publisher.close();
    await server.stop();
  });

  test('health says jetstream; a repeated Nats-Msg-Id is delivered once to a durable subscriber', async (t) => {
    assert.equal(publisher.health().persistence, 'jetstream');
    const subscriber = await openNatsBus({ url: server.url, reconnect: FAST });
    t.after(() => subscriber.close());
    const got: BusMessage[] = [];
    const sub = await subscriber.subscribeDurable('mailbox.dedup', 'dedup-reader', (m) => { got.push(m); });
    for (const id of ['a', 'a', 'b']) await publisher.publish('mailbox.dedup', Buffer.from(id), { headers: { 'Nats-Msg-Id': `js-${id}` } });
    await until(() => got.length === 2, 10_000);
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(ids(got), ['js-a', 'js-b']);
    sub.unsubscribe();
  });

  test('a durable subscriber that was away gets what was published meanwhile', async () => {
    const first = await openNatsBus({ url: server.url, reconnect: FAST });
    await first.subscribeDurable('mailbox.away', 'away-reader', () => undefined);
    await first.close();
    for (let i = 0; i < 3; i++) await publisher.publish('mailbox.away', Buffer.from(String(i)), { headers: { 'Nats-Msg-Id': `away-${i}` } });
    const again = await openNatsBus({ url: server.url, reconnect: FAST });
    try {
      const got: BusMessage[] = [];
      await again.subscribeDurable('mailbox.away', 'away-reader', (m) => { got.push(m); });
      // Deliveries attempted while nobody listened come again after the ack wait, in any order.
      await until(() => got.length === 3, 10_000);
      assert.deepEqual(ids(got).sort(), ['away-0', 'away-1', 'away-2']);
    } finally {
      await again.close();
    }
  });

  test('across a server restart every acknowledged publish reaches the durable subscriber once', async (t) => {
    const subscriber = await openNatsBus({ url: server.url, reconnect: FAST });
    t.after(() => subscriber.close());
    const got: BusMessage[] = [];
    await subscriber.subscribeDurable('mailbox.restart', 'restart-reader', (m) => { got.push(m); });
    const acked: string[] = [];
    const publish = async (i: number) => {
      await publisher.publish('mailbox.restart', Buffer.from(String(i)), { headers: { 'Nats-Msg-Id': `r-${i}` } });
      acked.push(`r-${i}`);
    };
    for (let i = 0; i < 5; i++) await publish(i);
    await server.stop();
    const during = Promise.all([5, 6, 7].map(publish));
    await new Promise((r) => setTimeout(r, 200));
    await server.start();
    await during;
    for (let i = 8; i < 10; i++) await publish(i);
    await until(() => got.length >= 10, 10_000);
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(ids(got).sort(), [...acked].sort());
    assert.equal(new Set(ids(got)).size, got.length);
  });
});

test('mailbox adapter on JetStream: every 202 is a message the stream holds, a Nats-Msg-Id reused on another mailbox included', async (t) => {
  const server = await startNatsServer({ jetstream: true });
  t.after(() => server.stop());
  const service = await createMailboxService({ env: { AIRLOCK_DATA_DIR: mkdtempSync(join(tmpdir(), 'airlock-js-mailbox-')), NATS_URL: server.url }, listen: '127.0.0.1:0' });
  t.after(() => service.close());
  await service.listen();
  const subscriber = await openNatsBus({ url: server.url, reconnect: FAST });
  t.after(() => subscriber.close());
  const got: BusMessage[] = [];
  await subscriber.subscribeDurable('mailbox.>', 'reuse-reader', (m) => { got.push(m); });
  const accepted: string[] = [];
  for (const mailbox of ['box-a', 'box-b']) {
    const res = await send(`${service.url('mailbox')}/api/v1/mailboxes/${mailbox}/messages`, { method: 'POST', headers: { 'content-type': 'text/plain', 'nats-msg-id': 'shared-id' }, body: `to ${mailbox}` });
    if (res.status === 202) accepted.push(`to ${mailbox}`);
    else assert.equal(res.status, 422, res.text);
  }
  await settle(service, got);
  assert.deepEqual(got.map((m) => m.payload.toString()).filter((p) => p !== 'end'), accepted);
  assert.deepEqual(accepted, ['to box-a']);
});

/** Publishes a marker through the adapter and waits until the subscriber has it: what came before has arrived. */
async function settle(service: MailboxService, got: BusMessage[]): Promise<void> {
  await send(`${service.url('mailbox')}/api/v1/mailboxes/end/messages`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'end' });
  await until(() => got.some((m) => m.payload.toString() === 'end'), 10_000);
}

test('NATS_JETSTREAM=on refuses a server without JetStream; auto falls back to core NATS', async () => {
  const server = await startNatsServer();
  try {
    await assert.rejects(openNatsBus({ url: server.url, jetstream: 'on' }), /no JetStream/);
    const bus = await openNatsBus({ url: server.url });
    assert.equal(bus.health().persistence, 'core');
    await assert.rejects(bus.subscribeDurable('mailbox.x', 'x', () => undefined), { code: 'bus_unavailable' });
    await bus.close();
  } finally {
    await server.stop();
  }
});
