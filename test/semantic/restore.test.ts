// The semantic control database outlives its host (docs/replication.md): semantic-ingest, the
// reconciliation worker and the API in sync replication mode on a real nats-server with JetStream
// fill the inbox, merge and quarantine records, hold an edge hidden, record a projection run; a
// second batch waits undecided. The API is SIGKILLed and the data directory deleted;
// evidence_restore rebuilds it and the service derives its plain tables from the rows: the graph,
// the outcomes, the decided inbox, the outbox (each event at its seq) and the projection ledger
// read as before; a projection retry is answered as a replay without a second run, another body
// under its correlation id is still 422; and the worker decides the waiting records there exactly
// as it decides them on a copy of the lost database.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, test } from 'node:test';
import { readOutbox } from '../../src/semantic/event-outbox.ts';
import { PROJECTION_PATH } from '../../src/semantic/routes.ts';
import { send, sendJson } from '../helpers/http.ts';
import { startNatsServer } from '../helpers/nats-server.ts';
import type { RunningNatsServer } from '../helpers/nats-server.ts';
import { runEntry, startServiceProcess, syncReplicationEnv } from '../helpers/service-process.ts';
import type { ServiceProcess } from '../helpers/service-process.ts';
import { CASE_REF, CONSUMER_TOKENS, OPERATOR_TOKEN, SAMPLE_ARTIFACT } from './fixtures/semantic-service.ts';

const REQUEST = { correlation_id: 'corr-1', source_event_id: 'evt-1', case_ref: CASE_REF };
const OPERATOR = { 'x-semantic-operator-token': OPERATOR_TOKEN };

let server: RunningNatsServer;
let dir: string;
const running: ServiceProcess[] = [];

before(async () => {
  server = await startNatsServer({ jetstream: true });
  dir = mkdtempSync(join(tmpdir(), 'airlock-semantic-restore-'));
  writeFileSync(join(dir, 'tokens.json'), JSON.stringify(CONSUMER_TOKENS));
  writeFileSync(join(dir, 'runtime-owner.json'), JSON.stringify(SAMPLE_ARTIFACT));
});
after(async () => {
  for (const service of running) await service.stop('SIGKILL');
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

function env(dataDir: string, replication = true): Record<string, string> {
  return {
    AIRLOCK_DATA_DIR: dataDir,
    SEMANTIC_OPERATOR_TOKEN: OPERATOR_TOKEN,
    SEMANTIC_CONSUMER_TOKENS_FILE: join(dir, 'tokens.json'),
    SEMANTIC_PROJECTION_CASE_ALLOWLIST: CASE_REF,
    SEMANTIC_RUNTIME_OWNER_ARTIFACT: join(dir, 'runtime-owner.json'),
    ...(replication && syncReplicationEnv(server.url)),
  };
}

async function startApi(dataDir: string): Promise<{ url: string; process: ServiceProcess }> {
  const api = await startServiceProcess('src/semantic/main.ts', { env: env(dataDir) });
  running.push(api);
  return { url: Object.values(api.urls)[0]!, process: api };
}

async function ingest(dataDir: string, name: string, records: Record<string, unknown>[]): Promise<void> {
  const file = join(dir, name);
  writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n'));
  const result = await runEntry('src/semantic/main-ingest.ts', [file, '--json'], env(dataDir));
  assert.equal(result.status, 0, result.stderr);
}

async function reconcile(dataDir: string, replication = true): Promise<void> {
  const result = await runEntry('src/semantic/main-worker.ts', ['--once', '--json'], env(dataDir, replication));
  assert.equal(result.status, 0, result.stdout + result.stderr);
}

const node = (id: string, tenant = 'tenant-a', extra: Record<string, unknown> = {}) =>
  ({ record_id: `r-${id}`, tenant_id: tenant, isolation_domain_ref: 'payments', kind: 'node', node_id: id, label: 'Payment', properties: { amount: id.length }, ...extra });
const edge = (id: string, from: string, to: string) =>
  ({ record_id: `r-${id}`, tenant_id: 'tenant-a', isolation_domain_ref: 'payments', kind: 'edge', edge_id: id, from, to, relation: 'settles' });

/** What the service reads, straight from its database: the graph, the outcomes, the decided inbox, the outbox and the ledger. */
function state(dataDir: string): Record<string, unknown> {
  const db = new DatabaseSync(join(dataDir, 'semantic.sqlite'), { readOnly: true });
  try {
    const all = (sql: string) => db.prepare(sql).all();
    return {
      nodes: all('SELECT * FROM graph_nodes ORDER BY tenant_hash, isolation_domain_ref, node_id'),
      edges: all('SELECT * FROM graph_edges ORDER BY tenant_hash, isolation_domain_ref, edge_id'),
      outcomes: all('SELECT * FROM ingest_outcomes ORDER BY inbox_seq'),
      decided_inbox: all('SELECT * FROM ingest_inbox WHERE seq IN (SELECT inbox_seq FROM ingest_outcomes) ORDER BY seq'),
      waiting_inbox: all('SELECT seq, tenant_hash, record_id, content_sha256 FROM ingest_inbox WHERE seq NOT IN (SELECT inbox_seq FROM ingest_outcomes) ORDER BY seq'),
      outbox: readOutbox(db),
      projection_runs: all('SELECT * FROM projection_verification_runs ORDER BY correlation_id'),
    };
  } finally {
    db.close();
  }
}

function copyDatabase(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  const db = new DatabaseSync(join(from, 'semantic.sqlite'), { readOnly: true });
  try {
    db.exec(`VACUUM INTO '${join(to, 'semantic.sqlite')}'`);
  } finally {
    db.close();
  }
}

test('semantic: a lost host is restored from the stream; graph, outcomes, inbox, outbox and ledger read the same, a projection retry is a replay, waiting records are decided as on the lost host', { timeout: 180_000 }, async () => {
  const lost = join(dir, 'lost');
  let api = await startApi(lost);
  // First batch: two nodes and an edge between them, an edge to a node not there yet (held
  // hidden), a record without a domain (quarantined), another tenant's record with the same id.
  await ingest(lost, 'first.jsonl', [node('n1'), node('n2'), edge('e1', 'n1', 'n2'), edge('e2', 'n1', 'n3'), { record_id: 'r-x', tenant_id: 'tenant-a', kind: 'node', node_id: 'x', label: 'X' }, node('n1', 'tenant-b')]);
  await reconcile(lost);
  const first = await sendJson(`${api.url}${PROJECTION_PATH}`, REQUEST, { headers: OPERATOR });
  assert.equal(first.status, 200, first.text);
  // Readiness reports the replication of the control database (docs/replication.md).
  const ready = (await send(`${api.url}/readyz`)).json() as { checks: Record<string, { status: string; mode: string }[]> };
  assert.deepEqual(ready.checks['evidence:replication']!.map((c) => [c.status, c.mode]), [['pass', 'sync']]);
  // Second batch, still waiting when the host is lost: the missing end of e2, r-n1 again with
  // other content (a conflict), and an unknown domain.
  await ingest(lost, 'second.jsonl', [node('n3'), node('n1', 'tenant-a', { properties: { amount: 99 } }), { ...node('n4'), isolation_domain_ref: 'nowhere' }]);
  const before = state(lost);
  assert.equal((before['edges'] as { edge_id: string; visible: number }[]).find((e) => e.edge_id === 'e2')?.visible, 0);
  assert.equal((before['waiting_inbox'] as unknown[]).length, 3);
  const control = join(dir, 'control');
  copyDatabase(lost, control);
  await api.process.stop('SIGKILL');
  rmSync(lost, { recursive: true, force: true });

  const restoredDir = join(dir, 'restored');
  const restored = await runEntry('scripts/evidence_restore.ts', ['--service', 'semantic', '--nats', server.url, '--data-dir', restoredDir, '--json']);
  assert.equal(restored.status, 0, restored.stderr);

  api = await startApi(restoredDir);
  const after = state(restoredDir);
  assert.deepEqual(after, before);
  // The per-state outcome counters that readiness and status read are those of the lost host.
  const counters = (at: string) => {
    const file = new DatabaseSync(join(at, 'semantic.sqlite'), { readOnly: true });
    try {
      return file.prepare('SELECT state, outcomes FROM ingest_outcome_counts ORDER BY state').all().map((r) => ({ ...r }));
    } finally {
      file.close();
    }
  };
  assert.deepEqual(counters(restoredDir), counters(control));
  assert.ok(counters(control).length > 0);
  // Waiting records keep no raw tenant id once restored (the evidence never held one).
  const db = new DatabaseSync(join(restoredDir, 'semantic.sqlite'), { readOnly: true });
  assert.ok(db.prepare('SELECT record FROM ingest_inbox').all().every((r) => !String(r['record']).includes('"tenant_id"')));
  db.close();

  // The projection retry is a replay: the same body apart from the clock, no second run or event.
  const again = await sendJson(`${api.url}${PROJECTION_PATH}`, REQUEST, { headers: OPERATOR });
  assert.equal(again.status, 200, again.text);
  const { issued_at: _a, expires_at: _b, ...answer } = again.json() as Record<string, unknown>;
  const { issued_at: _c, expires_at: _d, ...original } = first.json() as Record<string, unknown>;
  assert.deepEqual(answer, original);
  assert.equal((await sendJson(`${api.url}${PROJECTION_PATH}`, { ...REQUEST, source_event_id: 'evt-2' }, { headers: OPERATOR })).status, 422);
  assert.deepEqual(state(restoredDir), before);
  await api.process.stop('SIGTERM');

  // The worker carries on: it decides the waiting records on the restored database as on the copy.
  await reconcile(restoredDir);
  await reconcile(control, false);
  const decided = state(restoredDir);
  // Apart from when each worker ran: the clock is in the events of the new run.
  const untimed = (s: Record<string, unknown>) => ({
    ...s,
    outbox: (s['outbox'] as { created_at: string; payload: Record<string, unknown> }[]).map(({ created_at: _t, payload: { occurred_at: _o, ...payload }, ...event }) => ({ ...event, payload })),
  });
  assert.deepEqual(untimed(decided), untimed(state(control)));
  assert.equal((decided['edges'] as { edge_id: string; visible: number }[]).find((e) => e.edge_id === 'e2')?.visible, 1, 'e2 restored by n3');
  assert.deepEqual((decided['outcomes'] as { state: string; reason: string | null }[]).slice(-3).map((o) => [o.state, o.reason]), [['MERGED', null], ['QUARANTINED', 'record_id_conflict'], ['QUARANTINED', 'isolation_domain_ref_unknown']]);

  const verified = await runEntry('scripts/verify_evidence_chain.ts', ['--nats', server.url, '--service', 'semantic', '--db', join(restoredDir, 'semantic.sqlite'), '--json']);
  assert.equal(verified.status, 0, verified.stdout + verified.stderr);
  assert.ok((JSON.parse(verified.stdout) as { heads: { agree: boolean }[] }).heads.every((h) => h.agree));
});
