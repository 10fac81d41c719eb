// Messaging outlives its host (docs/replication.md): the mailbox adapter in sync replication mode
// on a real nats-server with JetStream publishes, is SIGKILLed, its data directory is deleted;
// evidence_restore rebuilds it, and the adapter and the owner readback started there answer as
// before: the review-transport evidence reads the same, a retry with a recorded Nats-Msg-Id is
// answered from its record without a second message on the bus, and new publications carry on
// the chain. Every table the messaging processes read is evidence except observer_leases, which
// starts empty (a lease expires; the restored host takes it at its first poll).

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, test } from 'node:test';
import { send } from '../helpers/http.ts';
import { startNatsServer } from '../helpers/nats-server.ts';
import type { RunningNatsServer } from '../helpers/nats-server.ts';
import { runEntry, startServiceProcess, syncReplicationEnv } from '../helpers/service-process.ts';
import type { ServiceProcess } from '../helpers/service-process.ts';

const TOKEN = 'owner-readback-test-token';
const MAILBOX = 'plan-studio-review';
let server: RunningNatsServer;
let dir: string;
const running: ServiceProcess[] = [];

before(async () => {
  server = await startNatsServer({ jetstream: true });
  dir = mkdtempSync(join(tmpdir(), 'airlock-messaging-restore-'));
});
after(async () => {
  for (const service of running) await service.stop('SIGKILL');
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function startMessaging(dataDir: string): Promise<{ mailbox: string; readback: string; stop: (signal: NodeJS.Signals) => Promise<void> }> {
  const env = { AIRLOCK_DATA_DIR: dataDir, ...syncReplicationEnv(server.url) };
  const adapter = await startServiceProcess('src/messaging/main-mailbox.ts', { env });
  const readback = await startServiceProcess('src/messaging/main-owner-readback.ts', { env: { AIRLOCK_DATA_DIR: dataDir, OWNER_READBACK_API_TOKEN: TOKEN } });
  running.push(adapter, readback);
  return {
    mailbox: Object.values(adapter.urls)[0]!,
    readback: Object.values(readback.urls)[0]!,
    stop: async (signal) => {
      await adapter.stop(signal);
      await readback.stop(signal);
    },
  };
}

function publish(url: string, body: string, msgId?: string) {
  return send(`${url}/api/v1/mailboxes/${MAILBOX}/messages`, { method: 'POST', body, headers: { 'content-type': 'text/plain', ...(msgId !== undefined && { 'nats-msg-id': msgId }) } });
}

async function reviewTransport(url: string): Promise<unknown> {
  const response = await send(`${url}/api/v1/evidence/plan-studio-review-transport`, { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(response.status, 200, response.text);
  return response.json();
}

function busMessages(dataDir: string): number {
  const db = new DatabaseSync(join(dataDir, 'messaging.sqlite'), { readOnly: true });
  try {
    return Number(db.prepare('SELECT count(*) AS n FROM bus_messages').get()?.['n']);
  } finally {
    db.close();
  }
}

test('messaging: a lost host is restored from the stream; reads answer the same, a recorded Nats-Msg-Id is answered from its record, the chain carries on', { timeout: 120_000 }, async () => {
  const lost = join(dir, 'lost');
  let messaging = await startMessaging(lost);
  const first: Record<string, unknown>[] = [];
  for (const id of ['m-1', 'm-2', 'm-3']) {
    const response = await publish(messaging.mailbox, `review ${id}`, id);
    assert.equal(response.status, 202, response.text);
    first.push(response.json() as Record<string, unknown>);
  }
  assert.equal((await publish(messaging.mailbox, 'no id given')).status, 202);
  // The adapter's health reports the replication beside the bus (docs/replication.md).
  const healthz = (await send(`${messaging.mailbox}/healthz`)).json() as { checks: Record<string, { status: string; mode: string; observedValue: number }[]> };
  assert.deepEqual(healthz.checks['evidence:replication']!.map((c) => [c.status, c.mode, c.observedValue]), [['pass', 'sync', 0]]);
  const before = await reviewTransport(messaging.readback);
  // sync: every acknowledged publication is in the stream, so the host may die at once.
  await messaging.stop('SIGKILL');
  rmSync(lost, { recursive: true, force: true });

  const restoredDir = join(dir, 'restored');
  const restored = await runEntry('scripts/evidence_restore.ts', ['--service', 'messaging', '--nats', server.url, '--data-dir', restoredDir, '--json']);
  assert.equal(restored.status, 0, restored.stderr);
  const tables = (JSON.parse(restored.stdout) as { tables: { table: string; rows: number }[] }).tables;
  assert.deepEqual(tables.map((t) => [t.table, t.rows]), [['bus_messages', 4], ['mailbox_publications', 4]]);

  messaging = await startMessaging(restoredDir);
  assert.deepEqual(await reviewTransport(messaging.readback), before);
  // The retry of a recorded id: its first answer, marked replayed, and nothing on the bus again.
  const again = await publish(messaging.mailbox, 'review m-2', 'm-2');
  assert.equal(again.status, 202, again.text);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.deepEqual(again.json(), { ...first[1], repeat_of_seq: first[1]!['evidence_seq'] });
  assert.equal(busMessages(restoredDir), 4);
  // The same id with another body is still the conflict it was.
  assert.equal((await publish(messaging.mailbox, 'another body', 'm-2')).status, 422);
  // New work continues the chain where the stream left it.
  const next = await publish(messaging.mailbox, 'review m-4', 'm-4');
  assert.equal(next.status, 202, next.text);
  assert.equal((next.json() as { evidence_seq: number }).evidence_seq, 5);
  assert.equal(busMessages(restoredDir), 5);
  await messaging.stop('SIGTERM');

  const verified = await runEntry('scripts/verify_evidence_chain.ts', ['--nats', server.url, '--service', 'messaging', '--db', join(restoredDir, 'messaging.sqlite'), '--json']);
  assert.equal(verified.status, 0, verified.stdout + verified.stderr);
  assert.ok((JSON.parse(verified.stdout) as { heads: { agree: boolean }[] }).heads.every((h) => h.agree));
});
