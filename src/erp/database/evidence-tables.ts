// The ERP database's evidence tables: the seed's five persisted record types (Integration Event,
// Dispatch Job, Approval Packet, Dead Letter, Agent Notification) and one chain for every change
// of a business document. All are append-only and hash-chained by the kernel; verify_evidence_chain
// checks them offline.

import { defineEvidenceTable } from '../../kernel/index.ts';

/**
 * One accepted webhook delivery (or a later state of it), the whole Integration Event as payload.
 * Only what is looked up is a column, and only what a read looks up is indexed (every index is
 * paid for on every append): `event_key` by the redelivery check, `source` by
 * health.integration_status (the last intake of each source). A name is found through erp_current
 * (its newest row's seq), so `name` has no index of its own.
 */
export const INTEGRATION_EVENTS = defineEvidenceTable({
  name: 'integration_events',
  columns: { name: 'text', source: 'text', event_key: 'text' },
  indexed: ['source', 'event_key'],
});

/** A Dispatch Job and each later state of it (callback receipts, deliveries), the whole job as payload. */
export const DISPATCH_JOBS = defineEvidenceTable({ name: 'dispatch_jobs', columns: { name: 'text', dispatch_key: 'text' } });
/** An Approval Packet and each later state of it, the whole packet as payload; target_key is doctype/name. */
export const APPROVAL_PACKETS = defineEvidenceTable({ name: 'approval_packets', columns: { name: 'text', target_key: 'text' } });
export const DEAD_LETTERS = defineEvidenceTable({ name: 'dead_letters', columns: { name: 'text', source: 'text' } });
export const AGENT_NOTIFICATIONS = defineEvidenceTable({ name: 'agent_notifications', columns: { name: 'text', kind: 'text' } });

/**
 * Every insert or update of a business document (Lead, Supplier Intake, ...): {action, doc} with
 * the whole document after the change. Read only by seq (erp_documents.event_seq points at a
 * document's newest row; a restore replays the chain in seq order), so neither column is indexed.
 */
export const DOCUMENT_EVENTS = defineEvidenceTable({
  name: 'document_events',
  columns: { doctype: 'text', name: 'text' },
  indexed: [],
});

/** The seed's five record types, by DocType, in the order integration_status lists them. */
export const RECORD_TYPE_TABLES = {
  'Integration Event': INTEGRATION_EVENTS,
  'Dispatch Job': DISPATCH_JOBS,
  'Approval Packet': APPROVAL_PACKETS,
  'Dead Letter': DEAD_LETTERS,
  'Agent Notification': AGENT_NOTIFICATIONS,
} as const;

export const ERP_EVIDENCE_TABLES = [...Object.values(RECORD_TYPE_TABLES), DOCUMENT_EVENTS];
