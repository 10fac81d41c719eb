// Appending to the outbox inside a write's own transaction: the state change and the event that
// announces it commit together or not at all (the transactional-outbox pattern).

import type { JsonValue, Transaction } from '../../kernel/index.ts';
import { outboxRecords } from '../database.ts';

export interface OutboxRecord {
  /** A publishing family of the events artifact (e.g. planning). */
  family: string;
  /** A catalog event name (e.g. planning.session_created). */
  event: string;
  occurred_at: string;
  payload: Record<string, unknown>;
  /** governance: emitted by the service's own write; outbox_api: recorded through POST /api/v1/events/outbox/{family}. */
  source: 'governance' | 'outbox_api';
  correlation_id: string | null;
}

export function appendOutbox(tx: Transaction, record: OutboxRecord): { seq: number; sha256: string } {
  // Only the chain fields are read back: appendChain() builds no row object.
  const { seq, sha256 } = tx.appendChain(outboxRecords, { family: record.family, event: record.event, payload: { ...record } as unknown as JsonValue });
  return { seq, sha256 };
}
