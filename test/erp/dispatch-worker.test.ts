// The dispatch lane against an agent-runtime test double that speaks HTTP: it verifies the house
// signature like the real runtime would, and can answer 500, 200 or never.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySignature } from '../../src/kernel/index.ts';
import { loadErpConfig } from '../../src/erp/config.ts';
import { getDocument } from '../../src/erp/database/documents.ts';
import { backoffMs } from '../../src/erp/dispatch/worker.ts';
import { createErpService } from '../../src/erp/service.ts';
import type { ErpService } from '../../src/erp/service.ts';
import { send } from '../helpers/http.ts';
import { SECRETS, TOKEN, callMethod, erpEnv, postHouse, tableCounts } from './_service.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface Double { url: string; server: Server; received: { headers: Record<string, unknown>; body: Record<string, unknown>; verified: boolean }[]; answers: (number | 'hang' | 'drip')[] }

async function agentRuntime(answers: (number | 'hang' | 'drip')[]): Promise<Double> {
  const double: Double = { url: '', server: createServer(), received: [], answers };
  double.server.on('request', (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const verified = verifySignature('house', { rawBody: raw, headers: req.headers, secrets: [SECRETS.AGENT_RUNTIME_CALLBACK_SECRET], now: Math.floor(Date.now() / 1000) }).ok;
      double.received.push({ headers: req.headers, body: JSON.parse(raw.toString('utf8')) as Record<string, unknown>, verified });
      const answer = double.answers.shift() ?? 200;
      if (answer === 'hang') return; // never answers: the worker's timeout must fire
      if (answer === 'drip') {
        // Answers 200 at once, then a byte every 50 ms forever: the socket is never idle, yet the delivery never ends.
        res.writeHead(200, { 'content-type': 'application/json' });
        const timer = setInterval(() => res.write(' '), 50);
        res.on('close', () => clearInterval(timer));
        return;
      }
      res.writeHead(answer, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => double.server.listen(0, '127.0.0.1', resolve));
  double.url = `http://127.0.0.1:${(double.server.address() as AddressInfo).port}/approvals`;
  return double;
}

const dir = mkdtempSync(join(tmpdir(), 'airlock-erp-dispatch-'));
let runtime: Double;
let erp: ErpService;
async function start(): Promise<ErpService> {
  const env = { ...erpEnv(dir), AGENT_RUNTIME_URL: runtime.url, ERP_WORKER_INTERVAL_MS: '60000', ERP_DISPATCH_BACKOFF_BASE_MS: '1', ERP_DISPATCH_BACKOFF_CAP_MS: '5', ERP_DISPATCH_TIMEOUT_MS: '300', ERP_DISPATCH_MAX_ATTEMPTS: '3' };
  const service = await createErpService(loadErpConfig(env));
  await service.listen();
  return service;
}
before(async () => {
  runtime = await agentRuntime([500, 500, 200]);
  erp = await start();
});
after(async () => {
  await erp.close();
  runtime.server.closeAllConnections();
  runtime.server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function packetFor(invoice: string): Promise<string> {
  const staged = await postHouse(erp.url(), 'supplier_intake', { vendor: { name: 'Globex LLC' }, invoice: { number: invoice, currency: 'USD' }, totals: { grand_total: '1.00' }, line_items: [{ description: 'x', amount: '1.00' }] });
  const name = (staged.json() as { message: { supplier_intake: string } }).message.supplier_intake;
  return ((await callMethod(erp.url(), 'workflows.request_supplier_intake_approval', { name })).json() as { message: { approval_packet: string } }).message.approval_packet;
}
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function drive(service: ErpService, job: string, until: (status: string) => boolean): Promise<Record<string, unknown>> {
  for (let i = 0; i < 50; i++) {
    await service.dispatchWorker.tick();
    const doc = getDocument(service.store.sqlite, 'Dispatch Job', job)!;
    if (until(String(doc['status']))) return doc;
    await pause(10);
  }
  throw new Error(`Dispatch Job ${job} never reached the expected state`);
}

test('backoff doubles per attempt, is capped, and adds at most 20 % jitter', () => {
  assert.deepEqual([1, 2, 3, 4].map((n) => backoffMs(n, 1000, 5000, () => 0)), [1000, 2000, 4000, 5000]);
  assert.equal(backoffMs(2, 1000, 5000, () => 1), 2400);
});

test('a packet is delivered once, signed, after two 500s and backoff; the packet stays open for the decision', async () => {
  const packet = await packetFor('D-1');
  const first = await callMethod(erp.url(), 'workflows.dispatch_approval_packet', { approval_packet: packet });
  const dispatched = (first.json() as { message: Record<string, string> }).message;
  assert.deepEqual([dispatched['status'], dispatched['dispatch_status'], dispatched['created']], ['dispatched', 'Queued', true]);
  const again = (await callMethod(erp.url(), 'workflows.dispatch_approval_packet', { approval_packet: packet })).json() as { message: Record<string, unknown> };
  assert.deepEqual([again.message['dispatch_job'], again.message['created']], [dispatched['dispatch_job'], false]);
  const job = await drive(erp, dispatched['dispatch_job']!, (s) => s === 'Delivered');
  assert.equal(job['attempts'], 3);
  assert.equal(runtime.received.length, 3);
  assert.ok(runtime.received.every((r) => r.verified && r.headers['idempotency-key'] === `"${dispatched['dispatch_job']}"`));
  const token = String(runtime.received[2]!.body['callback_token']);
  await erp.dispatchWorker.tick();
  assert.equal(runtime.received.length, 3, 'nothing is sent again after a success');
  const notes = erp.store.sqlite.prepare("SELECT count(*) AS n FROM agent_notifications WHERE kind = 'delivered'").get()!;
  assert.equal(Number(notes['n']), 1);
  // The delivered token is the packet's: the agent runtime can call back with it.
  const raw = Buffer.from(JSON.stringify({ approval_packet: packet, callback_token: token, decision: 'approved' }));
  const { signRequest } = await import('../../src/kernel/index.ts');
  const ack = await send(`${erp.url()}/api/method/erp_core.api.callbacks.agent_runtime_approval`, { method: 'POST', headers: { ...signRequest('house', { rawBody: raw, secret: SECRETS.AGENT_RUNTIME_CALLBACK_SECRET, now: Math.floor(Date.now() / 1000) }), 'content-type': 'application/json' }, body: raw });
  assert.equal((ack.json() as { message: { status: string } }).message.status, 'decision_received');
  const readback = await send(`${erp.url()}/api/resource/Dispatch%20Job/${dispatched['dispatch_job']}`, { headers: { authorization: TOKEN } });
  assert.ok(!readback.text.includes(token));
});

test('a runtime that never answers: a Dead Letter naming the last error after the retry budget; the packet is not closed', async () => {
  runtime.answers.push('hang', 'hang', 'hang');
  const packet = await packetFor('D-2');
  const job = ((await callMethod(erp.url(), 'workflows.dispatch_approval_packet', { approval_packet: packet })).json() as { message: { dispatch_job: string } }).message.dispatch_job;
  const dead = await drive(erp, job, (s) => s === 'Dead');
  assert.equal(dead['attempts'], 3);
  assert.match(String(dead['last_error']), /no answer within 300 ms/);
  const letter = erp.store.sqlite.prepare("SELECT payload FROM dead_letters ORDER BY seq DESC LIMIT 1").get()!;
  assert.equal((JSON.parse(String(letter['payload'])) as { dispatch_job: string }).dispatch_job, job);
  assert.equal(getDocument(erp.store.sqlite, 'Approval Packet', packet)!['status'], 'dispatched');
});

test('a runtime that answers slower than the timeout (a byte at a time, never ending): each attempt times out; a Dead Letter after the budget', { timeout: 10_000 }, async () => {
  runtime.answers.push('drip', 'drip', 'drip');
  const packet = await packetFor('D-2b');
  const job = ((await callMethod(erp.url(), 'workflows.dispatch_approval_packet', { approval_packet: packet })).json() as { message: { dispatch_job: string } }).message.dispatch_job;
  const dead = await drive(erp, job, (s) => s === 'Dead');
  assert.equal(dead['attempts'], 3);
  assert.match(String(dead['last_error']), /no answer within 300 ms/);
  assert.equal(getDocument(erp.store.sqlite, 'Approval Packet', packet)!['status'], 'dispatched');
});

test('a packet decided before its delivery succeeded is not sent again: the job is Superseded, no Dead Letter', async () => {
  runtime.answers.push(500);
  const packet = await packetFor('D-2c');
  const job = ((await callMethod(erp.url(), 'workflows.dispatch_approval_packet', { approval_packet: packet })).json() as { message: { dispatch_job: string } }).message.dispatch_job;
  await drive(erp, job, (s) => s === 'Retrying');
  const sent = runtime.received.length;
  const raw = Buffer.from(JSON.stringify({ approval_packet: packet, decision: 'approved' }));
  const { signRequest } = await import('../../src/kernel/index.ts');
  const decided = await send(`${erp.url()}/api/method/erp_core.api.callbacks.automation_hil_decision`, { method: 'POST', headers: { ...signRequest('house', { rawBody: raw, secret: SECRETS.AUTOMATION_SHARED_SECRET, now: Math.floor(Date.now() / 1000) }), 'content-type': 'application/json' }, body: raw });
  assert.equal(decided.status, 200, decided.text);
  const deadBefore = Number(erp.store.sqlite.prepare('SELECT count(*) AS n FROM dead_letters').get()!['n']);
  const superseded = await drive(erp, job, (s) => s !== 'Retrying');
  assert.equal(superseded['status'], 'Superseded');
  assert.match(String(superseded['superseded_reason']), /approval packet is (decision_received|closed)/);
  assert.equal(runtime.received.length, sent, 'a decided packet is not offered to the runtime again');
  assert.equal(Number(erp.store.sqlite.prepare('SELECT count(*) AS n FROM dead_letters').get()!['n']), deadBefore);
});

test('a restart loses no job: a job queued before the stop is delivered by the next process, once', async () => {
  const packet = await packetFor('D-3');
  const job = ((await callMethod(erp.url(), 'workflows.dispatch_approval_packet', { approval_packet: packet })).json() as { message: { dispatch_job: string } }).message.dispatch_job;
  await erp.close();
  const before = runtime.received.length;
  erp = await start();
  const delivered = await drive(erp, job, (s) => s === 'Delivered');
  assert.equal(delivered['attempts'], 1);
  assert.equal(runtime.received.length, before + 1);
});

test('dispatch bad input: unknown packet, wrong type, no auth; nothing changes', async () => {
  const counts = tableCounts(erp);
  assert.equal((await callMethod(erp.url(), 'workflows.dispatch_approval_packet', { approval_packet: 'APR-PKT-2026-99999' })).status, 404);
  assert.equal((await callMethod(erp.url(), 'workflows.dispatch_approval_packet', { approval_packet: 5 })).status, 417);
  assert.equal((await callMethod(erp.url(), 'workflows.dispatch_approval_packet', {})).status, 417);
  assert.equal((await callMethod(erp.url(), 'workflows.dispatch_approval_packet', { approval_packet: 'x' }, { auth: undefined })).status, 403);
  assert.deepEqual(tableCounts(erp), counts);
});
