// The NATS client against a server that misbehaves (test/messaging/_hostile-nats.ts): a clear
// error for a bad handshake, max_payload honoured, a protocol violation dropped and recovered
// from, and no publish acknowledged that the server refused.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectNats } from '../../src/kernel/nats/client.ts';
import type { NatsClient } from '../../src/kernel/nats/client.ts';
import { parseNatsUrls } from '../../src/kernel/nats/url.ts';
import { info, startHostileNats } from './_hostile-nats.ts';
import type { HostileBehaviour, HostileNats } from './_hostile-nats.ts';
import { until } from '../helpers/until.ts';

const FAST = { initialMs: 10, maxMs: 50, jitterMs: 5 };

async function withDouble(behaviour: HostileBehaviour, body: (server: HostileNats) => Promise<void>): Promise<void> {
  const server = await startHostileNats(behaviour);
  try {
    await body(server);
  } finally {
    await server.close();
  }
}

function open(server: HostileNats, extra: { ackTimeoutMs?: number; credentials?: { user?: string; pass?: string } } = {}): Promise<NatsClient> {
  return connectNats({ servers: parseNatsUrls(server.url), reconnect: FAST, connectTimeoutMs: 2000, ackTimeoutMs: extra.ackTimeoutMs ?? 2000, ...(extra.credentials && { credentials: extra.credentials }) });
}

test('an INFO line longer than 64 KiB without an end is refused with a clear error, quickly', async () => {
  await withDouble({ greeting: (s) => s.write(`INFO {"max_payload":1048576,"x":"${'a'.repeat(200_000)}`) }, async (server) => {
    await assert.rejects(open(server), /NATS server nats:\/\/127\.0\.0\.1:\d+: NATS protocol violation: control line too long/);
  });
});

test('an INFO that is not JSON or lacks max_payload is refused, naming the server', async () => {
  for (const greeting of ['INFO {not json\r\n', 'INFO {"server_id":"x"}\r\n', 'HELLO\r\n']) {
    await withDouble({ greeting: (s) => s.write(greeting) }, async (server) => {
      await assert.rejects(open(server), /NATS server nats:\/\/127\.0\.0\.1:\d+: NATS protocol violation: /);
    });
  }
});

test('-ERR at CONNECT is a refused connection that says why and never shows the password', async () => {
  await withDouble({ onHandshake: (s) => s.end("-ERR 'Authorization Violation'\r\n") }, async (server) => {
    await assert.rejects(open(server, { credentials: { user: 'u', pass: 'hunter2-secret' } }), (error: Error) => {
      assert.match(error.message, /refused the connection: Authorization Violation/);
      assert.doesNotMatch(error.message, /hunter2/);
      return true;
    });
  });
});

test('a max_payload smaller than the message refuses the publish before a byte is sent', async () => {
  await withDouble({ greeting: (s) => s.write(info({ max_payload: 64 })) }, async (server) => {
    const client = await open(server);
    try {
      await assert.rejects(client.publish('mailbox.a', Buffer.alloc(100)), { code: 'bus_payload_too_large' });
      await client.publish('mailbox.a', Buffer.alloc(10));
      assert.deepEqual(server.frames.filter((f) => f.verb === 'PUB').map((f) => f.payload?.length), [10]);
    } finally {
      await client.close();
    }
  });
});

test('a malformed line after the handshake drops the connection; the client reconnects and the publish is confirmed', async () => {
  let first = true;
  await withDouble({
    onPublish: (s) => {
      if (first) {
        first = false;
        s.write('GARBAGE LINE\r\n');
      }
    },
  }, async (server) => {
    const client = await open(server);
    try {
      await client.publish('mailbox.a', Buffer.from('x'));
      assert.equal(server.connections, 2);
      assert.equal(client.status().reconnects, 1);
    } finally {
      await client.close();
    }
  });
});

test('a publish the server answers with -ERR (permissions) is not acknowledged, though the PONG follows', async () => {
  await withDouble({ onPublish: (s, f) => s.write(`-ERR 'Permissions Violation for Publish to "${f.args[0]}"'\r\n`) }, async (server) => {
    const client = await open(server, { ackTimeoutMs: 500 });
    try {
      await assert.rejects(client.publish('mailbox.a', Buffer.from('x')), /Permissions Violation/);
    } finally {
      await client.close();
    }
  });
});

test('a MSG announcing more than max_payload bytes is a protocol violation, not an unbounded buffer', async () => {
  await withDouble({
    greeting: (s) => s.write(info({ max_payload: 1024 })),
    onHandshake: (s) => s.write('PONG\r\nMSG mailbox.a 1 999999999\r\n'),
  }, async (server) => {
    const client = await open(server);
    try {
      await until(() => server.connections >= 2, 3000);
    } finally {
      await client.close();
    }
  });
});

test('the mailbox adapter refused by the NATS server fails to start with one clear line (bus_unavailable), no stack, no password', async () => {
  const { createMailboxService } = await import('../../src/messaging/mailbox-adapter.ts');
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  await withDouble({ onHandshake: (s) => s.end("-ERR 'Authorization Violation'\r\n") }, async (server) => {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-msg-hostile-'));
    const env = { AIRLOCK_DATA_DIR: dir, NATS_URL: server.url.replace('nats://', 'nats://ops:pw-in-url-77@'), NATS_RECONNECT_WAIT_MS: '10' };
    await assert.rejects(createMailboxService({ env, listen: '127.0.0.1:0' }), (error: Error & { code?: string }) => {
      assert.equal(error.code, 'bus_unavailable');
      assert.match(error.message, /refused the connection: Authorization Violation: check NATS_URL/);
      assert.doesNotMatch(error.message, /pw-in-url-77/);
      return true;
    });
  });
});

test('a NATS_TLS_CA_FILE that cannot be read fails the start with one line naming the variable (config_invalid)', async () => {
  const { createMailboxService } = await import('../../src/messaging/mailbox-adapter.ts');
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join(tmpdir(), 'airlock-msg-ca-'));
  const env = { AIRLOCK_DATA_DIR: dir, NATS_URL: 'tls://127.0.0.1:1', NATS_TLS_CA_FILE: join(dir, 'missing-ca.pem') };
  await assert.rejects(createMailboxService({ env, listen: '127.0.0.1:0' }), (error: Error & { code?: string }) => {
    assert.equal(error.code, 'config_invalid');
    assert.match(error.message, /NATS_TLS_CA_FILE ".*missing-ca\.pem": ENOENT/);
    return true;
  });
});
