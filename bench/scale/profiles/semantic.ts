// The semantic service at scale. Its business event is the seed's inbox intake: one ingest record
// put into the inbox (semantic-ingest, a JSONL file) and decided by the reconciliation worker
// (semantic-worker), which merges it into the tenant's graph compartment or quarantines it, and
// appends the run's readback and receipts to its evidence chains. The mix: nodes and edges over
// three tenants and the contract's isolation domains, one record in fifty without a domain
// (quarantined). The API (semantic-api) only reads what the worker wrote.

import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { openControlDatabase } from '../../../src/semantic/control-schema.ts';
import { putRecords } from '../../../src/semantic/ingest-inbox.ts';
import { ISOLATION_DOMAIN_REFS } from '../../../src/semantic/isolation-domains.ts';
import { reconcileOnce } from '../../../src/semantic/reconcile.ts';
import { CONTEXT_PATH, FIXTURE_PREFIX, PROJECTION_PATH, STATUS_PATH, TOPOLOGY_PATH } from '../../../src/semantic/routes.ts';
import type { GrowOutcome, ReadRoute, ScaleProfile } from '../profile.ts';

const OPERATOR = { 'x-semantic-operator-token': 'scale-bench-semantic-operator-0123456789' };
const CONSUMER_TOKEN = 'scale-bench-semantic-consumer-0123456789';
const CONSUMER = { authorization: `Bearer ${CONSUMER_TOKEN}` };
const CASE_REF = 'ts02:case-scale-001';
/** The worker's default batch (SEMANTIC_WORKER_BATCH): one readback row per hundred records. */
const WORKER_BATCH = 100;
const INTAKE_CHUNK = 5000;
const TENANTS = ['tenant-north', 'tenant-south', 'tenant-east'];
const ARTIFACT = {
  artifact: 'semantic_runtime_owner',
  version: 1,
  runtime_owner: 'scale-bench',
  environment: 'scale-bench',
  generated_at: '2026-01-01T00:00:00Z',
  topology_metrics: { graph_nodes_total: 0, graph_edges_total: 0, hidden_edges_total: 0, isolation_domains_active: 4, tenant_compartments_active: 3 },
  runtime_metrics: { retrieval_quality_score: 0.8, retrieval_p95_latency_ms: 100 },
};

/** The n-th intake record: a node, or every third an edge between two earlier nodes; every fiftieth has no domain. */
function record(n: number): string {
  const tenant = TENANTS[n % TENANTS.length]!;
  const domain = n % 50 === 49 ? undefined : ISOLATION_DOMAIN_REFS[Math.floor(n / TENANTS.length) % ISOLATION_DOMAIN_REFS.length];
  const base = { record_id: `r-${n}`, tenant_id: tenant, ...(domain !== undefined && { isolation_domain_ref: domain }) };
  if (n % 3 === 2) return JSON.stringify({ ...base, kind: 'edge', edge_id: `e-${n}`, from: `n-${n - 2}`, to: `n-${n - 1}`, relation: 'settles' });
  return JSON.stringify({ ...base, kind: 'node', node_id: `n-${n}`, label: 'Payment', properties: { amount: n % 1000, currency: 'EUR' } });
}

function run(entry: string, args: string[], env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [entry, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => void (stderr += chunk.toString('utf8')));
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${entry} exited with ${code}: ${stderr.slice(-500)}`))));
  });
}

const source = (path: string) => fileURLToPath(new URL(`../../../src/semantic/${path}`, import.meta.url));

export function semanticProfile(): ScaleProfile {
  const grown: GrowOutcome = { events: 0, rawBytes: 0 };
  let dataDir = '';
  const env = (dir: string) => {
    dataDir = dir;
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'tokens.json'), JSON.stringify({ 'live-runtime-contract-check': CONSUMER_TOKEN }));
    writeFileSync(join(dir, 'runtime-owner.json'), JSON.stringify(ARTIFACT));
    return {
      AIRLOCK_DATA_DIR: dir,
      SEMANTIC_LISTEN: '127.0.0.1:0',
      SEMANTIC_OPERATOR_TOKEN: OPERATOR['x-semantic-operator-token'],
      SEMANTIC_CONSUMER_TOKENS_FILE: join(dir, 'tokens.json'),
      SEMANTIC_PROJECTION_CASE_ALLOWLIST: CASE_REF,
      SEMANTIC_RUNTIME_OWNER_ARTIFACT: join(dir, 'runtime-owner.json'),
      SEMANTIC_CANARY_TENANT_ID: 'canary-tenant',
      SEMANTIC_WORKER_BATCH: String(WORKER_BATCH),
      SEMANTIC_WORKER_INTERVAL_MS: '100',
    };
  };
  const get = (name: string, path: string, headers: Record<string, string>): ReadRoute => ({ name, request: { path, headers } });
  const post = (name: string, path: string, body: Record<string, unknown> | undefined, headers: Record<string, string>): ReadRoute => ({
    name,
    request: { method: 'POST', path, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) },
  });
  const fixture = (name: string, body?: Record<string, unknown>) => post(`POST fixtures/${name}`, `${FIXTURE_PREFIX}/${name}`, body, OPERATOR);
  return {
    service: 'semantic',
    businessEvent: 'inbox record',
    entry: source('main.ts'),
    bundle: 'semantic-api.mjs',
    env,
    database: (dir) => join(dir, 'semantic.sqlite'),
    // semantic-ingest puts each chunk into the inbox (a JSONL file, as operators do); one resident
    // semantic-worker decides them; the API's context readback says when nothing is undecided.
    async grow(url, target) {
      const files = join(dataDir, 'intake');
      mkdirSync(files, { recursive: true });
      const childEnv = env(dataDir);
      const worker = spawn(process.execPath, [source('main-worker.ts')], { env: { ...process.env, ...childEnv }, stdio: 'ignore' });
      try {
        while (grown.events < target) {
          const count = Math.min(INTAKE_CHUNK, target - grown.events);
          const lines = Array.from({ length: count }, (_, i) => record(grown.events + i));
          const file = join(files, `intake-${grown.events}.jsonl`);
          writeFileSync(file, `${lines.join('\n')}\n`);
          await run(source('main-ingest.ts'), [file], childEnv);
          rmSync(file);
          grown.events += count;
          grown.rawBytes += lines.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
        }
        for (;;) {
          const answer = (await (await fetch(new URL(CONTEXT_PATH, url), { headers: CONSUMER })).json()) as { freshness: { undecided_records: number } };
          if (answer.freshness.undecided_records === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      } finally {
        await new Promise((resolve) => {
          worker.once('exit', resolve);
          worker.kill('SIGTERM');
        });
      }
      return { ...grown };
    },
    async growDirect(dir, target) {
      const store = openControlDatabase(join(dir, 'semantic.sqlite'));
      try {
        while (grown.events < target) {
          const count = Math.min(INTAKE_CHUNK, target - grown.events);
          const lines = Array.from({ length: count }, (_, i) => record(grown.events + i));
          await putRecords(store, lines, { source: `intake-${grown.events}.jsonl` });
          grown.events += count;
          grown.rawBytes += lines.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
          // The worker's loop: bounded batches back to back while the inbox has a backlog.
          for (;;) {
            const run = await reconcileOnce(store, { batchSize: WORKER_BATCH });
            if (run === undefined || run.backlog_remaining === 0) break;
          }
        }
      } finally {
        await store.close();
      }
      return { ...grown };
    },
    reads: [
      get('GET /healthz', '/healthz', {}),
      get('GET /readyz', '/readyz', {}),
      get('GET runtime/status', STATUS_PATH, CONSUMER),
      get('GET context/readback', CONTEXT_PATH, CONSUMER),
      get('GET topology/metrics/readback', TOPOLOGY_PATH, OPERATOR),
      post('POST projection-verification/runs (a recorded correlation id again)', PROJECTION_PATH, { correlation_id: 'corr-scale-1', source_event_id: 'evt-scale-1', case_ref: CASE_REF }, OPERATOR),
      fixture('deletion-restore', { fixture_id: 'deletion-restore.subject-001', scope_type: 'subject' }),
      fixture('temporal-ontology', { fixture_id: 'temporal-ontology.valid-time-001' }),
      fixture('entity-conflict', { fixture_id: 'entity-conflict.shared-email-001', scenario: 'conflicting_candidates' }),
      fixture('retrieval-gate', { fixture_id: 'retrieval-gate.hybrid-001', scenario: 'vector_lane_degraded' }),
      fixture('context-security'),
      fixture('poison-mutation', { fixture_id: 'poison-mutation.injected-fact-001', label: 'poisoning' }),
      fixture('canary-activation'),
    ],
    heaviest: get('GET runtime/status', STATUS_PATH, CONSUMER),
    readiness: get('GET /readyz', '/readyz', {}),
  };
}
