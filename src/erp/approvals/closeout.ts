// Terminal closeout of Approval Packets: a packet in decision_received closes only when the
// owner's readback of ERP business truth confirms the target document, i.e. the target exists and
// is the version the approval was requested for (its `modified` is unchanged). Otherwise the
// packet stays decision_received, fail-closed, and says why. Run by the dispatch worker's tick.

import type { DatabaseSync } from 'node:sqlite';
import { statement } from '../../kernel/index.ts';
import type { Transaction } from '../../kernel/index.ts';
import { getDocument, updateDocument } from '../database/documents.ts';
import type { ErpDocument } from '../database/documents.ts';
import { nextState } from './transitions.ts';

/** Packets in decision_received and not blocked, from the partial due index of erp_current (never a scan of packet history). */
export const AWAITING_CLOSEOUT_SQL = `SELECT t.payload FROM erp_current AS c JOIN approval_packets AS t ON t.seq = c.seq
  WHERE c.doctype = 'Approval Packet' AND c.due_at <= 0 ORDER BY c.due_at LIMIT 500`;

export function packetsAwaitingCloseout(sqlite: DatabaseSync): ErpDocument[] {
  return statement(sqlite, AWAITING_CLOSEOUT_SQL)
    .all()
    .map((row) => JSON.parse(String(row['payload'])) as ErpDocument);
}

/** Reads the target back and closes the packet, or records why it cannot close. */
export function closeOut(sqlite: DatabaseSync, tx: Transaction, packet: ErpDocument, at: Date): void {
  const target = getDocument(sqlite, String(packet['target_doctype']), String(packet['target_name']));
  const readback = target ? { doctype: target.doctype, name: target.name, docstatus: target.docstatus, modified: target.modified } : null;
  if (target && target.modified === packet['target_modified']) {
    updateDocument(sqlite, tx, packet, { status: nextState(packet.name, 'decision_received', 'owner_readback_confirmed'), owner_readback: readback, closed_at: at.toISOString() }, at);
  } else {
    const reason = target ? 'target changed after the approval was requested: owner follow-through required' : 'target document not found on owner readback';
    updateDocument(sqlite, tx, packet, { owner_readback: readback, closeout_blocked: reason }, at);
  }
}
