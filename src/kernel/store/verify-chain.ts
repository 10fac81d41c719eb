// Offline verification of evidence hash chains (definition in row-hash.ts). It reads the table
// list and columns from the registry, so it needs no service code, and stops at the first row
// that breaks the chain. A chain cannot show rows cut from its end: anchor the head elsewhere
// (a receipt, a log line) when that matters.
//
// The rows' hashes are independent (each row stores its predecessor's hash); only the links are
// sequential. So the table is cut into seq ranges that are checked on their own (in worker
// threads with verifyChainParallel), and the ranges are joined here in order: each range must
// start at the seq after the previous range's last row and link to its hash. Rows whose stored
// payload the fast check cannot confirm as canonical get the exact check of canonical-json.ts.
// Either way the answer, and the first broken row it names, are those of a walk in seq order.

import type { DatabaseSync, SQLOutputValue } from 'node:sqlite';
import { Worker } from 'node:worker_threads';
import { canonicalJson } from './canonical-json.ts';
import { listEvidenceTables } from './evidence-table.ts';
import type { RegisteredTable } from './evidence-table.ts';
import { GENESIS_SHA256, rowHash } from './row-hash.ts';
import type { HashedFields } from './row-hash.ts';
import { verifyChunk } from './_verify-chunk.ts';
import type { ChunkRange, ChunkReport } from './_verify-chunk.ts';

export type ChainVerification =
  | { ok: true; table: string; rows: number; head: string }
  | { ok: false; table: string; seq: number | null; reason: string };

/** Below this many rows a table is checked on the calling thread: starting threads would cost more. */
const PARALLEL_FROM_ROWS = 20_000;

/**
 * Checks every row of one registered table in seq order, on the calling thread.
 *
 * @example
 * const result = verifyChain(sqlite, { name: 'receipts', columns: { subject: 'text' } });
 * if (!result.ok) console.error(`${result.table} seq ${result.seq}: ${result.reason}`);
 */
export function verifyChain(sqlite: DatabaseSync, table: RegisteredTable): ChainVerification {
  if (!exists(sqlite, table)) return { ok: false, table: table.name, seq: null, reason: 'table is registered but missing' };
  const report = verifyChunk(sqlite, { table: table.name, columns: Object.keys(table.columns) });
  return joinReports(sqlite, table, [report]);
}

/**
 * verifyChain() with the rows hashed on `threads` worker threads, each reading a seq range of
 * the database at `path` on its own read-only connection. Same answer as verifyChain().
 */
export async function verifyChainParallel(
  sqlite: DatabaseSync,
  table: RegisteredTable,
  options: { path: string; threads: number; parallelFromRows?: number },
): Promise<ChainVerification> {
  if (!exists(sqlite, table)) return { ok: false, table: table.name, seq: null, reason: 'table is registered but missing' };
  const columns = Object.keys(table.columns);
  const ranges = splitRanges(sqlite, table.name, { parts: options.threads, fromRows: options.parallelFromRows ?? PARALLEL_FROM_ROWS }).map((bounds): ChunkRange => ({ table: table.name, columns, ...(bounds && { bounds }) }));
  const reports = ranges.length === 1
    ? [verifyChunk(sqlite, ranges[0]!)]
    : await Promise.all(ranges.map((range) => chunkOnThread(options.path, range)));
  return joinReports(sqlite, table, reports);
}

/** verifyChain() for every table in the registry. */
export function verifyAllChains(sqlite: DatabaseSync): ChainVerification[] {
  return listEvidenceTables(sqlite).map((table) => verifyChain(sqlite, table));
}

/** Where a walk stands: the next seq it expects, the hash it links to, the rows behind it. */
interface WalkPosition {
  expectedSeq: number;
  prev: string;
  rows: number;
}

const GENESIS_POSITION: WalkPosition = { expectedSeq: 1, prev: GENESIS_SHA256, rows: 0 };

/**
 * verifyAllChains() for a service that checks its own chains again and again (a readiness check,
 * a status read): each call verifies only the rows appended since the previous call, linked to
 * the head that call verified, so its cost follows the new rows, not the history. A chain found
 * broken stays reported broken. What it cannot see is a row changed after it was verified: the
 * offline verify_evidence_chain walks every row. `from: 'head'` starts each table at its last row
 * (see headPosition) instead of walking the history on the first call.
 */
export function createChainWatch(sqlite: DatabaseSync, options: { from?: 'genesis' | 'head'; tables?: readonly string[] } = {}): { verifyAll(): ChainVerification[] } {
  const positions = new Map<string, WalkPosition | ChainVerification>();
  // `tables`: only these chains (a read that answers for one table need not walk the others).
  const watched = options.tables === undefined ? undefined : new Set(options.tables);
  return {
    verifyAll() {
      return listEvidenceTables(sqlite).filter((table) => watched === undefined || watched.has(table.name)).map((table) => {
        if (!exists(sqlite, table)) return { ok: false, table: table.name, seq: null, reason: 'table is registered but missing' };
        const known = positions.get(table.name) ?? (options.from === 'head' ? headPosition(sqlite, table.name) : GENESIS_POSITION);
        if ('ok' in known) return known;
        const report = verifyChunk(sqlite, { table: table.name, columns: Object.keys(table.columns), bounds: [known.expectedSeq, Number.MAX_SAFE_INTEGER] });
        const result = joinReports(sqlite, table, [report], known);
        positions.set(table.name, result.ok ? { expectedSeq: known.expectedSeq + result.rows - known.rows, prev: result.head, rows: result.rows } : result);
        return result;
      });
    },
  };
}

/**
 * Where a watch that starts at the head begins: at the last row, linked to the hash of the one
 * before it. The first call then checks that row and its link, not the history (which
 * verify_evidence_chain walks offline): a process start costs one row per table, whatever the
 * table holds.
 */
function headPosition(sqlite: DatabaseSync, name: string): WalkPosition {
  const last = sqlite.prepare(`SELECT seq FROM ${name} ORDER BY seq DESC LIMIT 1`).get();
  if (last === undefined || Number(last['seq']) <= 1) return GENESIS_POSITION;
  const seq = Number(last['seq']);
  const before = sqlite.prepare(`SELECT sha256 FROM ${name} WHERE seq = ?`).get(seq - 1);
  // No row seq - 1: start at the last one that exists, where the walk then reports the gap.
  if (before === undefined) return GENESIS_POSITION;
  return { expectedSeq: seq, prev: String(before['sha256']), rows: seq - 1 };
}

function exists(sqlite: DatabaseSync, table: RegisteredTable): boolean {
  return sqlite.prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?`).get(table.name) !== undefined;
}

/**
 * `parts` seq ranges of equal size when the table's seqs are exactly 1..count (an intact
 * table); one range over the whole table otherwise (or when it is small), so gaps and
 * out-of-range seqs meet the same in-order walk.
 */
function splitRanges(sqlite: DatabaseSync, name: string, options: { parts: number; fromRows: number }): ([number, number] | undefined)[] {
  const { parts } = options;
  const row = sqlite.prepare(`SELECT count(*) AS count, min(seq) AS low, max(seq) AS high FROM ${name}`).get()!;
  const count = Number(row['count']);
  if (parts < 2 || count < options.fromRows || row['low'] !== 1 || row['high'] !== count) return [undefined];
  const size = Math.ceil(count / parts);
  return Array.from({ length: parts }, (_, i): [number, number] => [1 + i * size, 1 + Math.min(count, (i + 1) * size)]);
}

const CHUNK_WORKER_SOURCE = `
const { parentPort, workerData } = process.getBuiltinModule('node:worker_threads');
const { DatabaseSync } = process.getBuiltinModule('node:sqlite');
const verifyChunk = (${verifyChunk.toString()});
const sqlite = new DatabaseSync(workerData.path, { readOnly: true, timeout: 5000 });
try {
  parentPort.postMessage({ ok: true, report: verifyChunk(sqlite, workerData.range) });
} catch (error) {
  parentPort.postMessage({ ok: false, message: String(error && error.message) });
} finally {
  sqlite.close();
}`;

function chunkOnThread(path: string, range: ChunkRange): Promise<ChunkReport> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(CHUNK_WORKER_SOURCE, { eval: true, workerData: { path, range } });
    worker.once('message', (answer: { ok: true; report: ChunkReport } | { ok: false; message: string }) => {
      if (answer.ok) resolve(answer.report);
      else reject(new Error(`Cannot verify seq range of "${range.table}" in "${path}": ${answer.message}`));
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`Cannot verify seq range of "${range.table}": its thread exited with ${code}`)));
  });
}

/** Joins range reports in seq order into the answer of one walk. */
function joinReports(sqlite: DatabaseSync, table: RegisteredTable, reports: ChunkReport[], from: WalkPosition = GENESIS_POSITION): ChainVerification {
  let { expectedSeq, prev, rows } = from;
  for (const report of reports) {
    if (report.first === null) continue;
    const seq = report.first.seq;
    const fail = (at: number | null, reason: string): ChainVerification => ({ ok: false, table: table.name, seq: at, reason });
    if (seq !== expectedSeq) return fail(Number.isNaN(seq) ? null : seq, `expected seq ${expectedSeq}: rows are missing or out of order`);
    if (report.first.prev !== prev) return fail(seq, `prev_sha256 does not match the sha256 of seq ${seq - 1}`);
    for (const doubtful of report.doubtful) {
      const reason = exactRowCheck(sqlite, table, doubtful);
      if (reason !== null) return fail(doubtful, reason);
    }
    if (report.failure !== null) return fail(report.failure.seq, report.failure.reason);
    rows += report.rows;
    expectedSeq = report.last!.seq + 1;
    prev = report.last!.sha256;
  }
  return { ok: true, table: table.name, rows, head: prev };
}

/** The row's own checks (canonical payload, integer columns, hash), exactly; null when it passes. */
function exactRowCheck(sqlite: DatabaseSync, table: RegisteredTable, seq: number): string | null {
  const columns = Object.keys(table.columns);
  const select = sqlite.prepare(`SELECT seq, recorded_at, ${columns.map((column) => `${column}, `).join('')}payload, sha256, prev_sha256 FROM ${table.name} WHERE seq = ?`);
  select.setReadBigInts(true);
  const row = select.get(seq)!;
  const payload = parseCanonical(row['payload']);
  if (payload === undefined) return 'payload is not canonical JSON';
  const fields: Record<string, unknown> = { seq, recorded_at: row['recorded_at'], prev_sha256: row['prev_sha256'], payload };
  for (const column of columns) {
    const value = row[column];
    fields[column] = typeof value === 'bigint' ? toNumber(value) : value;
    if (Number.isNaN(fields[column])) return `column "${column}" holds an integer out of range`;
  }
  return rowHash(fields as HashedFields) === row['sha256'] ? null : "sha256 does not match the row's canonical JSON";
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
