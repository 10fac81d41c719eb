// erp-api and governance-api bundles as their own processes: a signed support-desk event reaches
// the governance readback; with governance stopped the handoff fails (503, ok=false, the
// Integration Event failed); after governance restarts on its address, the desk's redelivery
// completes the handoff exactly once.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { signRequest } from '../../src/kernel/index.ts';
import { sharedBuild } from '../helpers/shared-build.ts';
import { send } from '../helpers/http.ts';
import { OPERATOR_TOKEN } from '../governance/_service.ts';
import { erpEnv, TOKEN } from './_service.ts';

const SUPPORT_SECRET = 'e2e-support-desk-secret';

async function startBundle(bundle: string, env: Record<string, string>, service: string, listener: string): Promise<{ url: string; stop(): Promise<number | null> }> {
  const child: ChildProcess = spawn(process.execPath, [bundle], { env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  for await (const line of createInterface({ input: child.stdout! })) {
    const parsed = JSON.parse(line) as { service: string; listener: string; url: string };
    assert.equal(parsed.service, service, stderr);
    if (parsed.listener === listener) return { url: parsed.url, stop: () => (child.kill('SIGTERM'), exited) };
  }
  throw new Error(`${service} exited before listening: ${stderr}`);
}

function inbound(url: string, payload: unknown) {
  const raw = Buffer.from(JSON.stringify(payload));
  const headers = signRequest('house', { rawBody: raw, secret: SUPPORT_SECRET, now: Math.floor(Date.now() / 1000) });
  return send(`${url}/api/method/erp_core.api.support_cases.support_desk_inbound`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: raw });
}

test('support desk -> erp-api -> governance-api: handoff, failure with governance stopped, retry after restart', { timeout: 120_000 }, async () => {
  const outdir = await sharedBuild();
  const erpData = mkdtempSync(join(tmpdir(), 'airlock-support-erp-'));
  const govData = mkdtempSync(join(tmpdir(), 'airlock-support-gov-'));
  const stops: (() => Promise<unknown>)[] = [];
  try {
    const govBundle = join(outdir, 'bin', 'governance-api.mjs');
    const govEnv = { GOVERNANCE_ROOT: process.cwd(), AIRLOCK_DATA_DIR: govData, GOVERNANCE_DEPLOYMENT_ROLE: 'control-api', GOVERNANCE_OPERATOR_TOKEN: OPERATOR_TOKEN, GOVERNANCE_WORKER_LISTEN: '127.0.0.1:0' };
    let governance = await startBundle(govBundle, govEnv, 'governance', 'worker');
    const erp = await startBundle(join(outdir, 'bin', 'erp-api.mjs'), { ...erpEnv(erpData), SUPPORT_DESK_WEBHOOK_SECRET: SUPPORT_SECRET, GOVERNANCE_URL: governance.url, GOVERNANCE_TOKEN: OPERATOR_TOKEN }, 'erp', 'main');
    stops.push(() => erp.stop());
    const readback = async () => {
      const response = await send(`${governance.url}/api/v1/support-orchestration/handoffs`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } });
      assert.equal(response.status, 200, response.text);
      return (response.json() as { handoffs: { event: string; payload: { event_audit_key: string; ticket_id: string } }[] }).handoffs;
    };

    const first = await inbound(erp.url, { event_id: 'e2e-1', kind: 'ticket', ticket_id: 77, sequence: 1, state: 'new', priority: '3 high' });
    assert.equal(first.status, 200, first.text);
    assert.deepEqual((await readback()).map((h) => [h.event, h.payload.event_audit_key, h.payload.ticket_id]), [['support.ticket_opened', 'support_desk:e2e-1', '77']]);

    assert.equal(await governance.stop(), 0);
    const event = { event_id: 'e2e-2', kind: 'ticket', ticket_id: 77, sequence: 2, state: 'closed', priority: '3 high' };
    const failed = await inbound(erp.url, event);
    assert.equal(failed.status, 503, failed.text);
    const message = (failed.json() as { message: { ok: boolean; reason: string; integration_event: string } }).message;
    assert.deepEqual([message.ok, message.reason], [false, 'governance_support_handoff_failed']);
    const ie = await send(`${erp.url}/api/resource/Integration%20Event/${message.integration_event}`, { headers: { authorization: TOKEN } });
    assert.equal((ie.json() as { data: { status: string } }).data.status, 'failed');

    governance = await startBundle(govBundle, { ...govEnv, GOVERNANCE_WORKER_LISTEN: new URL(governance.url).host }, 'governance', 'worker');
    stops.push(() => governance.stop());
    const retried = await inbound(erp.url, event);
    assert.equal(retried.status, 200, retried.text);
    assert.equal((retried.json() as { message: { integration_event: string } }).message.integration_event, message.integration_event);
    assert.deepEqual((await readback()).map((h) => [h.event, h.payload.event_audit_key]), [['support.ticket_opened', 'support_desk:e2e-1'], ['support.ticket_closed', 'support_desk:e2e-2']]);
    const done = await send(`${erp.url}/api/resource/Integration%20Event/${message.integration_event}`, { headers: { authorization: TOKEN } });
    assert.equal((done.json() as { data: { status: string } }).data.status, 'processed');
  } finally {
    for (const stop of stops.reverse()) await stop();
    for (const dir of [erpData, govData]) rmSync(dir, { recursive: true, force: true });
  }
});
