// Putting records into the ingest inbox, for operators (semantic-ingest) and tests. The inbox
// takes any JSON object: admission (isolation domain, shape) is the worker's decision, so a bad
// record is QUARANTINED with its reason rather than refused unseen.

import type { DatabaseSync } from 'node:sqlite';
import { statement } from '../kernel/index.ts';
import type { Store } from '../kernel/index.ts';
import { isObject } from './_json.ts';
import { digestOf, sha256Hex } from './digest.ts';
import { decideIngestRecord, findUnfaithfulValue } from './ingest-record.ts';
import type { IngestDecision } from './ingest-record.ts';
import { INBOX_RECORDS_TABLE } from './control-evidence.ts';
import type { InboxRecordPayload } from './control-evidence.ts';
import { recordTenantHash } from './tenant-hash.ts';

/** Longest record line the inbox accepts. */
export const MAX_RECORD_BYTES = 64 * 1024;

export interface ParsedLines {
  records: string[];
  /** Line problems, 1-based; when any exist, nothing should be enqueued. */
  reasons: string[];
}

/** Parses JSONL text: one JSON object per non-blank line, each at most MAX_RECORD_BYTES. */
export function parseJsonLines(text: string): ParsedLines {
  const records: string[] = [];
  const reasons: string[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === '') return;
    const where = `line ${index + 1}`;
    if (Buffer.byteLength(line) > MAX_RECORD_BYTES) {
      reasons.push(`${where}: record is larger than ${MAX_RECORD_BYTES} bytes`);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      reasons.push(`${where}: not JSON: ${(error as Error).message}`);
      return;
    }
    const unfaithful = isObject(value) ? findUnfaithfulValue(value, '') : undefined;
    if (!isObject(value)) reasons.push(`${where}: not a JSON object`);
    else if (unfaithful !== undefined) reasons.push(`${where}: value at "${unfaithful}" cannot be stored as given (ill-formed Unicode, or a number outside the exact range)`);
    else records.push(JSON.stringify(value));
  });
  return { records, reasons };
}

/** A record's identity in the inbox: its tenant (as a hash), its record_id (when it has one) and the digest of its content. */
export interface InboxIdentity {
  /** record_id is scoped by tenant: the same id under two tenants names two records. */
  tenantHash: string | null;
  recordId: string | null;
  contentSha256: string;
}

/** The identity of a record's text: canonical JSON, so key order and spacing do not matter. */
export function inboxIdentity(text: string): InboxIdentity {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { tenantHash: null, recordId: null, contentSha256: sha256Hex(text) };
  }
  const recordId = isObject(value) && typeof value['record_id'] === 'string' ? value['record_id'].slice(0, 128) : null;
  const tenant = isObject(value) ? recordTenantHash(value['tenant_id']) : null;
  try {
    return { tenantHash: tenant, recordId, contentSha256: digestOf(value) };
  } catch {
    // canonicalJson refuses what it cannot write faithfully; the text itself still identifies it.
    return { tenantHash: tenant, recordId, contentSha256: sha256Hex(text) };
  }
}

export interface EnqueueResult {
  /** Inbox seqs of the records put in, in order. */
  seqs: number[];
  /** Records already in the inbox with the same record_id and content (or, without a record_id, the same content): not put in again. */
  duplicates: number;
}

/**
 * Appends records to the inbox in one transaction. A record whose record_id (or, without one,
 * whose content) is already in the inbox for the same tenant with the same content is a no-op;
 * the same tenant and record_id with other content goes in, and the worker quarantines it as a
 * conflict. Another tenant's record with the same record_id is another record.
 *
 * @example
 * const { seqs, duplicates } = await putRecords(store, ['{"record_id":"r1", ...}'], { source: 'ops.jsonl' });
 */
export function putRecords(store: Store, records: readonly string[], options: { source: string }): Promise<EnqueueResult> {
  const receivedAt = store.now().toISOString();
  return store.write((sqlite, tx) => {
    const insert = sqlite.prepare('INSERT INTO ingest_inbox (received_at, source, record, tenant_hash, record_id, content_sha256) VALUES (?, ?, ?, ?, ?, ?)');
    const known = sqlite.prepare('SELECT 1 FROM ingest_inbox WHERE tenant_hash IS ? AND record_id IS ? AND content_sha256 = ? LIMIT 1');
    const seqs: number[] = [];
    let duplicates = 0;
    for (const record of records) {
      const identity = inboxIdentity(record);
      if (known.get(identity.tenantHash, identity.recordId, identity.contentSha256) !== undefined) {
        duplicates++;
        continue;
      }
      const seq = Number(insert.run(receivedAt, options.source, record, identity.tenantHash, identity.recordId, identity.contentSha256).lastInsertRowid);
      // The evidence keeps no raw tenant id: the decision is made now, from the record as given,
      // so the worker and a restore both apply the same one (recordedDecisions).
      tx.append(INBOX_RECORDS_TABLE, {
        inbox_seq: seq,
        payload: {
          received_at: receivedAt,
          source: options.source,
          record: redactDecidedRecord(record),
          tenant_hash: identity.tenantHash,
          record_id: identity.recordId,
          content_sha256: identity.contentSha256,
          decision: decideIngestRecord(record),
        },
      });
      seqs.push(seq);
    }
    return { seqs, duplicates };
  });
}

/**
 * Appends records to the inbox (see putRecords); resolves with the inbox seqs of those put in.
 *
 * @example
 * await enqueueRecords(store, ['{"record_id":"r1", ...}'], { source: 'ops.jsonl' });
 */
export async function enqueueRecords(store: Store, records: readonly string[], options: { source: string }): Promise<number[]> {
  return (await putRecords(store, records, options)).seqs;
}

/**
 * The admission decisions recorded when the records of inbox seqs `from` to `to` entered the
 * inbox, by seq. A record enqueued before decisions were recorded has none: decide it from its text.
 */
export function recordedDecisions(sqlite: DatabaseSync, range: { from: number; to: number }): Map<number, IngestDecision> {
  const decisions = new Map<number, IngestDecision>();
  const rows = statement(sqlite, `SELECT inbox_seq, payload FROM ${INBOX_RECORDS_TABLE.name} WHERE inbox_seq BETWEEN ? AND ?`).all(range.from, range.to);
  for (const row of rows) decisions.set(Number(row['inbox_seq']), (JSON.parse(String(row['payload'])) as InboxRecordPayload).decision);
  return decisions;
}

/** The record as the inbox keeps it once decided: the raw tenant id replaced by its tenant hash. */
export function redactDecidedRecord(text: string): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return JSON.stringify({ redacted: 'record was not JSON; its text is not kept after the decision' });
  }
  if (!isObject(value)) return JSON.stringify({ redacted: 'record was not a JSON object; its text is not kept after the decision' });
  if (!('tenant_id' in value)) return text;
  const { tenant_id: tenantId, ...rest } = value;
  const hash = recordTenantHash(tenantId);
  return JSON.stringify(hash === null ? rest : { ...rest, tenant_hash: hash });
}
