// The dispatch lane with the erp-api bundle as its own process and an agent-runtime double that
// speaks HTTP: 500 twice then 200 (delivered once, after backoff); a runtime that never answers
// (a Dead Letter after the budget, the packet not closed); and a SIGKILL while a delivery hangs
// (the next process delivers the job: nothing is lost).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { sharedBuild } from '../helpers/shared-build.ts';
import { send } from '../helpers/http.ts';
import { TOKEN, callMethod, erpEnv, postHouse } from './_service.ts';

async function startBundle(bundle: string, env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [bundle, '--listen', '127.0.0.1:0'], { env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'ignore'] });
  for await (const line of createInterface({ input: child.stdout! })) return { url: (JSON.parse(line) as { url: string }).url, child };
  throw new Error('erp-api exited before listening');
}
const stop = (child: ChildProcess, signal: NodeJS.Signals) => new Promise<void>((resolve) => (child.once('exit', () => resolve()), child.kill(signal)));

async function jobStatus(url: string, job: string, wanted: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 200; i++) {
    const doc = ((await send(`${url}/api/resource/Dispatch%20Job/${job}`, { headers: { authorization: TOKEN } })).json() as { data: Record<string, unknown> }).data;
    if (doc['status'] === wanted) return doc;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`Dispatch Job ${job} never became ${wanted}`);
}

test('erp-api bundle dispatches to an agent runtime over HTTP: retries, dead letters, kill safety', { timeout: 180_000 }, async () => {
  const outdir = await sharedBuild();
  const dataDir = mkdtempSync(join(tmpdir(), 'airlock-erp-data-'));
  const answers: (number | 'hang')[] = [500, 500, 200];
  let received = 0;
  const runtime = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      const answer = answers.shift() ?? 200;
      if (answer !== 'hang') res.writeHead(answer).end('{}');
    });
  });
  await new Promise<void>((resolve) => runtime.listen(0, '127.0.0.1', resolve));
  try {
    const bundle = join(outdir, 'bin', 'erp-api.mjs');
    const env = { ...erpEnv(dataDir), AGENT_RUNTIME_URL: `http://127.0.0.1:${(runtime.address() as AddressInfo).port}/approvals`, ERP_WORKER_INTERVAL_MS: '50', ERP_DISPATCH_BACKOFF_BASE_MS: '100', ERP_DISPATCH_BACKOFF_CAP_MS: '200', ERP_DISPATCH_TIMEOUT_MS: '500', ERP_DISPATCH_MAX_ATTEMPTS: '3' };
    let erp = await startBundle(bundle, env);
    const packetFor = async (invoice: string) => {
      const staged = await postHouse(erp.url, 'supplier_intake', { vendor: { name: 'Globex LLC' }, invoice: { number: invoice, currency: 'USD' }, totals: { grand_total: '1.00' }, line_items: [{ description: 'x', amount: '1.00' }] });
      const name = (staged.json() as { message: { supplier_intake: string } }).message.supplier_intake;
      const packet = ((await callMethod(erp.url, 'workflows.request_supplier_intake_approval', { name })).json() as { message: { approval_packet: string } }).message.approval_packet;
      return ((await callMethod(erp.url, 'workflows.dispatch_approval_packet', { approval_packet: packet })).json() as { message: { dispatch_job: string; approval_packet: string } }).message;
    };

    const first = await packetFor('E-1');
    const delivered = await jobStatus(erp.url, first.dispatch_job, 'Delivered');
    assert.equal(delivered['attempts'], 3);
    assert.equal(received, 3);

    answers.push('hang', 'hang', 'hang');
    const second = await packetFor('E-2');
    const dead = await jobStatus(erp.url, second.dispatch_job, 'Dead');
    assert.match(String(dead['last_error']), /no answer within 500 ms/);
    const packet = ((await send(`${erp.url}/api/resource/Approval%20Packet/${second.approval_packet}`, { headers: { authorization: TOKEN } })).json() as { data: { status: string } }).data;
    assert.equal(packet.status, 'dispatched');
    const letters = ((await send(`${erp.url}/api/resource/Dead%20Letter?fields=["name","dispatch_job","last_error"]`, { headers: { authorization: TOKEN } })).json() as { data: { dispatch_job: string }[] }).data;
    assert.deepEqual(letters.map((l) => l.dispatch_job), [second.dispatch_job]);

    answers.push('hang');
    const before = received;
    const third = await packetFor('E-3');
    while (received === before) await new Promise((resolve) => setTimeout(resolve, 20));
    await stop(erp.child, 'SIGKILL');
    erp = await startBundle(bundle, env);
    const resumed = await jobStatus(erp.url, third.dispatch_job, 'Delivered');
    assert.ok(Number(resumed['attempts']) >= 1);
    await stop(erp.child, 'SIGTERM');
  } finally {
    runtime.closeAllConnections();
    runtime.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
