// One reconciliation run of the worker: take at most `batchSize` undecided inbox records, decide
// each (merge with its declared domain persisted, or QUARANTINED), repair edge visibility (an
// edge is visible only when both its ends exist in its own compartment), and record the run.
//
// The decisions and repairs are planned from one synchronous read, then committed as a single
// group-commit batch: the graph writes, the outcomes, the outbox events, the receipts and the
// readback snapshot land together or not at all. ingest_outcomes' primary key makes a second
// worker that planned the same records fail its batch instead of deciding them twice.

import type { DatabaseSync } from 'node:sqlite';
import { AirlockError, isAirlockError, statement } from '../kernel/index.ts';
import type { Store, Transaction } from '../kernel/index.ts';
import { READBACK_TABLE, RECEIPTS_TABLE } from './control-schema.ts';
import type { ReadbackPayload, ReceiptPayload } from './control-schema.ts';
import { recordEvent } from './event-outbox.ts';
import { mergeIntoGraph } from './graph-merge.ts';
import { recordedDecisions, redactDecidedRecord } from './ingest-inbox.ts';
import { decideIngestRecord, quarantine } from './ingest-record.ts';
import { checkSchemaIntegrity } from './schema-integrity.ts';
import type { EdgeMerge, IngestDecision, NodeMerge } from './ingest-record.ts';

export const MAX_BATCH_SIZE = 1000;

/** The message of reconcileOnce()'s refusal on a failed schema-integrity check, which isIntegrityRefusal() recognises. */
const INTEGRITY_REFUSAL = 'Cannot reconcile: the control database failed its schema-integrity check, nothing was merged';

interface Decided {
  seq: number;
  decision: IngestDecision;
  /** The inbox text kept once decided (no raw tenant id). */
  redacted: string;
}

interface EdgeKey {
  tenant_hash: string;
  isolation_domain_ref: string;
  edge_id: string;
}

interface Plan {
  decided: Decided[];
  /** Final visibility of every edge merged by this run, by compartment key. */
  edgeVisibility: Map<string, boolean>;
  hidden: (EdgeKey & { missing: string[] })[];
  restored: EdgeKey[];
}

/**
 * Runs one bounded batch. Resolves with the run's readback snapshot, or undefined when the
 * inbox had nothing undecided (then nothing is written).
 *
 * @example
 * const run = await reconcileOnce(store, { batchSize: 100 });
 */
export async function reconcileOnce(store: Store, options: { batchSize: number; /** Verifiers that audit a schema on purpose (never the service). */ skipIntegrityCheck?: boolean }): Promise<ReadbackPayload | undefined> {
  if (!Number.isSafeInteger(options.batchSize) || options.batchSize < 1 || options.batchSize > MAX_BATCH_SIZE) {
    throw new RangeError(`Invalid batch size ${options.batchSize}: use 1 to ${MAX_BATCH_SIZE}`);
  }
  const sqlite = store.sqlite;
  // Fail closed: a graph whose schema or CHECK constraints were changed cannot keep compartments apart.
  const integrity = options.skipIntegrityCheck === true ? undefined : checkSchemaIntegrity(sqlite);
  if (integrity?.status === 'fail') {
    throw new AirlockError('environment', INTEGRITY_REFUSAL, { details: integrity.reasons });
  }
  const startedAt = store.now().toISOString();
  const cursor = Number(sqlite.prepare('SELECT coalesce(max(inbox_seq), 0) AS cursor FROM ingest_outcomes').get()?.['cursor'] ?? 0);
  const rows = sqlite.prepare('SELECT seq, record, tenant_hash, record_id, content_sha256 FROM ingest_inbox WHERE seq > ? ORDER BY seq LIMIT ?').all(cursor, options.batchSize);
  if (rows.length === 0) return undefined;
  const earlier = sqlite.prepare('SELECT seq FROM ingest_inbox WHERE tenant_hash IS ? AND record_id = ? AND seq < ? AND content_sha256 IS NOT ? ORDER BY seq LIMIT 1');
  // Decided when each record entered the inbox; a restored inbox no longer holds the raw text to decide from.
  const recorded = recordedDecisions(sqlite, { from: Number(rows[0]!['seq']), to: Number(rows.at(-1)!['seq']) });
  const decided = rows.map((row) => {
    const seq = Number(row['seq']);
    const recordId = row['record_id'];
    // The same tenant's record_id with other content: neither version may silently win. Another
    // tenant's record with that id is another record, so it can never quarantine this one.
    const clash = typeof recordId === 'string' ? earlier.get(row['tenant_hash'] ?? null, recordId, seq, row['content_sha256'] ?? null) : undefined;
    const decision = clash === undefined
      ? recorded.get(seq) ?? decideIngestRecord(String(row['record']))
      : quarantine('record_id_conflict', `record_id was ingested before for this tenant with other content (inbox seq ${Number(clash['seq'])})`, recordId as string);
    return { seq, decision, redacted: redactDecidedRecord(String(row['record'])) };
  });
  const plan = planVisibility(sqlite, decided);
  const lastSeq = decided.at(-1)!.seq;
  const runId = `recon-${decided[0]!.seq}-${lastSeq}`;
  // The inbox is append-only and its seqs run from 1 without gaps: what waits is the last seq less
  // the cursor, read from the key, not counted (a million-record intake would count it per batch).
  const backlog = Math.max(0, lastInboxSeq(sqlite) - lastSeq);
  const merged = decided.filter((d) => d.decision.state === 'MERGED').length;
  const decidedAt = store.now().toISOString();
  const snapshot: ReadbackPayload = {
    run_id: runId,
    batch_limit: options.batchSize,
    taken: decided.length,
    merged,
    quarantined: decided.length - merged,
    edges_hidden: plan.hidden.length,
    edges_restored: plan.restored.length,
    inbox_cursor: lastSeq,
    backlog_remaining: backlog,
    started_at: startedAt,
    decided_at: decidedAt,
  };
  // One unit of work: the graph changes, outcomes, events, receipts and snapshot commit together or not at all.
  await store.write((sqlite, tx) => {
    applyPlan(sqlite, { tx, plan, runId, at: decidedAt, snapshot });
    tx.append(RECEIPTS_TABLE, { run_id: runId, kind: 'admission', payload: admissionReceipt(runId, decided) });
    if (plan.hidden.length + plan.restored.length > 0) {
      tx.append(RECEIPTS_TABLE, { run_id: runId, kind: 'visibility_repair', payload: repairReceipt(runId, plan) });
    }
    tx.append(READBACK_TABLE, { run_id: runId, payload: snapshot });
  });
  return snapshot;
}

/** True for the error reconcileOnce() throws when the schema-integrity check fails. */
export function isIntegrityRefusal(error: unknown): error is AirlockError {
  return isAirlockError(error, 'environment') && error.message === INTEGRITY_REFUSAL;
}

function planVisibility(sqlite: DatabaseSync, decided: Decided[]): Plan {
  const nodeExists = sqlite.prepare('SELECT 1 FROM graph_nodes WHERE tenant_hash = ? AND isolation_domain_ref = ? AND node_id = ?');
  const edgeState = sqlite.prepare('SELECT visible FROM graph_edges WHERE tenant_hash = ? AND isolation_domain_ref = ? AND edge_id = ?');
  const hiddenTouching = sqlite.prepare(
    'SELECT edge_id, from_node, to_node FROM graph_edges WHERE tenant_hash = ? AND isolation_domain_ref = ? AND visible = 0 AND (from_node = ? OR to_node = ?)',
  );
  const merges = decided.flatMap((d) => (d.decision.state === 'MERGED' ? [d.decision.merge] : []));
  const batchNodes = new Set(merges.filter((m): m is NodeMerge => m.kind === 'node').map((m) => compartmentKey(m.tenantHash, m.domain, m.nodeId)));
  const present = (tenant: string, domain: string, node: string) =>
    batchNodes.has(compartmentKey(tenant, domain, node)) || nodeExists.get(tenant, domain, node) !== undefined;

  const finalEdges = new Map<string, EdgeMerge>();
  for (const merge of merges) if (merge.kind === 'edge') finalEdges.set(compartmentKey(merge.tenantHash, merge.domain, merge.edgeId), merge);
  const plan: Plan = { decided, edgeVisibility: new Map(), hidden: [], restored: [] };
  for (const [key, edge] of finalEdges) {
    const missing: string[] = [];
    if (!present(edge.tenantHash, edge.domain, edge.from)) missing.push('from');
    if (!present(edge.tenantHash, edge.domain, edge.to)) missing.push('to');
    const visible = missing.length === 0;
    plan.edgeVisibility.set(key, visible);
    const before = edgeState.get(edge.tenantHash, edge.domain, edge.edgeId);
    const id = { tenant_hash: edge.tenantHash, isolation_domain_ref: edge.domain, edge_id: edge.edgeId };
    if (!visible) plan.hidden.push({ ...id, missing });
    else if (before !== undefined && before['visible'] === 0) plan.restored.push(id);
  }
  // Edges held hidden by earlier runs come back when this run merged their missing ends.
  for (const merge of merges) {
    if (merge.kind !== 'node') continue;
    for (const row of hiddenTouching.all(merge.tenantHash, merge.domain, merge.nodeId, merge.nodeId)) {
      const edgeId = String(row['edge_id']);
      const key = compartmentKey(merge.tenantHash, merge.domain, edgeId);
      if (finalEdges.has(key) || plan.edgeVisibility.has(key)) continue;
      if (present(merge.tenantHash, merge.domain, String(row['from_node'])) && present(merge.tenantHash, merge.domain, String(row['to_node']))) {
        plan.edgeVisibility.set(key, true);
        plan.restored.push({ tenant_hash: merge.tenantHash, isolation_domain_ref: merge.domain, edge_id: edgeId });
      }
    }
  }
  return plan;
}

/** The inbox's last seq, which is its record count (append-only, seqs from 1 without gaps). */
export function lastInboxSeq(sqlite: DatabaseSync): number {
  return Number(statement(sqlite, 'SELECT coalesce(max(seq), 0) AS n FROM ingest_inbox').get()?.['n'] ?? 0);
}

function applyPlan(sqlite: DatabaseSync, options: { tx: Transaction; plan: Plan; runId: string; at: string; snapshot: ReadbackPayload }): void {
  const { tx, plan, runId, at } = options;
  const count = statement(sqlite, 'INSERT INTO ingest_outcome_counts (state, outcomes) VALUES (?, ?) ON CONFLICT (state) DO UPDATE SET outcomes = outcomes + excluded.outcomes');
  for (const [state, outcomes] of [['MERGED', options.snapshot.merged], ['QUARANTINED', options.snapshot.quarantined]] as const) {
    if (outcomes > 0) count.run(state, outcomes);
  }
  const outcome = sqlite.prepare('INSERT INTO ingest_outcomes (inbox_seq, record_id, state, reason, isolation_domain_ref, run_id) VALUES (?, ?, ?, ?, ?, ?)');
  const restore = sqlite.prepare('UPDATE graph_edges SET visible = 1 WHERE tenant_hash = ? AND isolation_domain_ref = ? AND edge_id = ? AND visible = 0');
  const redact = sqlite.prepare('UPDATE ingest_inbox SET record = ? WHERE seq = ? AND record IS NOT ?');
  for (const { seq, decision, redacted } of plan.decided) {
    redact.run(redacted, seq, redacted);
    if (decision.state === 'QUARANTINED') {
      outcome.run(seq, decision.recordId, 'QUARANTINED', decision.reason, null, runId);
      recordEvent(sqlite, 'semantic.ingest.record_quarantined', {
        tx,
        key: [seq],
        at,
        data: { run_id: runId, inbox_seq: seq, record_id: decision.recordId, reason: decision.reason },
      });
      continue;
    }
    const m = decision.merge;
    outcome.run(seq, m.recordId, 'MERGED', null, m.domain, runId);
    mergeIntoGraph(sqlite, m, { inboxSeq: seq, visible: m.kind === 'edge' && plan.edgeVisibility.get(compartmentKey(m.tenantHash, m.domain, m.edgeId)) === true });
  }
  for (const id of plan.restored) restore.run(id.tenant_hash, id.isolation_domain_ref, id.edge_id);
  const { snapshot } = options;
  recordEvent(sqlite, 'semantic.reconciliation.run_completed', {
    tx,
    key: [runId],
    at,
    data: {
      run_id: runId,
      taken: snapshot.taken,
      merged: snapshot.merged,
      quarantined: snapshot.quarantined,
      edges_hidden: snapshot.edges_hidden,
      edges_restored: snapshot.edges_restored,
      backlog_remaining: snapshot.backlog_remaining,
    },
  });
}

function admissionReceipt(runId: string, decided: Decided[]): ReceiptPayload {
  const items = decided.map(({ seq, decision }) =>
    decision.state === 'MERGED'
      ? { inbox_seq: seq, record_id: decision.merge.recordId, state: 'MERGED', kind: decision.merge.kind, isolation_domain_ref: decision.merge.domain }
      : { inbox_seq: seq, record_id: decision.recordId, state: 'QUARANTINED', reason: decision.reason, detail: decision.detail },
  );
  const merged = items.filter((i) => i.state === 'MERGED').length;
  return { run_id: runId, kind: 'admission', counts: { taken: items.length, merged, quarantined: items.length - merged }, items };
}

function repairReceipt(runId: string, plan: Plan): ReceiptPayload {
  return {
    run_id: runId,
    kind: 'visibility_repair',
    counts: { hidden: plan.hidden.length, restored: plan.restored.length },
    items: [...plan.hidden.map((e) => ({ ...e, action: 'held_hidden' })), ...plan.restored.map((e) => ({ ...e, action: 'restored' }))],
  };
}

function compartmentKey(tenant: string, domain: string, id: string): string {
  return `${tenant}\u0000${domain}\u0000${id}`;
}
