// The two halves of an evidence append. prepareAppend() runs when the caller appends: it checks
// the input and takes a canonical snapshot, so a bad row fails alone instead of failing the batch
// it would have joined, and a caller mutating its object afterwards changes nothing.
// insertEvidence() runs inside the batch transaction: it reads the chain head from the database
// (never from memory, so a rolled-back batch cannot leave a stale head), then hashes and inserts.

import type { DatabaseSync } from 'node:sqlite';
import { isoTime } from '../iso-time.ts';
import { canonicalJson } from './canonical-json.ts';
import type { AnyEvidenceTable, ColumnTypes, EvidenceRow, EvidenceTable } from './evidence-table.ts';
import { GENESIS_SHA256, rowHashOfTexts } from './row-hash.ts';
import { statement } from './_statements.ts';

export interface PreparedAppend {
  columns: Record<string, string | number>;
  /** The payload's canonical text: the snapshot taken at append time, and what is stored. */
  payloadText: string;
  /** Each column's canonical JSON text, for the row hash. */
  columnTexts: Record<string, string>;
}

export function prepareAppend(table: AnyEvidenceTable, input: Record<string, unknown>): PreparedAppend {
  const columns: Record<string, string | number> = {};
  for (const [column, type] of Object.entries(table.columns)) {
    const value = input[column];
    if (type === 'integer' ? !Number.isSafeInteger(value) : typeof value !== 'string') {
      throw new TypeError(`Cannot append to evidence table "${table.name}": column "${column}" must be ${type === 'integer' ? 'a safe integer' : 'a string'}`);
    }
    columns[column] = value as string | number;
  }
  for (const key of Object.keys(input)) {
    if (key !== 'payload' && !(key in table.columns)) {
      throw new TypeError(`Cannot append to evidence table "${table.name}": "${key}" is not a declared column`);
    }
  }
  // Also proves the column strings are well-formed, so hashing inside the batch cannot throw.
  const columnTexts: Record<string, string> = {};
  for (const [column, value] of Object.entries(columns)) columnTexts[column] = canonicalJson(value);
  const payloadText = canonicalJson(input['payload']);
  return { columns, payloadText, columnTexts };
}

export function insertEvidence<C extends ColumnTypes, P>(
  sqlite: DatabaseSync,
  table: EvidenceTable<C, P>,
  options: { prepared: PreparedAppend; now: () => Date },
): EvidenceRow<C, P> {
  const { prepared } = options;
  const sql = sqlOf(table);
  const head = statement(sqlite, sql.head).get();
  const seq = head === undefined ? 1 : Number(head['seq']) + 1;
  const prev_sha256 = head === undefined ? GENESIS_SHA256 : String(head['sha256']);
  const recorded_at = isoTime(options.now());
  const sha256 = rowHashOfTexts({
    ...prepared.columnTexts,
    seq: String(seq),
    recorded_at: JSON.stringify(recorded_at),
    prev_sha256: JSON.stringify(prev_sha256),
    payload: prepared.payloadText,
  });
  // prepareAppend() filled `columns` in the table's declared order, the order of sql.insert.
  statement(sqlite, sql.insert).run(seq, recorded_at, ...Object.values(prepared.columns), prepared.payloadText, sha256, prev_sha256);
  // `payload` is declared in its place first: redefining a property keeps its enumeration order.
  return withLazyPayload({ ...prepared.columns, seq, recorded_at, prev_sha256, payload: null, sha256 }, prepared.payloadText) as EvidenceRow<C, P>;
}

const sqlTexts = new WeakMap<AnyEvidenceTable, { head: string; insert: string }>();

/** The chain-head query and the insert of `table`, built once: every append would otherwise build both strings again. */
function sqlOf(table: AnyEvidenceTable): { head: string; insert: string } {
  let texts = sqlTexts.get(table);
  if (texts === undefined) {
    const names = Object.keys(table.columns);
    texts = {
      head: `SELECT seq, sha256 FROM ${table.name} ORDER BY seq DESC LIMIT 1`,
      insert: `INSERT INTO ${table.name} (seq, recorded_at, ${names.map((name) => `${name}, `).join('')}payload, sha256, prev_sha256)
     VALUES (${'?, '.repeat(names.length + 4)}?)`,
    };
    sqlTexts.set(table, texts);
  }
  return texts;
}

/**
 * Gives `row` an enumerable `payload` parsed from `text` on first read: most writers never read
 * back the row they appended, and parsing every payload again cost more than the insert's hashing.
 */
function withLazyPayload(row: object, text: string): object {
  let parsed: { value: unknown } | undefined;
  /** Turns `payload` into the plain data property the row had before: assignable, deletable, frozen with the row. */
  const settle = (target: object, value: unknown): void => {
    Object.defineProperty(target, 'payload', { value, enumerable: true, writable: true, configurable: true });
  };
  return Object.defineProperty(row, 'payload', {
    enumerable: true,
    configurable: true,
    get(this: object) {
      parsed ??= { value: JSON.parse(text) };
      // A row frozen (or sealed) before its first read keeps the accessor; it still answers one parsed value.
      if (Object.getOwnPropertyDescriptor(this, 'payload')?.configurable === true) settle(this, parsed.value);
      return parsed.value;
    },
    set(this: object, value: unknown) {
      settle(this, value);
    },
  });
}
