// Offline verification of evidence hash chains (definition in row-hash.ts). It reads the table
// list and columns from the registry, so it needs no service code, and stops at the first row
// that breaks the chain. A chain cannot show rows cut from its end: anchor the head elsewhere
// (a receipt, a log line) when that matters.

import type { DatabaseSync, SQLOutputValue } from 'node:sqlite';
import { canonicalJson } from './canonical-json.ts';
import { listEvidenceTables } from './evidence-table.ts';
import type { RegisteredTable } from './evidence-table.ts';
import { GENESIS_SHA256, rowHash } from './row-hash.ts';
import type { HashedFields } from './row-hash.ts';

export type ChainVerification =
  | { ok: true; table: string; rows: number; head: string }
  | { ok: false; table: string; seq: number | null; reason: string };

/**
 * Checks every row of one registered table in seq order.
 *
 * @example
 * const result = verifyChain(sqlite, { name: 'receipts', columns: { subject: 'text' } });
 * if (!result.ok) console.error(`${result.table} seq ${result.seq}: ${result.reason}`);
 */
export function verifyChain(sqlite: DatabaseSync, table: RegisteredTable): ChainVerification {
  const exists = sqlite.prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?`).get(table.name);
  if (exists === undefined) return { ok: false, table: table.name, seq: null, reason: 'table is registered but missing' };
  const columns = Object.keys(table.columns);
  const select = sqlite.prepare(
    `SELECT seq, recorded_at, ${columns.map((column) => `${column}, `).join('')}payload, sha256, prev_sha256 FROM ${table.name} ORDER BY seq`,
  );
  // Integers as BigInt, so an out-of-range value planted in the file is a finding, not a crash.
  select.setReadBigInts(true);
  let expectedSeq = 1;
  let prev = GENESIS_SHA256;
  for (const row of select.iterate()) {
    const seq = toNumber(row['seq']);
    const fail = (reason: string): ChainVerification => ({ ok: false, table: table.name, seq, reason });
    if (seq !== expectedSeq) return fail(`expected seq ${expectedSeq}: rows are missing or out of order`);
    if (row['prev_sha256'] !== prev) return fail(`prev_sha256 does not match the sha256 of seq ${seq - 1}`);
    const payload = parseCanonical(row['payload']);
    if (payload === undefined) return fail('payload is not canonical JSON');
    const fields: Record<string, unknown> = { seq, recorded_at: row['recorded_at'], prev_sha256: prev, payload };
    for (const column of columns) {
      const value = row[column];
      fields[column] = typeof value === 'bigint' ? toNumber(value) : value;
      if (Number.isNaN(fields[column])) return fail(`column "${column}" holds an integer out of range`);
    }
    if (rowHash(fields as HashedFields) !== row['sha256']) {
      return fail("sha256 does not match the row's canonical JSON");
    }
    prev = String(row['sha256']);
    expectedSeq++;
  }
  return { ok: true, table: table.name, rows: expectedSeq - 1, head: prev };
}

/** verifyChain() for every table in the registry. */
export function verifyAllChains(sqlite: DatabaseSync): ChainVerification[] {
  return listEvidenceTables(sqlite).map((table) => verifyChain(sqlite, table));
}

/** A safe integer as a number; NaN for anything else. */
function toNumber(value: SQLOutputValue | undefined): number {
  return typeof value === 'bigint' && value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER)
    ? Number(value)
    : Number.NaN;
}

/** The parsed payload when its stored text is exactly its canonical JSON; undefined otherwise. */
function parseCanonical(text: SQLOutputValue | undefined): unknown {
  if (typeof text !== 'string') return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return canonicalJson(value) === text ? value : undefined;
  } catch (error) {
    // Not JSON (SyntaxError), or JSON that JCS refuses, such as an escaped lone surrogate (TypeError).
    if (error instanceof SyntaxError || error instanceof TypeError) return undefined;
    throw error;
  }
}
