// End to end with the bundles and a real nats-server (JetStream on): messaging-mailbox publishes,
// `jhf-shuttle tail --durable` receives, `jhf-shuttle serve` reports status, and
// messaging-owner-readback reads the evidence back. The nats-server is restarted in the middle:
// every acknowledged publish is received, none twice.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { send } from '../helpers/http.ts';
import { startNatsServer } from '../helpers/nats-server.ts';
import { sharedBuild } from '../helpers/shared-build.ts';

const TOKEN = 'e2e-owner-readback-token';

interface Running {
  child: ChildProcess;
  lines: string[];
  stderr: () => string;
  exited: Promise<number | null>;
}

function start(bundle: string, args: string[], env: Record<string, string>): Running {
  const child = spawn(process.execPath, [bundle, ...args], { env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let stderr = '';
  createInterface({ input: child.stdout! }).on('line', (line) => lines.push(line));
  child.stderr!.on('data', (c) => (stderr += c));
  return { child, lines, stderr: () => stderr, exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))) };
}

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value as T;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const listening = (r: Running) => until('a listening line', () => r.lines.map((l) => JSON.parse(l) as { msg?: string; url?: string }).find((l) => l.msg === 'listening')?.url);

test('bundles + nats-server: every acknowledged mailbox publish is received once across a nats-server restart', async (t) => {
  const outdir = await sharedBuild();
  const data = mkdtempSync(join(tmpdir(), 'airlock-messaging-data-'));
  t.after(() => rmSync(data, { recursive: true, force: true }));
  const bin = (name: string) => join(outdir, 'bin', `${name}.mjs`);
  const nats = await startNatsServer({ jetstream: true });
  t.after(() => nats.stop());
  const env = { NATS_URL: nats.url, AIRLOCK_DATA_DIR: data, NATS_RECONNECT_WAIT_MS: '20', NATS_RECONNECT_MAX_WAIT_MS: '200' };
  const running: Running[] = [];
  t.after(() => {
    for (const r of running) if (r.child.exitCode === null) r.child.kill('SIGKILL');
  });

  const adapter = start(bin('messaging-mailbox'), ['--listen', '127.0.0.1:0'], env);
  running.push(adapter);
  const adapterUrl = await listening(adapter);
  const tail = start(bin('jhf-shuttle'), ['tail', 'plan-studio-review', '--durable', 'e2e-reader', '--json'], env);
  running.push(tail);
  await until('the tail to subscribe', () => tail.stderr().includes('"msg":"subscribed"'));
  const api = start(bin('jhf-shuttle'), ['serve', '--listen', '127.0.0.1:0'], { ...env, MESSAGING_MAILBOX_URL: adapterUrl });
  running.push(api);
  const apiUrl = await listening(api);
  const readback = start(bin('messaging-owner-readback'), ['--listen', '127.0.0.1:0'], { AIRLOCK_DATA_DIR: data, OWNER_READBACK_API_TOKEN: TOKEN });
  running.push(readback);
  const readbackUrl = await listening(readback);

  const status = (await send(`${apiUrl}/api/v1/status`)).json() as { bus: { kind: string; connected: boolean; persistence?: string }; mailbox_adapter: { reachable: boolean } };
  assert.deepEqual([status.bus.kind, status.bus.connected, status.bus.persistence, status.mailbox_adapter.reachable], ['nats', true, 'jetstream', true]);

  const acked: string[] = [];
  const publish = async (i: number) => {
    const id = `e2e-${i}`;
    for (let attempt = 0; attempt < 20; attempt++) {
      const res = await send(`${adapterUrl}/api/v1/mailboxes/plan-studio-review/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'nats-msg-id': id }, body: JSON.stringify({ i }) });
      if (res.status === 202) {
        acked.push(id);
        return;
      }
      assert.equal(res.status, 503, res.text); // The bus did not confirm: retry with the same id.
    }
    throw new Error(`${id} never acknowledged`);
  };
  for (let i = 0; i < 20; i++) await publish(i);
  await nats.stop();
  const during = Promise.all([20, 21, 22, 23, 24].map(publish));
  await new Promise((r) => setTimeout(r, 300));
  await nats.start();
  await during;
  for (let i = 25; i < 40; i++) await publish(i);
  assert.equal(acked.length, 40);

  const received = () => tail.lines.map((l) => (JSON.parse(l) as { msg_id: string }).msg_id);
  await until('every acknowledged message at the tail', () => acked.every((id) => received().includes(id)));
  await new Promise((r) => setTimeout(r, 500)); // Room for a duplicate to show up.
  assert.deepEqual([...received()].sort(), [...acked].sort());

  const evidence = (await send(`${readbackUrl}/api/v1/evidence/plan-studio-review-transport?limit=500`, { headers: { authorization: `Bearer ${TOKEN}` } })).json() as { total: number; rows: { msg_id: string }[] };
  assert.deepEqual(new Set(evidence.rows.map((r) => r.msg_id)), new Set(acked));

  const shuttleStatus = start(bin('jhf-shuttle'), ['status', '--api-url', apiUrl, '--json'], {});
  assert.equal(await shuttleStatus.exited, 0, shuttleStatus.stderr());

  for (const r of [tail, api, readback, adapter]) r.child.kill('SIGTERM');
  for (const r of [tail, api, readback, adapter]) assert.equal(await r.exited, 0, r.stderr());
});
