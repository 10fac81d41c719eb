// Putting records into the ingest inbox, for operators (semantic-ingest) and tests. The inbox
// takes any JSON object: admission (isolation domain, shape) is the worker's decision, so a bad
// record is QUARANTINED with its reason rather than refused unseen.

import type { Store } from '../kernel/index.ts';
import { isObject } from './_json.ts';
import { findUnfaithfulValue } from './ingest-record.ts';

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

/**
 * Appends records to the inbox in one transaction; resolves with their inbox seqs.
 *
 * @example
 * await enqueueRecords(store, ['{"record_id":"r1", ...}'], { source: 'ops.jsonl' });
 */
export function enqueueRecords(store: Store, records: readonly string[], options: { source: string }): Promise<number[]> {
  const receivedAt = store.now().toISOString();
  return store.write((sqlite) => {
    const insert = sqlite.prepare('INSERT INTO ingest_inbox (received_at, source, record) VALUES (?, ?, ?)');
    return records.map((record) => Number(insert.run(receivedAt, options.source, record).lastInsertRowid));
  });
}
