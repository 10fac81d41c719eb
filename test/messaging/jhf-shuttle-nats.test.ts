// jhf-shuttle publish, tail and ping against a real nats-server: a repeated --msg-id is not
// published again on core NATS (which does not de-duplicate), `tail --durable --count N` confirms
// its acks before it exits, so the next run does not print the same message again, and `ping`
// (the stack contract's bus healthcheck) fails once nats-server is down.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pingCommand } from '../../scripts/_shuttle/ping.ts';
import { publishCommand } from '../../scripts/_shuttle/publish.ts';
import { tailCommand } from '../../scripts/_shuttle/tail.ts';
import { manifest } from '../../src/messaging/manifest.ts';
import { connectNats } from '../../src/kernel/nats/client.ts';
import type { NatsClient, NatsMessage } from '../../src/kernel/nats/client.ts';
import { parseNatsUrls } from '../../src/kernel/nats/url.ts';
import { runCaptured } from '../helpers/run-command.ts';
import { until } from '../helpers/until.ts';
import { startNatsServer } from '../helpers/nats-server.ts';
import type { RunningNatsServer } from '../helpers/nats-server.ts';

describe('jhf-shuttle publish on core NATS', () => {
  let nats: RunningNatsServer;
  let raw: NatsClient;
  const seen: NatsMessage[] = [];
  before(async () => {
    nats = await startNatsServer();
    // A plain subscriber: it de-duplicates nothing, so it sees every copy the server carried.
    raw = await connectNats({ servers: parseNatsUrls(nats.url) });
    raw.subscribe('mailbox.>', (m) => seen.push(m));
    await raw.flush();
  });
  after(async () => {
    await raw.close();
    await nats.stop();
  });

  test('jhf-shuttle publish with a --msg-id already published is not published again; another body is exit 2', async () => {
    const env = { AIRLOCK_DATA_DIR: mkdtempSync(join(tmpdir(), 'airlock-shuttle-nats-')), NATS_URL: nats.url };
    const publish = (data: string, id: string) => runCaptured(publishCommand, ['ops', '--data', data, '--msg-id', id, '--json'], env);
    const first = await publish('one', 'core-1');
    assert.equal(first.status, 0, first.stderr);
    const again = await publish('one', 'core-1');
    assert.equal(again.status, 0, again.stderr);
    assert.equal(again.json.repeat_of_seq, first.json.evidence_seq);
    const reused = await publish('two', 'core-1');
    assert.equal(reused.status, 2);
    assert.match(reused.stderr, /already published to mailbox\.ops \(SHA-256/);
    assert.equal((await publish('end', 'core-end')).status, 0);
    await until(() => seen.some((m) => m.headers['Nats-Msg-Id'] === 'core-end'));
    assert.deepEqual(seen.filter((m) => m.headers['Nats-Msg-Id'] === 'core-1').map((m) => m.payload.toString()), ['one']);
  });
});

describe('jhf-shuttle tail --durable on JetStream', () => {
  let nats: RunningNatsServer;
  before(async () => {
    nats = await startNatsServer({ jetstream: true });
  });
  after(async () => {
    await nats.stop();
  });

  test('jhf-shuttle tail --durable --count 1 acknowledges its message before exit: a later run does not print it again', { timeout: 60_000 }, async () => {
    const env = { AIRLOCK_DATA_DIR: mkdtempSync(join(tmpdir(), 'airlock-shuttle-js-')), NATS_URL: nats.url };
    for (const round of [1, 2, 3]) {
      const tail = runCaptured(tailCommand, ['acks', '--durable', 'acks-test', '--count', '1', '--timeout-ms', '10000', '--json'], env);
      // The durable consumer delivers only what arrives after it exists (first round) or what it missed.
      await new Promise((r) => setTimeout(r, round === 1 ? 500 : 100));
      const published = await runCaptured(publishCommand, ['acks', '--data', `round-${round}`, '--msg-id', `acks-${round}`], env);
      assert.equal(published.status, 0, published.stderr);
      const result = await tail;
      assert.equal(result.status, 0, result.stderr);
      assert.equal(JSON.parse(result.stdout).payload, `round-${round}`);
    }
    // Nothing is left unacknowledged: a run that outlasts the ack wait (2 s) gets no redelivery.
    const last = await runCaptured(tailCommand, ['acks', '--durable', 'acks-test', '--count', '1', '--timeout-ms', '3500', '--json'], env);
    assert.equal(last.stdout, '');
    assert.equal(last.status, 1);
  });

  test('a second jhf-shuttle tail on a --durable name another tail is bound to is refused (exit 2), not a second copy of every message', { timeout: 30_000 }, async () => {
    const env = { AIRLOCK_DATA_DIR: mkdtempSync(join(tmpdir(), 'airlock-shuttle-js-')), NATS_URL: nats.url };
    const first = runCaptured(tailCommand, ['shared', '--durable', 'shared-test', '--count', '1', '--timeout-ms', '10000', '--json'], env);
    await new Promise((r) => setTimeout(r, 700));
    const second = await runCaptured(tailCommand, ['shared', '--durable', 'shared-test', '--count', '1', '--timeout-ms', '3000', '--json'], env);
    assert.equal(second.status, 2, second.stdout);
    assert.match(second.stderr, /"shared-test" is in use by another subscriber/);
    assert.equal((await runCaptured(publishCommand, ['shared', '--data', 'one', '--msg-id', 'shared-1'], env)).status, 0);
    assert.equal((await first).status, 0);
  });

  test('jhf-shuttle tail --durable --count N with a backlog prints N and leaves the rest unacknowledged for the next run', { timeout: 60_000 }, async () => {
    const env = { AIRLOCK_DATA_DIR: mkdtempSync(join(tmpdir(), 'airlock-shuttle-js-')), NATS_URL: nats.url };
    const tail = (count: number, timeoutMs: number) => runCaptured(tailCommand, ['backlog', '--durable', 'backlog-test', '--count', String(count), '--timeout-ms', String(timeoutMs), '--json'], env);
    // The consumer exists before the messages, so all seven wait for it; the server pushes them
    // all as soon as a run subscribes, more than that run prints.
    assert.equal((await tail(1, 300)).status, 1);
    for (let i = 0; i < 7; i++) assert.equal((await runCaptured(publishCommand, ['backlog', '--data', `m${i}`, '--msg-id', `backlog-${i}`], env)).status, 0);
    const printed: string[] = [];
    for (const [count, status] of [[3, 0], [3, 0], [3, 1]] as const) {
      const run = await tail(count, 6000);
      assert.equal(run.status, status, run.stderr);
      const lines = run.stdout.split('\n').filter((line) => line !== '');
      printed.push(...lines.map((line) => (JSON.parse(line) as { payload: string }).payload));
    }
    assert.deepEqual([...printed].sort(), ['m0', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6']);
  });
});

describe('jhf-shuttle ping probes the bus itself', () => {
  let nats: RunningNatsServer;
  before(async () => {
    nats = await startNatsServer({ monitor: true });
  });
  after(async () => {
    await nats.stop();
  });

  test("jhf-shuttle ping: 0 while nats-server answers (PONG, or its monitoring /healthz), 1 once it is down", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-ping-'));
    const direct = { AIRLOCK_DATA_DIR: dir, NATS_URL: nats.url };
    const monitored = { ...direct, NATS_MONITOR_URL: nats.monitorUrl! };
    for (const env of [direct, monitored]) {
      const up = await runCaptured(pingCommand, ['--json'], env);
      assert.equal(up.status, 0, up.stdout + up.stderr);
      assert.equal(up.json.probe, env === direct ? 'nats' : 'nats-monitor');
    }
    await nats.stop();
    for (const env of [direct, monitored]) {
      const down = await runCaptured(pingCommand, ['--json', '--timeout-ms', '2000'], env);
      assert.equal(down.status, 1, down.stdout + down.stderr);
      assert.equal(down.json.ok, false);
    }
    await nats.start();
  });

  test('jhf-shuttle ping on the embedded bus: 0 when its database opens', async () => {
    const result = await runCaptured(pingCommand, ['--json'], { AIRLOCK_DATA_DIR: mkdtempSync(join(tmpdir(), 'airlock-ping-')) });
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.json.probe, 'embedded');
  });

  test('the stack contract probes the bus with jhf-shuttle ping, not the mailbox adapter', () => {
    const checks = manifest.healthchecks!;
    const bus = checks.find((c) => c.name === 'bus')!;
    const adapter = checks.find((c) => c.name === 'mailbox-adapter')!;
    assert.equal(bus.probe, 'node dist/bin/jhf-shuttle.mjs ping');
    assert.notEqual(bus.probe, adapter.probe);
    const contract = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'configs', 'stack-contract.json'), 'utf8')) as { services: { service: string; healthchecks?: { name: string; probe: string }[] }[] };
    assert.deepEqual(contract.services.find((s) => s.service === 'messaging')!.healthchecks!.map((c) => [c.name, c.probe]), checks.map((c) => [c.name, c.probe]));
  });
});
