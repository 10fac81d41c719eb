// End to end: bundles the executables, starts semantic-api and semantic-worker as processes on
// port 0, feeds records through semantic-ingest, and drives everything over HTTP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DatabaseSync } from 'node:sqlite';
import { verifyAllChains } from '../../src/kernel/index.ts';
import { send, sendJson } from '../helpers/http.ts';
import { sharedBuild } from '../helpers/shared-build.ts';
import { edgeRecord, nodeRecord, tempDir } from './fixtures/semantic-fixtures.ts';
import { CONSUMER_TOKENS, OPERATOR_TOKEN, SAMPLE_ARTIFACT } from './fixtures/semantic-service.ts';


interface Running {
  child: ChildProcess;
  firstLine: Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
  stderr: () => string;
}

function start(bundle: string, env: Record<string, string>): Running {
  const child = spawn(process.execPath, [bundle], { env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const firstLine = new Promise<Record<string, unknown>>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve(JSON.parse(line) as Record<string, unknown>));
    child.once('exit', (code) => reject(new Error(`${bundle} exited ${code} before its first line: ${stderr}`)));
  });
  return { child, firstLine, exited, stderr: () => stderr };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('bundled semantic-api, semantic-worker and semantic-ingest work together over HTTP and the control database', async (t) => {
  const outdir = await sharedBuild();
  const bin = (name: string) => join(outdir, 'bin', `${name}.mjs`);
  for (const name of ['semantic-api', 'semantic-worker', 'semantic-ingest']) {
    const help = spawnSync(process.execPath, [bin(name), '--help'], { encoding: 'utf8' });
    assert.equal(help.status, 0, `${name} --help`);
    assert.match(help.stdout, /^Usage: semantic-/);
  }

  const data = tempDir(t);
  writeFileSync(join(data, 'tokens.json'), JSON.stringify(CONSUMER_TOKENS));
  writeFileSync(join(data, 'artifact.json'), JSON.stringify(SAMPLE_ARTIFACT));
  const api = start(bin('semantic-api'), {
    AIRLOCK_DATA_DIR: data,
    SEMANTIC_LISTEN: '127.0.0.1:0',
    SEMANTIC_OPERATOR_TOKEN: OPERATOR_TOKEN,
    SEMANTIC_CONSUMER_TOKENS_FILE: join(data, 'tokens.json'),
    SEMANTIC_PROJECTION_CASE_ALLOWLIST: 'ts02:e2e-case',
    SEMANTIC_RUNTIME_OWNER_ARTIFACT: join(data, 'artifact.json'),
  });
  const worker = start(bin('semantic-worker'), { AIRLOCK_DATA_DIR: data, SEMANTIC_WORKER_BATCH: '2', SEMANTIC_WORKER_INTERVAL_MS: '100' });
  t.after(() => {
    api.child.kill('SIGKILL');
    worker.child.kill('SIGKILL');
  });
  const listening = await api.firstLine;
  assert.deepEqual([listening['msg'], listening['service'], listening['listener']], ['listening', 'semantic', 'main']);
  const base = String(listening['url']);
  assert.match(base, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.deepEqual(await worker.firstLine, { msg: 'running', service: 'semantic', role: 'worker', batch_size: 2, interval_ms: 100 });

  const consumer = { authorization: `Bearer ${CONSUMER_TOKENS['live-runtime-contract-check']}` };
  const operator = { 'x-semantic-operator-token': OPERATOR_TOKEN };
  const before = await send(`${base}/api/v1/semantic/runtime/status`, { headers: consumer });
  assert.equal(before.status, 200);

  const file = join(data, 'records.jsonl');
  const records = [
    nodeRecord({ record_id: 'a1', node_id: 'n1' }),
    edgeRecord({ record_id: 'a2', edge_id: 'e1', from: 'n1', to: 'n2' }),
    nodeRecord({ record_id: 'a3', node_id: 'n2' }),
    nodeRecord({ record_id: 'a4', node_id: 'n3', isolation_domain_ref: undefined }),
    nodeRecord({ record_id: 'a5', node_id: 'n4', isolation_domain_ref: 'customer_relationship' }),
  ];
  writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n'));
  const ingest = spawnSync(process.execPath, [bin('semantic-ingest'), file, '--json'], { env: { PATH: process.env['PATH'] ?? '', AIRLOCK_DATA_DIR: data }, encoding: 'utf8' });
  assert.equal(ingest.status, 0, ingest.stderr);
  assert.equal(JSON.parse(ingest.stdout).enqueued, 5);

  const status = await until('the worker to drain the inbox', async () => {
    const res = await send(`${base}/api/v1/semantic/runtime/status`, { headers: consumer });
    const body = res.json() as Record<string, any>;
    return body['control_db_discovery'].inbox.undecided === 0 && body['reconciliation_worker_snapshot'].status === 'available' ? { res, body } : undefined;
  });
  assert.notEqual(status.res.headers['etag'], before.headers['etag']);
  assert.deepEqual(status.body['control_db_discovery'].inbox, { records: 5, undecided: 0, merged: 4, quarantined: 1 });
  assert.equal(status.body['reconciliation_worker_snapshot'].run_id, 'recon-5-5', 'batches of at most 2: 1-2, 3-4, 5-5');
  assert.ok(status.body['repair_receipts'].some((r: { kind: string; counts: { restored?: number } }) => r.kind === 'visibility_repair' && r.counts.restored === 1));
  assert.equal((await send(`${base}/api/v1/semantic/runtime/status`, { headers: { ...consumer, 'if-none-match': String(status.res.headers['etag']) } })).status, 304);

  const context = (await send(`${base}/api/v1/semantic/context/readback`, { headers: consumer })).json() as Record<string, any>;
  assert.equal(context['freshness'].state, 'current');
  const gated = await send(`${base}/api/v1/semantic/context/readback`, { headers: { authorization: `Bearer ${CONSUMER_TOKENS['agent-context-service']}` } });
  assert.equal(gated.status, 403);
  const topology = (await send(`${base}/api/v1/semantic/topology/metrics/readback`, { headers: operator })).json() as Record<string, any>;
  assert.equal(Object.keys(topology['metrics']).length, 6);
  const run = await sendJson(`${base}/api/v1/semantic/projection-verification/runs`, { correlation_id: 'e2e-1', source_event_id: 'ev-1', case_ref: 'ts02:e2e-case' }, { headers: operator });
  assert.equal(run.status, 200);
  const fixture = await sendJson(`${base}/api/v1/semantic/fixtures/poison-mutation`, { fixture_id: 'poison-mutation.injected-fact-001', label: 'counterfactual' }, { headers: operator });
  assert.equal((fixture.json() as Record<string, any>)['evidence'].evidence, 'downgrade');
  assert.equal((await send(`${base}/readyz`)).status, 200);

  worker.child.kill('SIGTERM');
  api.child.kill('SIGTERM');
  assert.equal(await worker.exited, 0, worker.stderr());
  assert.equal(await api.exited, 0, api.stderr());
  assert.ok(!api.stderr().includes(OPERATOR_TOKEN));

  const sqlite = new DatabaseSync(join(data, 'semantic.sqlite'), { readOnly: true });
  try {
    const chains = verifyAllChains(sqlite);
    assert.deepEqual(chains.map((c) => [c.table, c.ok]), [['event_outbox_log', true], ['ingest_inbox_records', true], ['projection_reconciliation_readback', true], ['projection_reconciliation_receipts', true], ['projection_verification_ledger', true]]);
    const domains = sqlite.prepare('SELECT node_id, isolation_domain_ref FROM graph_nodes ORDER BY node_id').all().map((r) => [r['node_id'], r['isolation_domain_ref']]);
    assert.deepEqual(domains, [['n1', 'payments'], ['n2', 'payments'], ['n4', 'customer_relationship']]);
  } finally {
    sqlite.close();
  }
});
