// The messaging database, $AIRLOCK_DATA_DIR/messaging.sqlite: the embedded bus's messages, what
// the mailbox adapter published (the evidence the owner-readback service reads back), and the
// lane observers' polls and restart recoveries (append-only and hash-chained), and the observers'
// leases (one active observer per gateway target across processes).

import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { defineEvidenceTable, ensureTrigger, openDatabase } from '../kernel/index.ts';
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
  const store = openDatabase(path, { migrations: MIGRATIONS, evidenceTables: EVIDENCE_TABLES, ...(options.now && { now: options.now }) });
  ensurePublicationCounts(store.sqlite);
  return store;
}

/** Publications per mailbox, kept by a trigger on every insert: the owner readback's `total` without counting (issue 24). */
export const PUBLICATION_COUNTS_TABLE = 'mailbox_publication_counts';

/**
 * Creates the per-mailbox publication counter and the trigger that keeps it, counting what is
 * already stored once (idempotent; processes sharing the database race safely on the write lock).
 * A trigger rather than the publisher's own update, so every insert counts, a restored row too.
 */
export function ensurePublicationCounts(sqlite: DatabaseSync): void {
  ensureTrigger(
    sqlite,
    'mailbox_publications_count',
    `CREATE TABLE IF NOT EXISTS ${PUBLICATION_COUNTS_TABLE} (mailbox TEXT PRIMARY KEY, publications INTEGER NOT NULL) STRICT;
        DELETE FROM ${PUBLICATION_COUNTS_TABLE};
        INSERT INTO ${PUBLICATION_COUNTS_TABLE} (mailbox, publications) SELECT mailbox, count(*) FROM mailbox_publications GROUP BY mailbox;
        CREATE TRIGGER mailbox_publications_count AFTER INSERT ON mailbox_publications BEGIN
          INSERT INTO ${PUBLICATION_COUNTS_TABLE} (mailbox, publications) VALUES (NEW.mailbox, 1)
            ON CONFLICT (mailbox) DO UPDATE SET publications = publications + 1;
        END;`,
  );
}
