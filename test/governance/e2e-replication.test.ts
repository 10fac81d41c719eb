// Evidence outlives its host (issue 25) for governance keyed writes: the governance-api bundle
// (platform-api and control-api, two processes on one database, both replicating) in sync mode on
// a real 3-server nats-server JetStream cluster takes outbox records with Idempotency-Key at
// concurrency 20; one NATS server is stopped in the middle; both processes are SIGKILLed and the
// data directory deleted. evidence_restore rebuilds the database (with the Idempotency-Key
// answers), the processes start there, and every request is sent again with its key: each gets
// its original answer as a replay, the outbox holds each record once, the chains verify, and
// the local heads equal the stream's.

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
import { sendJson } from '../helpers/http.ts';
import type { TestResponse } from '../helpers/http.ts';
import { startNatsCluster } from '../helpers/nats-cluster.ts';
import { rootEnv, startCrmDouble, tempRoot } from './_fixtures.ts';
import { AUTH, OPERATOR_TOKEN } from './_service.ts';

const WRITES = 150;
const CONCURRENCY = 20;
const SESSION = 'ps_11111111-2222-4333-8444-555555555555';

interface Keyed {
  key: string;
  body: unknown;
  first?: TestResponse;
}

async function startBundle(bundle: string, args: string[], env: Record<string, string>, listener: string): Promise<{ url: string; child: ChildProcess; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [bundle, ...args], { env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  for await (const line of createInterface({ input: child.stdout! })) {
    const parsed = JSON.parse(line) as { listener: string; url: string };
    if (parsed.listener === listener) return { url: parsed.url, child, exited };
  }
  throw new Error(`governance-api exited before listening: ${stderr}`);
}

async function pool<T>(items: readonly T[], work: (item: T) => Promise<void>, onProgress: (done: number) => Promise<void> = async () => {}): Promise<void> {
  let next = 0;
  let done = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < items.length) {
      await work(items[next++]!);
      await onProgress(++done);
    }
  }));
}

test('governance keyed writes in sync mode survive the loss of the host and of one NATS server: restore, restart, replay by key', { timeout: 300_000 }, async () => {
  const cluster = await startNatsCluster({ size: 3 });
  const outdir = await sharedBuild();
  const lostDir = mkdtempSync(join(tmpdir(), 'airlock-gov-lost-'));
  const newDir = join(mkdtempSync(join(tmpdir(), 'airlock-gov-new-')), 'data');
  const root = tempRoot();
  const crm = await startCrmDouble();
  const running: ChildProcess[] = [];
  try {
    const bin = (name: string) => join(outdir, 'bin', `${name}.mjs`);
    const env = {
      ...rootEnv(root.root), GOVERNANCE_PLATFORM_LISTEN: '127.0.0.1:0', GOVERNANCE_WORKER_LISTEN: '127.0.0.1:0', GOVERNANCE_CRM_UPSTREAM_URL: crm.url,
      GOVERNANCE_CRM_KNOWN_COMPANIES: 'tenant-a/company-1', AIRLOCK_EVIDENCE_REPLICATION: 'sync', AIRLOCK_EVIDENCE_NATS_URL: cluster.urls,
    };
    const start = async (dataDir: string) => {
      const platform = await startBundle(bin('governance-api'), ['--role', 'platform-api'], { ...env, AIRLOCK_DATA_DIR: dataDir }, 'platform');
      const control = await startBundle(bin('governance-api'), [], { ...env, AIRLOCK_DATA_DIR: dataDir, GOVERNANCE_DEPLOYMENT_ROLE: 'control-api', GOVERNANCE_OPERATOR_TOKEN: OPERATOR_TOKEN }, 'worker');
      running.push(platform.child, control.child);
      return { platform, control };
    };
    const record = (url: string, write: Keyed) => sendJson(`${url}/api/v1/events/outbox/planning`, write.body, { headers: { ...AUTH, 'idempotency-key': `"${write.key}"` } });

    let processes = await start(lostDir);
    const writes: Keyed[] = Array.from({ length: WRITES }, (_, i) => ({
      key: `repl-key-${i}`,
      body: { event: 'planning.turn_answered', occurred_at: '2026-11-27T12:00:00Z', payload: { session_id: SESSION, revision: i + 2, planning_event_seq: i + 1 } },
    }));
    await pool(writes, async (write) => {
      write.first = await record(processes.control.url, write);
    }, async (done) => {
      if (done === Math.floor(WRITES / 3)) await cluster.servers[1]!.stop();
    });
    assert.deepEqual(writes.filter((w) => w.first!.status !== 201).map((w) => `${w.key}: ${w.first!.status} ${w.first!.text}`), []);

    for (const child of [processes.platform.child, processes.control.child]) child.kill('SIGKILL');
    await Promise.all([processes.platform.exited, processes.control.exited]);
    rmSync(lostDir, { recursive: true, force: true });

    const restored = spawnSync(process.execPath, [bin('evidence_restore'), '--service', 'governance', '--nats', cluster.urls, '--data-dir', newDir, '--json'], { encoding: 'utf8' });
    assert.equal(restored.status, 0, restored.stdout + restored.stderr);
    assert.equal((JSON.parse(restored.stdout) as { idempotency_keys: number }).idempotency_keys, WRITES);

    processes = await start(newDir);
    await pool(writes, async (write) => {
      const again = await record(processes.control.url, write);
      assert.equal(again.status, 201, again.text);
      assert.equal(again.text, write.first!.text, `${write.key}: the original answer`);
      assert.equal(again.headers['idempotent-replayed'], 'true', `${write.key} was replayed, not run again`);
    });
    // The same key with another body is still told apart after the restore.
    const mismatch = await record(processes.control.url, { key: writes[0]!.key, body: { ...(writes[1]!.body as object) } });
    assert.equal(mismatch.status, 422, mismatch.text);
    processes.platform.child.kill('SIGTERM');
    processes.control.child.kill('SIGTERM');
    assert.deepEqual(await Promise.all([processes.platform.exited, processes.control.exited]), [0, 0]);

    const file = join(newDir, 'governance.sqlite');
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      const recorded = db.prepare("SELECT count(*) AS n FROM outbox_records WHERE family = 'planning' AND event = 'planning.turn_answered'").get()!['n'];
      assert.equal(Number(recorded), WRITES, 'each keyed write took effect once');
    } finally {
      db.close();
    }
    const verify = spawnSync(process.execPath, [bin('verify_evidence_chain'), '--db', file], { encoding: 'utf8' });
    assert.equal(verify.status, 0, verify.stdout + verify.stderr);
    const heads = spawnSync(process.execPath, [bin('verify_evidence_chain'), '--nats', cluster.urls, '--service', 'governance', '--db', file, '--json'], { encoding: 'utf8' });
    assert.equal(heads.status, 0, heads.stdout + heads.stderr);
  } finally {
    for (const child of running) if (child.exitCode === null) child.kill('SIGKILL');
    await cluster.stop();
    await crm.close();
    root.cleanup();
    for (const dir of [lostDir, newDir]) rmSync(dir, { recursive: true, force: true });
  }
});
