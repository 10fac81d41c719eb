// mailbox-publish: POST a message to the mailbox adapter, which publishes it to a real
// nats-server and waits for the server's confirmation and the evidence commit before answering
// 202, beside the bare node:http baseline. A subscriber on the same nats-server counts what
// arrives: every message the adapter recorded as published must arrive (0 lost). Target
// (issue 17): at least 0.5 of the baseline's requests/s at concurrency 50.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabaseReadOnly } from '../../src/kernel/index.ts';
import { connectNats } from '../../src/kernel/nats/client.ts';
import { parseNatsUrls } from '../../src/kernel/nats/url.ts';
import { startNatsServer } from '../../test/helpers/nats-server.ts';
import { compareHttp } from '../lib/compare-http.ts';
import type { Scenario } from '../lib/scenario.ts';

const BODY = JSON.stringify({ plan: 'p-0042', review: { reviewer: 'agent-7', verdict: 'needs-changes', notes: ['a', 'b'] } });

export const scenario: Scenario = {
  name: 'mailbox-publish',
  description: 'POST to the mailbox adapter -> publish to nats-server (core, then JetStream), confirmed, evidence appended vs bare node:http; counts lost messages',
  async run(options) {
    return [await measureVariant('mailbox-publish', false, options), await measureVariant('mailbox-publish-jetstream', true, options)];
  },
};

async function measureVariant(name: string, jetstream: boolean, options: Parameters<Scenario['run']>[0]) {
  const nats = await startNatsServer({ jetstream });
  const dir = mkdtempSync(join(tmpdir(), 'airlock-bench-mailbox-'));
  const subscriber = await connectNats({ servers: parseNatsUrls(nats.url) });
  const received = new Set<string>();
  let duplicates = 0;
  subscriber.subscribe('mailbox.>', (m) => {
    const id = m.headers['Nats-Msg-Id'] ?? '';
    if (received.has(id)) duplicates++;
    received.add(id);
  });
  await subscriber.flush();
  try {
    const record = await compareHttp({
      scenario: name,
      server: fileURLToPath(new URL('../servers/mailbox-publish.ts', import.meta.url)),
      env: { NATS_URL: nats.url, BENCH_DATA_DIR: dir, NATS_JETSTREAM: jetstream ? 'on' : 'off' },
      request: { path: '/api/v1/mailboxes/plan-studio-review/messages', method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY },
      baselineRequest: { path: '/', method: 'POST', body: BODY },
      expectStatus: 202,
    }, options);
    await subscriber.flush();
    await new Promise((r) => setTimeout(r, 200));
    const db = openDatabaseReadOnly(join(dir, 'messaging.sqlite'));
    const ids = (db.prepare('SELECT msg_id FROM mailbox_publications').all() as { msg_id: string }[]).map((r) => r.msg_id);
    db.close();
    const lost = ids.filter((id) => !received.has(id)).length;
    return { ...record, target_ratio: 0.5, published: ids.length, received: received.size, lost, duplicates };
  } finally {
    await subscriber.close();
    await nats.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
