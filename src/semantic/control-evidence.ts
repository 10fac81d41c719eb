// The control database's evidence tables: the reconciliation worker's readback and receipts, and
// the three that mirror, in the transaction that writes them, the rows of the plain tables no
// other evidence derives (the ingest inbox, the event outbox, the projection-verification ledger),
// so that a restore from replicated evidence rebuilds them (derive-control-state.ts).

import { defineEvidenceTable } from '../kernel/index.ts';
import type { IngestDecision } from './ingest-record.ts';

/** One reconciliation run that did work: what it took, what it merged, where the cursor is. */
export interface ReadbackPayload {
  run_id: string;
  batch_limit: number;
  taken: number;
  merged: number;
  quarantined: number;
  edges_hidden: number;
  edges_restored: number;
  /** Highest inbox seq this run decided. */
  inbox_cursor: number;
  /** Inbox records still waiting after this run. */
  backlog_remaining: number;
  started_at: string;
  /** When the run's decisions were planned; they are committed right after. */
  decided_at: string;
}

export type ReceiptKind = 'admission' | 'visibility_repair';

export interface ReceiptPayload {
  run_id: string;
  kind: ReceiptKind;
  counts: Record<string, number>;
  items: Record<string, unknown>[];
}

export const READBACK_TABLE = defineEvidenceTable<{ run_id: 'text' }, ReadbackPayload>({
  name: 'projection_reconciliation_readback',
  columns: { run_id: 'text' },
});

export const RECEIPTS_TABLE = defineEvidenceTable<{ run_id: 'text'; kind: 'text' }, ReceiptPayload>({
  name: 'projection_reconciliation_receipts',
  columns: { run_id: 'text', kind: 'text' },
});

/** One record put into the ingest inbox, as the inbox keeps it once decided, with its admission decision (derive-control-state.ts). */
export interface InboxRecordPayload {
  received_at: string;
  source: string;
  /** The record's text with its raw tenant id replaced by the tenant hash (redactDecidedRecord). */
  record: string;
  tenant_hash: string | null;
  record_id: string | null;
  content_sha256: string;
  /** decideIngestRecord() of the record as given, made when it entered the inbox; the worker applies it. */
  decision: IngestDecision;
}

export const INBOX_RECORDS_TABLE = defineEvidenceTable<{ inbox_seq: 'integer' }, InboxRecordPayload>({
  name: 'ingest_inbox_records',
  columns: { inbox_seq: 'integer' },
});

/** One event written to the outbox, with its outbox seq, so the outbox is derivable in its order. */
export interface OutboxEventPayload {
  outbox_seq: number;
  message: string;
  payload: Record<string, unknown>;
  created_at: string;
}

export const OUTBOX_LOG_TABLE = defineEvidenceTable<{ event_id: 'text'; channel: 'text' }, OutboxEventPayload>({
  name: 'event_outbox_log',
  columns: { event_id: 'text', channel: 'text' },
});

/** One projection-verification run recorded under its correlation id. */
export interface ProjectionLedgerPayload {
  request_sha256: string;
  run_id: string;
  recorded_at: string;
}

export const PROJECTION_LEDGER_TABLE = defineEvidenceTable<{ correlation_id: 'text' }, ProjectionLedgerPayload>({
  name: 'projection_verification_ledger',
  columns: { correlation_id: 'text' },
});

/** Every evidence table of the control database. */
export const CONTROL_EVIDENCE_TABLES = [READBACK_TABLE, RECEIPTS_TABLE, INBOX_RECORDS_TABLE, OUTBOX_LOG_TABLE, PROJECTION_LEDGER_TABLE] as const;
