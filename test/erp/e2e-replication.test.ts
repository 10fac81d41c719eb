// Evidence outlives its host (issue 25), end to end: the erp-api bundle in sync replication mode
// on a real 3-server nats-server JetStream cluster (R3) takes signed webhooks at concurrency 20;
// one NATS server is stopped in the middle and the load goes on; then the ERP process is
// SIGKILLed and its data directory deleted. evidence_restore rebuilds the database from the
// stream into a new directory, ERP starts there, and every delivery is sent again: each one that
// was acknowledged is present exactly once with its original answer, no redelivery takes a
// second effect, the chains verify, and the local heads equal the stream's.

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { sharedBuild } from '../helpers/shared-build.ts';
import type { TestResponse } from '../helpers/http.ts';
import { send } from '../helpers/http.ts';
import { startNatsCluster } from '../helpers/nats-cluster.ts';
import { erpEnv, postHouse, postStandard } from './_service.ts';

const DELIVERIES = 300;
const CONCURRENCY = 20;

interface Delivery {
  kind: 'payment' | 'lead';
  id: string;
  payload: unknown;
  first?: TestResponse;
}

async function startBundle(bundle: string, env: Record<string, string>): Promise<{ url: string; child: ChildProcess; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [bundle, '--listen', '127.0.0.1:0'], { env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  for await (const line of createInterface({ input: child.stdout! })) {
    const parsed = JSON.parse(line) as { service: string; url: string };
    assert.equal(parsed.service, 'erp', stderr);
    return { url: parsed.url, child, exited };
  }
  throw new Error(`erp-api exited before listening: ${stderr}`);
}

function deliver(url: string, delivery: Delivery): Promise<TestResponse> {
  return delivery.kind === 'payment'
    ? postStandard(url, delivery.payload, { id: delivery.id })
    : postHouse(url, 'website_contact_intake', delivery.payload);
}

/** Runs `work` over `items` with `concurrency` workers; `onProgress` sees each completion count. */
async function pool<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>, onProgress: (done: number) => Promise<void> = async () => {}): Promise<void> {
  let next = 0;
  let done = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await work(item);
      await onProgress(++done);
    }
  }));
}

test('erp-api in sync mode survives the loss of its host and of one NATS server: restore, restart, redelivery exactly once', { timeout: 300_000 }, async () => {
  const cluster = await startNatsCluster({ size: 3 });
  const outdir = await sharedBuild();
  const configDir = mkdtempSync(join(tmpdir(), 'airlock-erp-config-'));
  const lostDir = mkdtempSync(join(tmpdir(), 'airlock-erp-lost-'));
  const newDir = join(mkdtempSync(join(tmpdir(), 'airlock-erp-new-')), 'data');
  const running: ChildProcess[] = [];
  try {
    const bin = (name: string) => join(outdir, 'bin', `${name}.mjs`);
    const env = { ...erpEnv(configDir), AIRLOCK_EVIDENCE_REPLICATION: 'sync', AIRLOCK_EVIDENCE_NATS_URL: cluster.urls };

    let erp = await startBundle(bin('erp-api'), { ...env, AIRLOCK_DATA_DIR: lostDir });
    running.push(erp.child);
    const deliveries: Delivery[] = Array.from({ length: DELIVERIES }, (_, i) =>
      i % 3 === 2
        ? { kind: 'lead', id: `lead-${i}`, payload: { contact: { email: `lead-${i}@example.test`, name: `Lead ${i}` } } }
        : { kind: 'payment', id: `msg_repl_${i}`, payload: { type: 'payment.succeeded', data: { id: `pay_repl_${i}`, amount: `${10 + i}.00`, currency: 'EUR', customer: `cust-${i % 7}` } } },
    );
    let stoppedAt = -1;
    await pool(deliveries, CONCURRENCY, async (delivery) => {
      delivery.first = await deliver(erp.url, delivery);
    }, async (done) => {
      if (done === Math.floor(DELIVERIES / 3)) {
        stoppedAt = done;
        await cluster.servers[0]!.stop();
      }
    });
    assert.ok(stoppedAt > 0, 'one NATS server was stopped in the middle of the load');
    const acknowledged = deliveries.filter((d) => d.first!.status === 200);
    // With R3 on 3 servers, one lost server leaves a quorum: the load goes on, every delivery is acknowledged.
    assert.equal(acknowledged.length, DELIVERIES, deliveries.filter((d) => d.first!.status !== 200).map((d) => `${d.id}: ${d.first!.status} ${d.first!.text}`).slice(0, 5).join('\n'));

    // The host is lost: no shutdown, no disk.
    erp.child.kill('SIGKILL');
    await erp.exited;
    rmSync(lostDir, { recursive: true, force: true });

    const restored = spawnSync(process.execPath, [bin('evidence_restore'), '--service', 'erp', '--nats', cluster.urls, '--data-dir', newDir, '--json'], { encoding: 'utf8' });
    assert.equal(restored.status, 0, restored.stdout + restored.stderr);
    const report = JSON.parse(restored.stdout) as { tables: { table: string; rows: number }[] };
    const restoredRows = Object.fromEntries(report.tables.map((t) => [t.table, t.rows]));
    assert.equal(restoredRows['integration_events'], DELIVERIES);

    erp = await startBundle(bin('erp-api'), { ...env, AIRLOCK_DATA_DIR: newDir });
    running.push(erp.child);
    const replays: TestResponse[] = [];
    await pool(deliveries, CONCURRENCY, async (delivery) => {
      const again = await deliver(erp.url, delivery);
      replays.push(again);
      assert.equal(again.status, 200, again.text);
      assert.equal(again.text, delivery.first!.text, `${delivery.id}: the redelivery gets the original answer`);
      assert.equal(again.headers['idempotent-replayed'], 'true', `${delivery.id} was replayed, not run again`);
    });
    assert.equal(replays.length, DELIVERIES);
    // A new delivery after the restore takes the next name of its series, not one already used.
    const fresh = await postStandard(erp.url, { type: 'payment.succeeded', data: { id: 'pay_after', amount: '1.00', currency: 'EUR', customer: 'c' } }, { id: 'msg_after' });
    assert.equal(fresh.status, 200, fresh.text);
    // Identity derived from the evidence: a new intake for a restored Lead's email updates that Lead.
    const restoredLead = (deliveries[2]!.first!.json() as { message: { lead: string } }).message.lead;
    const update = await postHouse(erp.url, 'website_contact_intake', { contact: { email: 'lead-2@example.test', name: 'Lead 2', phone: '+49 30 1' } });
    assert.equal(update.status, 200, update.text);
    assert.equal((update.json() as { message: { lead: string } }).message.lead, restoredLead, 'the restored Lead is found by its email');
    const health = (await send(`${erp.url}/healthz`)).json() as { checks: Record<string, { status: string; observedValue: number }[]> };
    assert.equal(health.checks['evidence:replication']![0]!.status, 'pass');
    erp.child.kill('SIGTERM');
    assert.equal(await erp.exited, 0);

    const file = join(newDir, 'erp.sqlite');
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      const count = (sql: string) => Number(db.prepare(sql).get()!['n']);
      // Exactly once: one Integration Event per delivery (plus the two fresh ones), one Revenue Event per payment, one Lead per contact.
      assert.equal(count('SELECT count(*) AS n FROM integration_events'), DELIVERIES + 2);
      assert.equal(count('SELECT count(DISTINCT event_key) AS n FROM integration_events'), DELIVERIES + 2);
      assert.equal(count("SELECT count(*) AS n FROM erp_documents WHERE doctype = 'Revenue Event'"), deliveries.filter((d) => d.kind === 'payment').length + 1);
      assert.equal(count("SELECT count(*) AS n FROM erp_documents WHERE doctype = 'Lead'"), deliveries.filter((d) => d.kind === 'lead').length);
      assert.equal(count('SELECT count(DISTINCT name) AS n FROM integration_events'), DELIVERIES + 2, 'no name of the series was handed out twice');
    } finally {
      db.close();
    }
    const verify = spawnSync(process.execPath, [bin('verify_evidence_chain'), '--db', file], { encoding: 'utf8' });
    assert.equal(verify.status, 0, verify.stdout + verify.stderr);
    const heads = spawnSync(process.execPath, [bin('verify_evidence_chain'), '--nats', cluster.urls, '--service', 'erp', '--db', file, '--json'], { encoding: 'utf8' });
    assert.equal(heads.status, 0, heads.stdout + heads.stderr);
    const headReport = JSON.parse(heads.stdout) as { heads: { table: string; agree: boolean }[] };
    assert.ok(headReport.heads.length >= 6 && headReport.heads.every((h) => h.agree), heads.stdout);
  } finally {
    for (const child of running) if (child.exitCode === null) child.kill('SIGKILL');
    await cluster.stop();
    for (const dir of [configDir, lostDir, newDir]) rmSync(dir, { recursive: true, force: true });
  }
});
