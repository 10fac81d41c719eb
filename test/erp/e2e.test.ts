// The bundle as its own process: erp-api.mjs serves the Frappe surface, survives a restart with
// its evidence (a redelivery after the restart still gets the original answer), and the bundled
// verifiers (verify_evidence_chain, erp_performance_gate) work against it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sharedBuild } from '../helpers/shared-build.ts';
import { send } from '../helpers/http.ts';
import { TOKEN, callMethod, erpEnv, postHouse, postStandard } from './_service.ts';
import { startBundle } from './_bundle.ts';

test('erp-api bundle end to end: intake, posting, readback, restart, verifiers', { timeout: 120_000 }, async () => {
  const outdir = await sharedBuild();
  const dataDir = mkdtempSync(join(tmpdir(), 'airlock-erp-data-'));
  try {
    const bundle = join(outdir, 'bin', 'erp-api.mjs');
    const help = spawnSync(process.execPath, [bundle, '--help'], { encoding: 'utf8' });
    assert.equal(help.status, 0);
    assert.match(help.stdout, /PAYMENT_B_WEBHOOK_SECRET/);
    const env = { ...erpEnv(dataDir), ERP_LISTEN: '127.0.0.1:0' };
    const bad = spawnSync(process.execPath, [bundle], { encoding: 'utf8', env: { ...env, PAYMENT_B_WEBHOOK_SECRET: 'whsec_***' } });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /PAYMENT_B_WEBHOOK_SECRET/);

    let erp = await startBundle(bundle, env);
    const lead = await postHouse(erp.url, 'website_contact_intake', { contact: { email: 'e2e@example.test' } });
    assert.equal(lead.status, 200, lead.text);
    const payment = await postStandard(erp.url, { type: 'payment.succeeded', data: { id: 'pay_e2e', amount: '99.99', currency: 'EUR', customer: 'cust' } }, { id: 'msg_e2e' });
    const revenue = (payment.json() as { message: { revenue_event: string } }).message.revenue_event;
    const posted = await callMethod(erp.url, 'workflows.post_revenue_event', { name: revenue });
    assert.equal((posted.json() as { message: { status: string } }).message.status, 'posted');
    const invoices = await send(`${erp.url}/api/resource/Sales%20Invoice?fields=["name","grand_total","docstatus"]`, { headers: { authorization: TOKEN } });
    assert.deepEqual((invoices.json() as { data: unknown[] }).data, [{ name: (posted.json() as { message: { sales_invoice: string } }).message.sales_invoice, grand_total: '99.99', docstatus: 0 }]);
    assert.equal((await send(`${erp.url}/api/method/erp_core.api.nope`)).status, 404);
    assert.equal(await erp.stop(), 0);

    erp = await startBundle(bundle, env);
    const again = await postStandard(erp.url, { type: 'payment.succeeded', data: { id: 'pay_e2e', amount: '99.99', currency: 'EUR', customer: 'cust' } }, { id: 'msg_e2e' });
    assert.equal(again.text, payment.text, 'a redelivery after a restart gets the original answer');
    const status = (await send(`${erp.url}/api/method/erp_core.api.health.integration_status`)).json() as { message: { evidence_chains: Record<string, { rows: number }> } };
    assert.equal(status.message.evidence_chains['Integration Event']!.rows, 2);

    const gate = spawnSync(process.execPath, [join(outdir, 'bin', 'erp_performance_gate.mjs'), '--base-url', erp.url, '--duration', '1', '--concurrency', '4', '--json'], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', ...env } });
    // spawnSync blocks this process only; the service under load is its own process.
    assert.equal(gate.status, 0, gate.stdout + gate.stderr);
    assert.equal(await erp.stop(), 0);

    const verify = spawnSync(process.execPath, [join(outdir, 'bin', 'verify_evidence_chain.mjs'), '--db', join(dataDir, 'erp.sqlite')], { encoding: 'utf8' });
    assert.equal(verify.status, 0, verify.stdout + verify.stderr);
    assert.match(verify.stdout, /integration_events: ok/);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
