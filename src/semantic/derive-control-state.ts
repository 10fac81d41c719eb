// The control database's plain tables, derived from its evidence after a restore
// (evidence_restore rebuilds only the evidence tables, docs/replication.md):
// - ingest_inbox from ingest_inbox_records: each record as the inbox keeps it once decided (no
//   raw tenant id), at its own seq; a record not decided yet is decided by the worker from the
//   decision recorded with it;
// - ingest_outcomes, graph_nodes and graph_edges by replaying the worker's runs: each admission
//   receipt says what each record became, the recorded decision holds what a merge wrote, and the
//   run's visibility-repair receipt which of its edges stayed hidden and which came back;
// - event_outbox from event_outbox_log, each event at its own outbox seq;
// - projection_verification_runs from projection_verification_ledger.
// Each table is derived only when it is empty and its evidence is not, which only a restore
// produces (every write puts the row and its evidence in one transaction). Records, events and
// runs written before this evidence existed are not derivable (the docs say so).

import type { DatabaseSync } from 'node:sqlite';
import { statement } from '../kernel/index.ts';
import { INBOX_RECORDS_TABLE, OUTBOX_LOG_TABLE, PROJECTION_LEDGER_TABLE, RECEIPTS_TABLE } from './control-evidence.ts';
import type { InboxRecordPayload, OutboxEventPayload, ProjectionLedgerPayload, ReceiptPayload } from './control-evidence.ts';
import type { IngestDecision } from './ingest-record.ts';
import { mergeIntoGraph } from './graph-merge.ts';

export interface DerivedControlState {
  inbox: number;
  outcomes: number;
  events: number;
  projection_runs: number;
}

/** Derives what a restore left empty, in one transaction; counts what it wrote (all 0 on a database in use). */
export function deriveControlStateFromEvidence(sqlite: DatabaseSync): DerivedControlState {
  const derived: DerivedControlState = { inbox: 0, outcomes: 0, events: 0, projection_runs: 0 };
  const emptyBeside = (table: string, evidence: string) =>
    statement(sqlite, `SELECT 1 FROM ${table} LIMIT 1`).get() === undefined && statement(sqlite, `SELECT 1 FROM ${evidence} LIMIT 1`).get() !== undefined;
  const due = () => [emptyBeside('ingest_inbox', INBOX_RECORDS_TABLE.name), emptyBeside('event_outbox', OUTBOX_LOG_TABLE.name), emptyBeside('projection_verification_runs', PROJECTION_LEDGER_TABLE.name)];
  if (!due().some(Boolean)) return derived;
  // Several processes (API, worker, ingest) may open a restored file at once: decide under the lock.
  sqlite.exec('BEGIN IMMEDIATE');
  try {
    const [inbox, outbox, ledger] = due();
    if (inbox) {
      Object.assign(derived, deriveInboxAndGraph(sqlite));
      // The per-state counters readiness and status read (control-schema.ts migration 4) were filled
      // from the empty outcomes at migration: count the outcomes just derived, once.
      sqlite.exec('DELETE FROM ingest_outcome_counts; INSERT INTO ingest_outcome_counts (state, outcomes) SELECT state, count(*) FROM ingest_outcomes GROUP BY state;');
    }
    if (outbox) derived.events = deriveOutbox(sqlite);
    if (ledger) derived.projection_runs = deriveLedger(sqlite);
    sqlite.exec('COMMIT');
  } catch (error) {
    if (sqlite.isTransaction) sqlite.exec('ROLLBACK');
    throw error;
  }
  return derived;
}

function deriveInboxAndGraph(sqlite: DatabaseSync): { inbox: number; outcomes: number } {
  const insertInbox = sqlite.prepare('INSERT INTO ingest_inbox (seq, received_at, source, record, tenant_hash, record_id, content_sha256) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const decisions = new Map<number, IngestDecision>();
  const restored = new Set<number>();
  let inbox = 0;
  for (const row of sqlite.prepare(`SELECT inbox_seq, payload FROM ${INBOX_RECORDS_TABLE.name} ORDER BY seq`).iterate()) {
    const seq = Number(row['inbox_seq']);
    const p = JSON.parse(String(row['payload'])) as InboxRecordPayload;
    insertInbox.run(seq, p.received_at, p.source, p.record, p.tenant_hash, p.record_id, p.content_sha256);
    if (p.decision.state === 'MERGED') decisions.set(seq, p.decision);
    restored.add(seq);
    inbox++;
  }
  const outcome = sqlite.prepare('INSERT INTO ingest_outcomes (inbox_seq, record_id, state, reason, isolation_domain_ref, run_id) VALUES (?, ?, ?, ?, ?, ?)');
  const restore = sqlite.prepare('UPDATE graph_edges SET visible = 1 WHERE tenant_hash = ? AND isolation_domain_ref = ? AND edge_id = ?');
  const repairOf = sqlite.prepare(`SELECT payload FROM ${RECEIPTS_TABLE.name} WHERE run_id = ? AND kind = 'visibility_repair'`);
  let outcomes = 0;
  for (const row of sqlite.prepare(`SELECT run_id, payload FROM ${RECEIPTS_TABLE.name} WHERE kind = 'admission' ORDER BY seq`).iterate()) {
    const runId = String(row['run_id']);
    const admission = JSON.parse(String(row['payload'])) as ReceiptPayload;
    const repairRow = repairOf.get(runId);
    const repair = repairRow === undefined ? [] : (JSON.parse(String(repairRow['payload'])) as ReceiptPayload).items as unknown as RepairItem[];
    const hidden = new Set(repair.filter((i) => i.action === 'held_hidden').map(edgeKey));
    for (const item of admission.items as unknown as AdmissionItem[]) {
      // A record enqueued before ingest_inbox_records existed has no inbox row to hang its outcome on.
      if (!restored.has(item.inbox_seq)) continue;
      outcome.run(item.inbox_seq, item.record_id, item.state, item.state === 'MERGED' ? null : item.reason!, item.state === 'MERGED' ? item.isolation_domain_ref! : null, runId);
      outcomes++;
      if (item.state !== 'MERGED') continue;
      // The worker applied the decision recorded with the record, so a merged item finds its merge here.
      const decision = decisions.get(item.inbox_seq);
      if (decision?.state !== 'MERGED') continue;
      const m = decision.merge;
      mergeIntoGraph(sqlite, m, { inboxSeq: item.inbox_seq, visible: m.kind === 'edge' && !hidden.has(edgeKey({ tenant_hash: m.tenantHash, isolation_domain_ref: m.domain, edge_id: m.edgeId })) });
    }
    for (const item of repair) if (item.action === 'restored') restore.run(item.tenant_hash, item.isolation_domain_ref, item.edge_id);
  }
  return { inbox, outcomes };
}

interface AdmissionItem {
  inbox_seq: number;
  record_id: string | null;
  state: 'MERGED' | 'QUARANTINED';
  isolation_domain_ref?: string;
  reason?: string;
}

interface RepairItem {
  tenant_hash: string;
  isolation_domain_ref: string;
  edge_id: string;
  action: 'held_hidden' | 'restored';
}

function edgeKey(edge: { tenant_hash: string; isolation_domain_ref: string; edge_id: string }): string {
  return `${edge.tenant_hash}\u0000${edge.isolation_domain_ref}\u0000${edge.edge_id}`;
}

function deriveOutbox(sqlite: DatabaseSync): number {
  const insert = sqlite.prepare('INSERT INTO event_outbox (seq, event_id, channel, message, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)');
  let events = 0;
  for (const row of sqlite.prepare(`SELECT event_id, channel, payload FROM ${OUTBOX_LOG_TABLE.name} ORDER BY seq`).iterate()) {
    const p = JSON.parse(String(row['payload'])) as OutboxEventPayload;
    insert.run(p.outbox_seq, String(row['event_id']), String(row['channel']), p.message, JSON.stringify(p.payload), p.created_at);
    events++;
  }
  return events;
}

function deriveLedger(sqlite: DatabaseSync): number {
  const insert = sqlite.prepare('INSERT INTO projection_verification_runs (correlation_id, request_sha256, run_id, recorded_at) VALUES (?, ?, ?, ?)');
  let runs = 0;
  for (const row of sqlite.prepare(`SELECT correlation_id, payload FROM ${PROJECTION_LEDGER_TABLE.name} ORDER BY seq`).iterate()) {
    const p = JSON.parse(String(row['payload'])) as ProjectionLedgerPayload;
    insert.run(String(row['correlation_id']), p.request_sha256, p.run_id, p.recorded_at);
    runs++;
  }
  return runs;
}
