// One seq range of a hash chain, checked fast: each row's own hash and the links inside the
// range. The hashes of rows are independent (a row stores its predecessor's hash), so ranges can
// be checked on several threads at once and only their ends joined in order (verify-chain.ts).
//
// The function runs in worker threads from its own source text, so it stands alone: it reaches
// node:crypto through process.getBuiltinModule and repeats the row-hash definition of
// row-hash.ts for rows whose stored payload is already canonical. That repetition is what makes
// it fast: it hashes the stored payload text itself instead of serializing the parsed payload
// again. A payload whose canonical form it cannot confirm cheaply (JSON.stringify of the parsed
// value differs from the text, object keys out of order, an escaped surrogate) is not judged here:
// the range reports it as doubtful and the caller runs the exact check of canonical-json.ts.

import type { DatabaseSync } from 'node:sqlite';

/** What a checked range reports. Seq values are safe integers. */
export interface ChunkReport {
  /** Rows read. */
  rows: number;
  /** seq and prev_sha256 of the first row; null when the range is empty. */
  first: { seq: number; prev: string } | null;
  /** seq and sha256 of the last row read. */
  last: { seq: number; sha256: string } | null;
  /** Rows the fast check could not confirm, in seq order, before any failure. */
  doubtful: number[];
  /** The first row that certainly breaks the chain, and why. */
  failure: { seq: number | null; reason: string } | null;
}

/** The range to check: seq from `bounds[0]` up to but not including `bounds[1]`; the whole table without bounds. */
export interface ChunkRange {
  table: string;
  columns: string[];
  bounds?: [number, number];
}

export function verifyChunk(sqlite: DatabaseSync, range: ChunkRange): ChunkReport {
  const { hash } = process.getBuiltinModule('node:crypto');
  const report: ChunkReport = { rows: 0, first: null, last: null, doubtful: [], failure: null };
  const columns = range.columns;
  // Member order of the hashed object: its keys sorted by UTF-16 code units (RFC 8785).
  const members = ['seq', 'recorded_at', 'prev_sha256', 'payload', ...columns].sort();
  const select = sqlite.prepare(
    `SELECT seq, recorded_at, ${columns.map((column) => `${column}, `).join('')}payload, sha256, prev_sha256 FROM ${range.table}${range.bounds ? ' WHERE seq >= ? AND seq < ?' : ''} ORDER BY seq`,
  );
  select.setReadBigInts(true);
  select.setReturnArrays(true);
  const payloadAt = 2 + columns.length;
  const maxSafe = BigInt(Number.MAX_SAFE_INTEGER);
  const minSafe = BigInt(Number.MIN_SAFE_INTEGER);
  const safe = (value: unknown): number => (typeof value === 'bigint' && value <= maxSafe && value >= minSafe ? Number(value) : Number.NaN);
  const keysInOrder = (value: unknown): boolean => {
    if (typeof value !== 'object' || value === null) return true;
    if (Array.isArray(value)) return value.every(keysInOrder);
    let previous: string | undefined;
    for (const key of Object.keys(value)) {
      if (previous !== undefined && !(previous < key)) return false;
      if (!keysInOrder((value as Record<string, unknown>)[key])) return false;
      previous = key;
    }
    return true;
  };
  // The first row's seq and link are the caller's to check against the range before it.
  let expectedSeq = Number.NaN;
  let prev: string | undefined;
  for (const row of select.iterate(...(range.bounds ?? [])) as Iterable<unknown> as Iterable<unknown[]>) {
    const seq = safe(row[0]);
    const fail = (reason: string): ChunkReport => ({ ...report, failure: { seq: Number.isNaN(seq) ? null : seq, reason } });
    const prevText = row[payloadAt + 2];
    const sha256 = row[payloadAt + 1];
    if (prev === undefined) {
      report.first = { seq, prev: String(prevText) };
      // A seq out of the safe range cannot be the one the caller expects: it reports it.
      if (Number.isNaN(seq)) return report;
    } else if (seq !== expectedSeq) return fail(`expected seq ${expectedSeq}: rows are missing or out of order`);
    else if (prevText !== prev) return fail(`prev_sha256 does not match the sha256 of seq ${seq - 1}`);
    expectedSeq = seq;
    report.rows++;
    report.last = { seq, sha256: String(sha256) };
    prev = String(sha256);
    expectedSeq++;
    const payload = row[payloadAt];
    let parsed: unknown;
    try {
      parsed = typeof payload === 'string' ? JSON.parse(payload) : undefined;
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
      return fail('payload is not canonical JSON');
    }
    if (typeof payload !== 'string') return fail('payload is not canonical JSON');
    if (payload.includes('\\ud') || JSON.stringify(parsed) !== payload || !keysInOrder(parsed)) {
      report.doubtful.push(seq);
      continue;
    }
    const texts: Record<string, string> = { seq: String(seq), recorded_at: JSON.stringify(row[1]), prev_sha256: JSON.stringify(prevText), payload };
    for (let i = 0; i < columns.length; i++) {
      const value = row[2 + i];
      if (typeof value === 'bigint') {
        const number = safe(value);
        if (Number.isNaN(number)) return fail(`column "${columns[i]}" holds an integer out of range`);
        texts[columns[i]!] = String(number);
      } else texts[columns[i]!] = JSON.stringify(value);
    }
    let text = '{';
    for (const member of members) text += `${text.length === 1 ? '' : ','}${JSON.stringify(member)}:${texts[member]}`;
    if (hash('sha256', `${text}}`, 'hex') !== sha256) return fail("sha256 does not match the row's canonical JSON");
  }
  return report;
}
