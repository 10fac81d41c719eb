// StreamApi.replay() on a stream larger than what nats-server queues for one client: the push
// consumer runs with flow control, so the server waits for the reader instead of dropping it as a
// slow consumer (which stalled evidence_restore and verify_evidence_chain --nats on any stream past
// the server's default 64 MiB per-client queue: 80 MiB here).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connectNats, createStreamApi, parseNatsUrls } from '../../../src/kernel/index.ts';
import { startNatsServer } from '../../helpers/nats-server.ts';
import type { RunningNatsServer } from '../../helpers/nats-server.ts';

let server: RunningNatsServer;
before(async () => {
  server = await startNatsServer({ jetstream: true });
});
after(async () => {
  await server.stop();
});

test('replay() delivers every message of a stream many times larger than the server\'s per-client queue', { timeout: 120_000 }, async () => {
  const client = await connectNats({ servers: parseNatsUrls(server.url) });
  try {
    const api = createStreamApi(client);
    await api.ensure({ name: 'BIG', subjects: ['big.>'], replicas: 1, duplicateWindowSeconds: 60 });
    const body = Buffer.alloc(4096, 'x');
    const total = 20000;
    for (let start = 0; start < total; start += 100) {
      const outcomes = await Promise.all(Array.from({ length: 100 }, (_, i) => api.publish('big.rows', body, { headers: { 'Nats-Msg-Id': `m${start + i}` }, timeoutMs: 10_000 })));
      assert.ok(outcomes.every((o) => o.ok));
    }
    const seen: number[] = [];
    const received = await api.replay('BIG', 'big.>', (message) => seen.push(message.seq), { idleTimeoutMs: 8000 });
    assert.equal(received, total);
    assert.deepEqual(seen, Array.from({ length: total }, (_, i) => i + 1));
  } finally {
    await client.close();
  }
});
