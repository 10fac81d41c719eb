// The messaging database, $AIRLOCK_DATA_DIR/messaging.sqlite: the embedded bus's messages, what
// the mailbox adapter published (the evidence the owner-readback service reads back), and the
// lane observers' polls and restart recoveries (append-only and hash-chained), and the observers'
// leases (one active observer per gateway target across processes).

import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { defineEvidenceTable, openDatabase } from '../kernel/index.ts';
import type { Migration, Store } from '../kernel/index.ts';

export const DATABASE_FILE = 'messaging.sqlite';

export interface BusMessagePayload {
  headers: Record<string, string>;
  /** The message bytes, base64. */
  body: string;
}

/** The embedded bus: one row per message it holds; `msg_id` is '' when the publisher gave none. */
export const BUS_MESSAGES = defineEvidenceTable<{ subject: 'text'; msg_id: 'text' }, BusMessagePayload>({
  name: 'bus_messages',
  columns: { subject: 'text', msg_id: 'text' },
});

export interface PublicationPayload {
  subject: string;
  bus: string;
  bytes: number;
  sha256: string;
  content_type: string;
  request_id: string;
  /** Set on a retry with a Nats-Msg-Id already recorded for this mailbox: the seq of the first row. */
  repeat_of_seq?: number;
}

/** What the mailbox adapter handed to the bus, after the bus confirmed it. */
export const MAILBOX_PUBLICATIONS = defineEvidenceTable<{ mailbox: 'text'; msg_id: 'text' }, PublicationPayload>({
  name: 'mailbox_publications',
  columns: { mailbox: 'text', msg_id: 'text' },
});

/** Lane observer polls and restart-recovery attempts of the messaging API. */
export const LANE_EVENTS = defineEvidenceTable<{ target: 'text'; kind: 'text' }>({
  name: 'lane_events',
  columns: { target: 'text', kind: 'text' },
});

/** The schema besides the evidence tables: the lane observers' leases (observer-lease.ts). */
export const MIGRATIONS: readonly Migration[] = [
  { name: 'observer_leases', up: 'CREATE TABLE observer_leases (target TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at INTEGER NOT NULL) STRICT' },
];

export const EVIDENCE_TABLES = [BUS_MESSAGES, MAILBOX_PUBLICATIONS, LANE_EVENTS] as const;

export function databasePath(dataDir: string): string {
  return join(dataDir, DATABASE_FILE);
}

/** Opens (creating it, and its directory) the messaging database with every evidence table. */
export function openMessagingDatabase(path: string, options: { now?: () => Date } = {}): Store {
  // A first start with the defaults (./var) must not fail for want of a directory.
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  return openDatabase(path, { migrations: MIGRATIONS, evidenceTables: EVIDENCE_TABLES, ...(options.now && { now: options.now }) });
}
