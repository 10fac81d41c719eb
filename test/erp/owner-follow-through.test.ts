// Approvals that cannot close (review reproductions): a packet whose dispatch went Dead and one whose
// closeout is blocked can be resolved by their owner (never approved) and requested again; a Dead
// dispatch can be re-queued as a new attempt; and a crash during delivery counts against the retry
// budget, because each attempt is recorded before it is sent (a crash loop reaches the Dead Letter,
// and `attempts` says how many deliveries were sent).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signRequest } from '../../src/kernel/index.ts';
import { loadErpConfig } from '../../src/erp/config.ts';
import { getDocument } from '../../src/erp/database/documents.ts';
import { createErpService } from '../../src/erp/service.ts';
import type { ErpService } from '../../src/erp/service.ts';
import { send } from '../helpers/http.ts';
import { until } from '../helpers/until.ts';
import type { TestResponse } from '../helpers/http.ts';
import { SECRETS, callMethod, erpEnv, frappeErrorText, postHouse, tableCounts } from './_service.ts';

/** An agent runtime double: answers each delivery with the next status, or never ('hang'). */
interface Runtime { url: string; server: Server; received: number; answers: (number | 'hang')[] }
async function agentRuntime(): Promise<Runtime> {
  const runtime: Runtime = { url: '', server: createServer(), received: 0, answers: [] };
  runtime.server.on('request', (req, res) => {
    req.resume();
    req.on('end', () => {
      runtime.received += 1;
      const answer = runtime.answers.shift() ?? 200;
      if (answer !== 'hang') res.writeHead(answer).end('{}');
    });
  });
  await new Promise<void>((resolve) => runtime.server.listen(0, '127.0.0.1', resolve));
  runtime.url = `http://127.0.0.1:${(runtime.server.address() as AddressInfo).port}/approvals`;
  return runtime;
}

const dir = mkdtempSync(join(tmpdir(), 'airlock-erp-follow-'));
let runtime: Runtime;
let clock = Date.now();
const now = () => clock;
const env = () => ({ ...erpEnv(dir), AGENT_RUNTIME_URL: runtime.url, ERP_WORKER_INTERVAL_MS: '60000', ERP_DISPATCH_BACKOFF_BASE_MS: '1', ERP_DISPATCH_BACKOFF_CAP_MS: '5', ERP_DISPATCH_TIMEOUT_MS: '5000', ERP_DISPATCH_MAX_ATTEMPTS: '3' });
async function start(): Promise<ErpService> {
  const service = await createErpService(loadErpConfig(env()), { now });
  await service.listen();
  return service;
}
let erp: ErpService;
before(async () => {
  runtime = await agentRuntime();
  erp = await start();
});
after(async () => {
  await erp.close();
  runtime.server.closeAllConnections();
  runtime.server.close();
  rmSync(dir, { recursive: true, force: true });
});

const message = (r: TestResponse) => (r.json() as { message: Record<string, any> }).message;
async function intake(invoice: string): Promise<string> {
  const staged = await postHouse(erp.url(), 'supplier_intake', { vendor: { name: 'Globex LLC' }, invoice: { number: invoice, currency: 'USD' }, totals: { grand_total: '1.00' }, line_items: [{ description: 'x', amount: '1.00' }] }, { at: Math.floor(clock / 1000) });
  return message(staged)['supplier_intake'];
}
async function requestPacket(name: string): Promise<Record<string, any>> {
  return message(await callMethod(erp.url(), 'workflows.request_supplier_intake_approval', { name }));
}
async function dispatch(packet: string): Promise<string> {
  return message(await callMethod(erp.url(), 'workflows.dispatch_approval_packet', { approval_packet: packet }))['dispatch_job'];
}
const job = (name: string) => getDocument(erp.store.sqlite, 'Dispatch Job', name)!;
const packetOf = (name: string) => getDocument(erp.store.sqlite, 'Approval Packet', name) as Record<string, any>;
/** Runs worker ticks, moving the clock past any backoff or lease, until the job's status is `wanted`. */
async function driveTo(service: ErpService, name: string, wanted: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 20; i++) {
    clock += 60_000;
    await service.dispatchWorker.tick();
    const doc = getDocument(service.store.sqlite, 'Dispatch Job', name)!;
    if (doc['status'] === wanted) return doc;
  }
  throw new Error(`Dispatch Job ${name} never reached ${wanted}: ${String(job(name)['status'])}`);
}

describe('each delivery attempt is recorded before it is sent', () => {
  test('a crash loop mid-delivery reaches the Dead Letter after the budget, and attempts counts what was sent', async () => {
    const name = await dispatch((await requestPacket(await intake('CRASH-1')))['approval_packet']);
    runtime.answers = ['hang', 'hang', 'hang', 'hang'];
    runtime.received = 0;
    for (let cycle = 1; cycle <= 3; cycle++) {
      clock += 60_000;
      void erp.dispatchWorker.tick();
      await until(() => runtime.received === cycle);
      // The service stops while the runtime holds the delivery: no outcome is ever recorded.
      await erp.close();
      erp = await start();
      assert.deepEqual([job(name)['attempts'], job(name)['status']], [cycle, 'Queued'], `after crash ${cycle}`);
    }
    clock += 60_000;
    await erp.dispatchWorker.tick();
    const dead = job(name);
    assert.deepEqual([dead['status'], dead['attempts'], runtime.received], ['Dead', 3, 3]);
    assert.match(String(dead['last_error']), /attempt 3 did not finish/);
    assert.equal(getDocument(erp.store.sqlite, 'Dead Letter', String(dead['dead_letter']))!['dispatch_job'], name);
    runtime.answers = [];
  });

  test('a delivered job reports the attempts that were sent', async () => {
    const name = await dispatch((await requestPacket(await intake('COUNT-1')))['approval_packet']);
    runtime.received = 0;
    runtime.answers = [500, 500, 200];
    const delivered = await driveTo(erp, name, 'Delivered');
    assert.deepEqual([delivered['attempts'], runtime.received, delivered['attempt_in_flight']], [3, 3, false]);
  });
});

describe('owner follow-through', () => {
  test('a packet whose dispatch went Dead: the owner resolves it (not approved), the Dead Letter says so, and a new packet can be requested', async () => {
    const target = await intake('DEAD-1');
    const first = await requestPacket(target);
    const name = await dispatch(first['approval_packet']);
    runtime.answers = [500, 500, 500];
    const dead = await driveTo(erp, name, 'Dead');
    // Before: request_approval keeps returning the stuck packet.
    assert.deepEqual([(await requestPacket(target))['approval_packet'], (await requestPacket(target))['created']], [first['approval_packet'], false]);
    const resolved = message(await callMethod(erp.url(), 'workflows.record_owner_follow_through', { approval_packet: first['approval_packet'], resolution: 'request_again', reason: 'runtime was down for maintenance' }));
    assert.deepEqual([resolved['status'], resolved['approved']], ['resolved_by_owner', false]);
    const packet = packetOf(first['approval_packet']);
    assert.equal(packet['status'], 'resolved_by_owner');
    assert.deepEqual([packet['owner_follow_through'].actor.user, packet['owner_follow_through'].reason, packet['owner_follow_through'].waiting_for.kind], ['a1b2c3d4e5', 'runtime was down for maintenance', 'dispatch_dead']);
    const letter = getDocument(erp.store.sqlite, 'Dead Letter', String(dead['dead_letter']))!;
    assert.equal(letter['owner_follow_through'], 'recorded');
    const again = await requestPacket(target);
    assert.equal(again['created'], true);
    assert.notEqual(again['approval_packet'], first['approval_packet']);
    // The worker never closes or approves it afterwards.
    await erp.dispatchWorker.tick();
    assert.equal(packetOf(first['approval_packet'])['status'], 'resolved_by_owner');
  });

  test('a packet whose target changed after the request (closeout blocked): the owner resolves it', async () => {
    const target = await intake('BLOCK-1');
    const packet = (await requestPacket(target))['approval_packet'];
    const raw = Buffer.from(JSON.stringify({ approval_packet: packet, decision: 'approved' }));
    const headers = signRequest('house', { rawBody: raw, secret: SECRETS.AUTOMATION_SHARED_SECRET, now: Math.floor(clock / 1000) });
    assert.equal((await send(`${erp.url()}/api/method/erp_core.api.callbacks.automation_hil_decision`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: raw })).status, 200);
    clock += 1000;
    await callMethod(erp.url(), 'workflows.post_supplier_intake', { name: target });
    await erp.dispatchWorker.tick();
    assert.match(String(packetOf(packet)['closeout_blocked']), /owner follow-through required/);
    const resolved = message(await callMethod(erp.url(), 'workflows.record_owner_follow_through', { approval_packet: packet, resolution: 'handled_outside', reason: 'approved again by phone after the change' }));
    assert.equal(resolved['status'], 'resolved_by_owner');
    assert.equal(packetOf(packet)['owner_follow_through'].waiting_for.kind, 'closeout_blocked');
    assert.equal((await requestPacket(target))['created'], true);
  });

  test('a Dead dispatch is re-queued by the owner as a new attempt and delivered', async () => {
    const packet = (await requestPacket(await intake('REQ-1')))['approval_packet'];
    const name = await dispatch(packet);
    runtime.answers = [500, 500, 500];
    await driveTo(erp, name, 'Dead');
    const backlog = async () => message(await send(`${erp.url()}/api/method/erp_core.api.health.integration_status`))['dispatch_backlog'];
    const deadJobs = erp.store.sqlite.prepare("SELECT count(*) AS n FROM dispatch_jobs WHERE seq IN (SELECT max(seq) FROM dispatch_jobs GROUP BY name) AND json_extract(payload, '$.status') = 'Dead'").get()!['n'];
    const rows = Number(erp.store.sqlite.prepare('SELECT count(*) AS n FROM dispatch_jobs').get()!['n']);
    // The review saw evidence rows counted as backlog (13 for 3 jobs, none pending).
    assert.deepEqual(await backlog(), { queued: 0, retrying: 0, dead: Number(deadJobs) });
    assert.ok(rows > Number(deadJobs));
    const requeued = message(await callMethod(erp.url(), 'workflows.requeue_dispatch_job', { dispatch_job: name, reason: 'runtime fixed' }));
    assert.deepEqual(await backlog(), { queued: 1, retrying: 0, dead: Number(deadJobs) - 1 });
    assert.deepEqual([requeued['dispatch_status'], requeued['requeued']], ['Queued', 1]);
    assert.equal(getDocument(erp.store.sqlite, 'Dead Letter', String(job(name)['dead_letter']))!['owner_follow_through'], 'requeued');
    runtime.answers = [200];
    const delivered = await driveTo(erp, name, 'Delivered');
    assert.equal(delivered['attempts'], 1);
    assert.equal(packetOf(packet)['status'], 'dispatched');
    const twice = await callMethod(erp.url(), 'workflows.requeue_dispatch_job', { dispatch_job: name, reason: 'again' });
    assert.equal(twice.status, 409);
  });

  test('refusals: an open packet, an unknown one, bad arguments, no auth; nothing changes', async () => {
    const open = (await requestPacket(await intake('OPEN-1')))['approval_packet'];
    const before = tableCounts(erp);
    const cases: [Record<string, unknown>, number, RegExp][] = [
      [{ approval_packet: open, resolution: 'abandoned', reason: 'x' }, 409, /blocked or whose dispatch went Dead/],
      [{ approval_packet: 'APR-PKT-2026-99999', resolution: 'abandoned', reason: 'x' }, 404, /not found/],
      [{ approval_packet: open, resolution: 'approved', reason: 'x' }, 417, /contract/],
      [{ approval_packet: open, resolution: 'abandoned' }, 417, /contract/],
      [{ approval_packet: open, resolution: 'abandoned', reason: '' }, 417, /contract/],
      [{ approval_packet: open, resolution: 'abandoned', reason: 'x', extra: 1 }, 417, /contract/],
    ];
    for (const [args, status, text] of cases) {
      const answer = await callMethod(erp.url(), 'workflows.record_owner_follow_through', args);
      assert.equal(answer.status, status, `${JSON.stringify(args)}: ${answer.text}`);
      assert.match(frappeErrorText(answer).message, text);
    }
    assert.equal((await callMethod(erp.url(), 'workflows.requeue_dispatch_job', { dispatch_job: 'nope', reason: 'x' })).status, 404);
    assert.equal((await callMethod(erp.url(), 'workflows.record_owner_follow_through', { approval_packet: open, resolution: 'abandoned', reason: 'x' }, { auth: undefined })).status, 403);
    assert.deepEqual(tableCounts(erp), before);
  });
});
