// The NATS client against a real nats-server (Debian package): publish and subscribe, headers,
// auth, TLS, a payload above max_payload, and a server restart in the middle.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { connectNats } from '../../../src/kernel/nats/client.ts';
import type { NatsClient, NatsMessage } from '../../../src/kernel/nats/client.ts';
import { parseNatsUrls } from '../../../src/kernel/nats/url.ts';
import { selfSignedCertificate, startNatsServer } from '../../helpers/nats-server.ts';
import type { RunningNatsServer } from '../../helpers/nats-server.ts';
import { until } from '../../helpers/until.ts';

const FAST = { initialMs: 20, maxMs: 200, jitterMs: 10 };

function collect(client: NatsClient, subject: string): NatsMessage[] {
  const got: NatsMessage[] = [];
  client.subscribe(subject, (m) => got.push(m));
  return got;
}

describe('NATS client against nats-server', () => {
  let server: RunningNatsServer;
  before(async () => {
    server = await startNatsServer({ maxPayload: 4096 });
  });
  after(async () => server.stop());

  test('publish() resolves after the server confirmed; a subscriber gets payload and headers (HPUB/HMSG)', async () => {
    const sub = await connectNats({ servers: parseNatsUrls(server.url) });
    const pub = await connectNats({ servers: parseNatsUrls(server.url) });
    const got = collect(sub, 'mailbox.*');
    await sub.flush();
    await pub.publish('mailbox.alpha', Buffer.from('plain'));
    await pub.publish('mailbox.beta', Buffer.from('{"a":1}'), { headers: { 'Nats-Msg-Id': 'id-1', 'Content-Type': 'application/json' } });
    await pub.publish('other.gamma', Buffer.from('not mine'));
    await until(() => got.length === 2);
    assert.equal(got[0]!.subject, 'mailbox.alpha');
    assert.equal(got[0]!.payload.toString(), 'plain');
    assert.deepEqual(got[0]!.headers, {});
    assert.equal(got[1]!.headers['Nats-Msg-Id'], 'id-1');
    assert.equal(got[1]!.headers['Content-Type'], 'application/json');
    assert.equal(got[1]!.payload.toString(), '{"a":1}');
    assert.equal(pub.status().max_payload, 4096);
    await sub.close();
    await pub.close();
  });

  test('UNSUB stops delivery', async () => {
    const client = await connectNats({ servers: parseNatsUrls(server.url) });
    const got: NatsMessage[] = [];
    const sub = client.subscribe('unsub.test', (m) => got.push(m));
    await client.publish('unsub.test', Buffer.from('1'));
    await until(() => got.length === 1);
    sub.unsubscribe();
    await client.publish('unsub.test', Buffer.from('2'));
    await client.flush();
    assert.equal(got.length, 1);
    await client.close();
  });

  test('close() in the turn of a publish sends it and waits for its confirmation', async (t) => {
    const sub = await connectNats({ servers: parseNatsUrls(server.url) });
    t.after(() => sub.close());
    const got = collect(sub, 'close.same-turn');
    await sub.flush();
    const pub = await connectNats({ servers: parseNatsUrls(server.url), ackTimeoutMs: 2000 });
    const published = pub.publish('close.same-turn', Buffer.from('last words'));
    const started = Date.now();
    await pub.close();
    await published;
    assert.ok(Date.now() - started < 1000, 'confirmed by the close, not left to its ack timeout');
    await until(() => got.length === 1);
    assert.equal(got[0]!.payload.toString(), 'last words');
  });

  test('a publish made before subscribe() in the same turn reaches the server first, so the new subscription does not get it', async (t) => {
    const client = await connectNats({ servers: parseNatsUrls(server.url) });
    t.after(() => client.close());
    const published = client.publish('order.before-sub', Buffer.from('earlier'));
    const got = collect(client, 'order.before-sub');
    await published;
    await client.publish('order.before-sub', Buffer.from('later'));
    await until(() => got.length >= 1);
    await client.flush();
    assert.deepEqual(got.map((m) => m.payload.toString()), ['later']);
  });

  test('flush() resolves only after the publishes made before it are confirmed', async (t) => {
    const client = await connectNats({ servers: parseNatsUrls(server.url) });
    t.after(() => client.close());
    const settled: string[] = [];
    const publishes = ['a', 'b', 'c'].map((name) => client.publish(`flush.${name}`, Buffer.from(name)).then(() => settled.push(name)));
    await client.flush();
    assert.deepEqual(settled.sort(), ['a', 'b', 'c']);
    await Promise.all(publishes);
  });

  test('a payload above the server max_payload is refused before it is sent; the connection stays usable', async () => {
    const client = await connectNats({ servers: parseNatsUrls(server.url) });
    await assert.rejects(client.publish('big.one', Buffer.alloc(4097)), { code: 'bus_payload_too_large' });
    await assert.rejects(client.publish('big.one', Buffer.alloc(4000), { headers: { 'Nats-Msg-Id': 'x'.repeat(200) } }), { code: 'bus_payload_too_large' });
    await client.publish('big.one', Buffer.alloc(4096));
    assert.equal(client.status().connected, true);
    await client.close();
  });

  test('invalid subjects are refused', async () => {
    const client = await connectNats({ servers: parseNatsUrls(server.url) });
    for (const bad of ['', 'a b', 'a..b', 'a.*', 'a.>', 'a\r\nPUB x 1']) assert.throws(() => void client.publish(bad, Buffer.from('x')), TypeError);
    assert.throws(() => client.subscribe('a.>.b', () => undefined), TypeError);
    await client.close();
  });

  test('a server restart in the middle: publishes made while it is down are delivered once it is back, and subscriptions resume', async () => {
    const sub = await connectNats({ servers: parseNatsUrls(server.url), reconnect: FAST });
    const pub = await connectNats({ servers: parseNatsUrls(server.url), reconnect: { initialMs: 200, maxMs: 400, jitterMs: 10 } });
    const got = collect(sub, 'restart.>');
    await sub.flush();
    await pub.publish('restart.a', Buffer.from('before'));
    await until(() => got.length === 1);
    let resubscribed = false;
    sub.onConnect(() => (resubscribed = true));
    await server.stop();
    await until(() => !pub.status().connected && !sub.status().connected);
    const during = pub.publish('restart.b', Buffer.from('during'));
    assert.equal(pub.status().pending_publishes, 1);
    await server.start();
    await until(() => resubscribed);
    await during;
    await pub.publish('restart.c', Buffer.from('after'));
    await until(() => got.length >= 3);
    assert.deepEqual(got.map((m) => m.payload.toString()), ['before', 'during', 'after']);
    assert.equal(pub.status().reconnects, 1);
    await sub.close();
    await pub.close();
  });

  test('close() rejects what the server never confirmed', async () => {
    const pub = await connectNats({ servers: parseNatsUrls(server.url), reconnect: FAST });
    await server.stop();
    await until(() => !pub.status().connected);
    const waiting = pub.publish('closed.a', Buffer.from('x'));
    await pub.close();
    await assert.rejects(waiting, { code: 'bus_unavailable' });
    await server.start();
  });
});

describe('NATS client authentication and TLS', () => {
  test('user and password: right ones connect, wrong ones are refused', async () => {
    const server = await startNatsServer({ user: 'shuttle', pass: 's3cret' });
    try {
      const ok = await connectNats({ servers: parseNatsUrls(server.url), credentials: { user: 'shuttle', pass: 's3cret' } });
      await ok.publish('auth.ok', Buffer.from('x'));
      await ok.close();
      const inUrl = await connectNats({ servers: parseNatsUrls(`nats://shuttle:s3cret@127.0.0.1:${server.port}`) });
      await inUrl.close();
      await assert.rejects(connectNats({ servers: parseNatsUrls(server.url), credentials: { user: 'shuttle', pass: 'wrong' } }), /Authorization Violation/i);
      await assert.rejects(connectNats({ servers: parseNatsUrls(server.url) }), /Authorization Violation/i);
    } finally {
      await server.stop();
    }
  });

  test('token: right one connects, wrong one is refused', async () => {
    const server = await startNatsServer({ token: 'tok-123' });
    try {
      const ok = await connectNats({ servers: parseNatsUrls(server.url), credentials: { token: 'tok-123' } });
      await ok.close();
      await assert.rejects(connectNats({ servers: parseNatsUrls(server.url), credentials: { token: 'nope' } }), /Authorization Violation/i);
    } finally {
      await server.stop();
    }
  });

  test('tls:// upgrades after INFO and verifies the server certificate', async () => {
    const tls = selfSignedCertificate();
    const server = await startNatsServer({ tls });
    try {
      const ca = readFileSync(tls.cert);
      const client = await connectNats({ servers: parseNatsUrls(`tls://127.0.0.1:${server.port}`), tls: { ca } });
      const got = collect(client, 'tls.x');
      await client.publish('tls.x', Buffer.from('secret'));
      await until(() => got.length === 1);
      await client.close();
      await assert.rejects(connectNats({ servers: parseNatsUrls(`tls://127.0.0.1:${server.port}`) }), /TLS|certificate/i);
    } finally {
      await server.stop();
    }
  });
});

test('parseNatsUrls() reads nats:// and tls:// URLs and never shows credentials', () => {
  const [a] = parseNatsUrls('nats://u:p@example.org:4333');
  assert.deepEqual({ ...a }, { host: 'example.org', port: 4333, tls: false, user: 'u', pass: 'p', display: 'nats://example.org:4333' });
  const [b] = parseNatsUrls('tls://tok@127.0.0.1');
  assert.equal(b!.token, 'tok');
  assert.equal(b!.port, 4222);
  assert.equal(b!.tls, true);
  assert.throws(() => parseNatsUrls('http://secret:pw@host'), (e: Error) => !e.message.includes('secret'));
  assert.throws(() => parseNatsUrls(' , '), TypeError);
});
