import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { loadErpConfig } from '../../src/erp/config.ts';
import { manifest } from '../../src/erp/manifest.ts';
import { createErpService } from '../../src/erp/service.ts';
import { send } from '../helpers/http.ts';
import { SECRETS, erpEnv, postHouse, postStandard, startErp } from './_service.ts';
import type { Running } from './_service.ts';

const ROOT = join(import.meta.dirname, '..', '..');
let erp: Running;
before(async () => {
  erp = await startErp({ env: { PAYMENT_A_WEBHOOK_SECRET: '' } });
});
after(() => erp.stop());

describe('health.integration_status', () => {
  test('no auth; database, chain heads, last intake per source, backlog, secrets present (never values), version truth', async () => {
    await postStandard(erp.url, { type: 'payment.succeeded', data: { id: 'p1', amount: 100, currency: 'EUR', customer: 'c' } });
    await postHouse(erp.url, 'website_contact_intake', { contact: { email: 'x@y.test' } });
    const response = await send(`${erp.url}/api/method/erp_core.api.health.integration_status`);
    assert.equal(response.status, 200);
    const status = (response.json() as { message: Record<string, any> }).message;
    assert.equal(status['database'].status, 'ok');
    assert.equal(status['evidence_chains']['Integration Event'].rows, 2);
    assert.match(status['evidence_chains']['Integration Event'].head, /^[0-9a-f]{64}$/);
    assert.deepEqual(Object.keys(status['evidence_chains']).slice(0, 5), ['Integration Event', 'Dispatch Job', 'Approval Packet', 'Dead Letter', 'Agent Notification']);
    assert.equal(status['last_intake'].payment_a, null);
    assert.match(status['last_intake'].payment_b.integration_event, /^INT-EVT-\d{4}-\d{5}$/);
    assert.deepEqual(status['dispatch_backlog'], { queued: 0, retrying: 0, dead: 0 });
    assert.deepEqual(status['secrets'], { PAYMENT_A_WEBHOOK_SECRET: false, PAYMENT_B_WEBHOOK_SECRET: true, AUTOMATION_SHARED_SECRET: true, ERP_API_SHARED_SECRET: true, WORKSPACE_SHARED_SECRET: true, AGENT_RUNTIME_CALLBACK_SECRET: true });
    assert.deepEqual([status['version'], status['revision'], status['release_marker']], ['0.0.0+test', 'test', null]);
    assert.equal(status['healthchecks'].gateway_seconds, 120);
    for (const secret of Object.values(SECRETS)) assert.ok(!response.text.includes(secret));
  });

  test('a webhook whose secret is not configured fails closed with the same 401', async () => {
    const response = await send(`${erp.url}/api/method/erp_core.api.webhooks.payment_a`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' }, body: '{}' });
    assert.equal(response.status, 401);
  });

  test('/healthz is health+json with the database check; there is no /version', async () => {
    const health = await send(`${erp.url}/healthz`);
    assert.equal(health.status, 200);
    assert.match(String(health.headers['content-type']), /application\/health\+json/);
    assert.equal((health.json() as { status: string }).status, 'pass');
    const version = await send(`${erp.url}/version`);
    assert.equal(version.status, 404);
    assert.match(String(version.headers['content-type']), /problem\+json/);
  });
});

describe('capability inventory', () => {
  test('lists exactly the route table, with the seed\'s stability labels', async () => {
    const inventory = (await send(`${erp.url}/capability-inventory`)).json() as { capabilities: { method: string; path: string; stability: string; family: string; auth: string }[] };
    const table = erp.service.routes.map((r) => `${r.method} ${r.path}`).sort();
    assert.deepEqual(inventory.capabilities.map((c) => `${c.method} ${c.path}`).sort(), table);
    const manifestTable = manifest.routes.map((r) => `${r.method} ${r.path}`).sort();
    assert.deepEqual(manifestTable, table);
    for (const c of inventory.capabilities) {
      const expected = ['workflows', 'workspace_binding'].includes(c.family) && !c.path.endsWith('materialize_dispatch_callback_job') ? 'internal' : 'stable';
      assert.equal(c.stability, expected, `${c.method} ${c.path}`);
    }
    const webhook = inventory.capabilities.find((c) => c.path.endsWith('webhooks.payment_b'))!;
    assert.equal(webhook.auth, 'signature:standard-webhooks');
  });

  test('the governance manifest lists the same surfaces and the stack contract carries the seed\'s healthchecks', () => {
    const governance = JSON.parse(readFileSync(join(ROOT, 'governance-manifest.json'), 'utf8')) as { services: { service: string; exposed_surfaces: { method: string; path: string }[] }[] };
    const entry = governance.services.find((s) => s.service === 'erp')!;
    assert.deepEqual(entry.exposed_surfaces.map((s) => `${s.method} ${s.path}`).sort(), erp.service.routes.map((r) => `${r.method} ${r.path}`).sort());
    const stack = JSON.parse(readFileSync(join(ROOT, 'configs', 'stack-contract.json'), 'utf8')) as { services: { service: string; healthchecks: { name: string; intervals: Record<string, number>; intervalEnv?: string }[]; executables: { listeners: { port: number }[] }[] }[] };
    const erpStack = stack.services.find((s) => s.service === 'erp')!;
    assert.equal(erpStack.executables[0]!.listeners[0]!.port, 18030);
    const byName = Object.fromEntries(erpStack.healthchecks.map((h) => [h.name, h]));
    assert.deepEqual(byName['database']!.intervals, { default: 30, low_cpu: 60 });
    assert.deepEqual(byName['gateway']!.intervals, { default: 120, low_cpu: 180 });
    assert.equal(byName['gateway']!.intervalEnv, 'MCP_GATEWAY_HEALTHCHECK_INTERVAL');
  });
});

describe('evidence and start-up', () => {
  test('verify_evidence_chain checks the ERP database: all chains verify', () => {
    const script = join(ROOT, 'scripts', 'verify_evidence_chain.ts');
    const result = spawnSync(process.execPath, [script, '--db', join(erp.dir, 'erp.sqlite'), '--json'], { encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
    const report = JSON.parse(result.stdout) as { ok: boolean; tables: { table: string; rows: number }[] };
    assert.deepEqual(report.tables.map((t) => t.table).sort(), ['agent_notifications', 'approval_packets', 'dead_letters', 'dispatch_jobs', 'document_events', 'idempotency_answers', 'integration_events']);
    assert.ok(report.tables.find((t) => t.table === 'integration_events')!.rows >= 2);
  });

  test('evidence rows cannot be updated or deleted', () => {
    assert.throws(() => erp.service.store.sqlite.exec("UPDATE integration_events SET source = 'x'"), /append-only/);
    assert.throws(() => erp.service.store.sqlite.exec('DELETE FROM document_events'), /append-only/);
  });

  test('start-up waits for a locked database, then gives up with the reason after the configured wait', async (t) => {
    const env = erpEnv(erp.dir);
    const lock = new DatabaseSync(join(erp.dir, 'locked.sqlite'));
    lock.exec('CREATE TABLE x (a); BEGIN EXCLUSIVE; INSERT INTO x VALUES (1);');
    t.after(() => lock.close());
    const config = { ...loadErpConfig({ ...env, ERP_MIGRATION_WAIT_SECONDS: '1' }), databasePath: join(erp.dir, 'locked.sqlite') };
    const started = Date.now();
    await assert.rejects(createErpService(config, { retryMs: 100 }), /waited up to 1 s.*locked/);
    assert.ok(Date.now() - started >= 900);
    const waiting = createErpService({ ...config, migrationWaitSeconds: 10 }, { retryMs: 50 });
    setTimeout(() => lock.exec('COMMIT'), 300);
    const service = await waiting;
    await service.close();
  });

  test('configuration problems are listed together and never quote a secret', () => {
    const env = { ...erpEnv(erp.dir), PAYMENT_B_WEBHOOK_SECRET: 'whsec_!!!', ERP_API_KEYS: 'nocolon', ERP_USERS_FILE: join(erp.dir, 'missing.json') };
    assert.throws(() => loadErpConfig(env), (error: Error & { details?: string[] }) => {
      assert.equal(error.details!.length, 3, error.details!.join('\n'));
      assert.ok(!error.details!.join().includes('nocolon'));
      return true;
    });
  });
});
