// One evidence row as it travels to the JetStream stream: subject `airlock.evidence.<service>.<table>`,
// `Nats-Msg-Id` `<service>:<table>:<seq>` (a re-send after a crash is stored once), and a JSON body
// carrying the row exactly as stored: seq, recorded_at, the declared columns, the payload's stored
// canonical text, sha256 and prev_sha256. Whoever reads the stream recomputes the hash from these
// alone (row-hash.ts), so a replicated row verifies without the service's code.

import type { SQLOutputValue } from 'node:sqlite';
import { canonicalJson } from '../store/canonical-json.ts';
import { rowHashOfTexts } from '../store/row-hash.ts';

export const EVIDENCE_SUBJECT_PREFIX = 'airlock.evidence';
export const DEFAULT_EVIDENCE_STREAM = 'AIRLOCK_EVIDENCE';
const TOKEN = /^[a-z][a-z0-9_-]{0,62}$/;

/** A row as stored: chain columns, declared columns, and the payload's stored text. */
export interface StoredEvidenceRow {
  seq: number;
  recorded_at: string;
  columns: Record<string, string | number>;
  /** The payload's canonical JSON text, byte for byte as stored. */
  payload: string;
  sha256: string;
  prev_sha256: string;
}

/** The subject of `table`'s rows of `service`. Throws a TypeError for a name that is not one subject token. */
export function evidenceSubject(service: string, table: string): string {
  for (const [what, name] of [['service', service], ['table', table]] as const) {
    if (!TOKEN.test(name)) throw new TypeError(`Invalid ${what} name "${name}" for an evidence subject: use ${TOKEN}`);
  }
  return `${EVIDENCE_SUBJECT_PREFIX}.${service}.${table}`;
}

export function evidenceMsgId(service: string, table: string, seq: number): string {
  return `${service}:${table}:${seq}`;
}

/** A row read with SELECT * from an evidence table, as a StoredEvidenceRow. */
export function storedRowOf(row: Record<string, SQLOutputValue>, declared: readonly string[]): StoredEvidenceRow {
  const columns: Record<string, string | number> = {};
  for (const name of declared) columns[name] = typeof row[name] === 'bigint' ? Number(row[name]) : (row[name] as string | number);
  return {
    seq: Number(row['seq']),
    recorded_at: String(row['recorded_at']),
    columns,
    payload: String(row['payload']),
    sha256: String(row['sha256']),
    prev_sha256: String(row['prev_sha256']),
  };
}

export function encodeEvidenceRow(row: StoredEvidenceRow): Buffer {
  return Buffer.from(JSON.stringify(row));
}

/**
 * Whether two rows are the same row in every field. The sha256 alone is what a row claims, not
 * what it is: a copy that keeps a row's hashes and changes its payload must count as another row.
 */
export function sameEvidenceRow(a: StoredEvidenceRow, b: StoredEvidenceRow): boolean {
  const columns = (row: StoredEvidenceRow) => JSON.stringify(Object.entries(row.columns).sort(([x], [y]) => (x < y ? -1 : 1)));
  return a.seq === b.seq && a.recorded_at === b.recorded_at && a.payload === b.payload && a.sha256 === b.sha256 && a.prev_sha256 === b.prev_sha256 && columns(a) === columns(b);
}

/** Parses a message body; throws a TypeError saying what is wrong with it. */
export function decodeEvidenceRow(data: Uint8Array): StoredEvidenceRow {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(data).toString('utf8'));
  } catch (error) {
    throw new TypeError(`Evidence message is not JSON: ${(error as Error).message}`);
  }
  const row = value as Partial<StoredEvidenceRow>;
  if (typeof row !== 'object' || row === null) throw new TypeError('Evidence message is not a JSON object');
  if (!Number.isSafeInteger(row.seq) || (row.seq as number) < 1) throw new TypeError('Evidence message has no positive integer "seq"');
  for (const field of ['recorded_at', 'payload', 'sha256', 'prev_sha256'] as const) {
    if (typeof row[field] !== 'string') throw new TypeError(`Evidence message seq ${row.seq} has no string "${field}"`);
  }
  if (typeof row.columns !== 'object' || row.columns === null || Array.isArray(row.columns)) throw new TypeError(`Evidence message seq ${row.seq} has no "columns" object`);
  for (const [name, column] of Object.entries(row.columns)) {
    if (typeof column !== 'string' && !Number.isSafeInteger(column)) throw new TypeError(`Evidence message seq ${row.seq}: column "${name}" is neither text nor a safe integer`);
  }
  return row as StoredEvidenceRow;
}

/** The hash the row's fields give (row-hash.ts), to compare with its sha256. Throws when the payload text is not JSON. */
export function recomputeRowHash(row: StoredEvidenceRow): string {
  const texts: Record<string, string> = {};
  for (const [name, value] of Object.entries(row.columns)) texts[name] = canonicalJson(value);
  return rowHashOfTexts({
    ...texts,
    seq: String(row.seq),
    recorded_at: JSON.stringify(row.recorded_at),
    prev_sha256: JSON.stringify(row.prev_sha256),
    payload: row.payload,
  });
}

/** Why `row` cannot be the stored form of its payload (a payload text that is not canonical JSON), or undefined. */
export function nonCanonicalPayload(row: StoredEvidenceRow): string | undefined {
  try {
    return canonicalJson(JSON.parse(row.payload)) === row.payload ? undefined : 'payload text is not canonical JSON';
  } catch (error) {
    return `payload text is not JSON: ${(error as Error).message}`;
  }
}
