// The two halves of an evidence append. prepareAppend() runs when the caller appends: it checks
// the input and takes a canonical snapshot, so a bad row fails alone instead of failing the batch
// it would have joined, and a caller mutating its object afterwards changes nothing.
// insertEvidence() runs inside the batch transaction: it reads the chain head from the database
// (never from memory, so a rolled-back batch cannot leave a stale head), then hashes and inserts.

import type { DatabaseSync } from 'node:sqlite';
import { isoTime } from '../iso-time.ts';
import { canonicalJson } from './canonical-json.ts';
import type { AnyEvidenceTable, ColumnTypes, EvidenceRow, EvidenceTable } from './evidence-table.ts';
import { GENESIS_SHA256, rowHasher } from './row-hash.ts';
import type { RowHasher } from './row-hash.ts';
import { statement } from './_statements.ts';

export interface PreparedAppend {
  /** The declared columns' values, in the table's declared order (the order of its insert). */
  values: (string | number)[];
  /** The payload's canonical text: the snapshot taken at append time, and what is stored. */
  payloadText: string;
  /** Each declared column's canonical JSON text, in the same order, for the row hash. */
  columnTexts: string[];
}

export function prepareAppend(table: AnyEvidenceTable, input: Record<string, unknown>): PreparedAppend {
  const { names, types } = layoutOf(table);
  const values: (string | number)[] = [];
  const columnTexts: string[] = [];
  for (let i = 0; i < names.length; i++) {
    const column = names[i]!;
    const value = input[column];
    if (types[i] === 'integer' ? !Number.isSafeInteger(value) : typeof value !== 'string') {
      throw new TypeError(`Cannot append to evidence table "${table.name}": column "${column}" must be ${types[i] === 'integer' ? 'a safe integer' : 'a string'}`);
    }
    values.push(value as string | number);
    // Also proves the column strings are well-formed, so hashing inside the batch cannot throw
    // (canonicalJson() says why one is not).
    columnTexts.push(typeof value === 'number' ? String(value) : (value as string).isWellFormed() ? JSON.stringify(value) : canonicalJson(value));
  }
  for (const key of Object.keys(input)) {
    if (key !== 'payload' && !(key in table.columns)) {
      throw new TypeError(`Cannot append to evidence table "${table.name}": "${key}" is not a declared column`);
    }
  }
  return { values, payloadText: canonicalJson(input['payload']), columnTexts };
}

/** The chain fields insertChainRow() gave a row. */
export interface ChainFields {
  seq: number;
  recorded_at: string;
  prev_sha256: string;
  sha256: string;
}

/** Inserts the row at the chain's head (read from the database) and returns its chain fields. */
export function insertChainRow(sqlite: DatabaseSync, table: AnyEvidenceTable, options: { prepared: PreparedAppend; now: () => Date }): ChainFields {
  const { prepared } = options;
  const layout = layoutOf(table);
  const head = statement(sqlite, layout.head).get();
  const seq = head === undefined ? 1 : Number(head['seq']) + 1;
  const prev_sha256 = head === undefined ? GENESIS_SHA256 : String(head['sha256']);
  const recorded_at = isoTime(options.now());
  const sha256 = layout.hash({ columnTexts: prepared.columnTexts, seq, recorded_at, prev_sha256, payloadText: prepared.payloadText });
  statement(sqlite, layout.insert).run(seq, recorded_at, ...prepared.values, prepared.payloadText, sha256, prev_sha256);
  return { seq, recorded_at, prev_sha256, sha256 };
}

export function insertEvidence<C extends ColumnTypes, P>(
  sqlite: DatabaseSync,
  table: EvidenceTable<C, P>,
  options: { prepared: PreparedAppend; now: () => Date },
): EvidenceRow<C, P> {
  const { seq, recorded_at, prev_sha256, sha256 } = insertChainRow(sqlite, table, options);
  const { names } = layoutOf(table);
  const row: Record<string, unknown> = {};
  for (let i = 0; i < names.length; i++) row[names[i]!] = options.prepared.values[i];
  row['seq'] = seq;
  row['recorded_at'] = recorded_at;
  row['prev_sha256'] = prev_sha256;
  // `payload` is declared in its place first: redefining a property keeps its enumeration order.
  row['payload'] = null;
  row['sha256'] = sha256;
  return withLazyPayload(row, options.prepared.payloadText) as EvidenceRow<C, P>;
}

/** What every append to a table needs, built once per table: every append would otherwise build it again. */
interface TableLayout {
  names: string[];
  types: string[];
  head: string;
  insert: string;
  hash: RowHasher;
}

const layouts = new WeakMap<AnyEvidenceTable, TableLayout>();

function layoutOf(table: AnyEvidenceTable): TableLayout {
  let layout = layouts.get(table);
  if (layout === undefined) {
    const names = Object.keys(table.columns);
    layout = {
      names,
      types: names.map((name) => table.columns[name]!),
      head: `SELECT seq, sha256 FROM ${table.name} ORDER BY seq DESC LIMIT 1`,
      insert: `INSERT INTO ${table.name} (seq, recorded_at, ${names.map((name) => `${name}, `).join('')}payload, sha256, prev_sha256)
     VALUES (${'?, '.repeat(names.length + 4)}?)`,
      hash: rowHasher(names),
    };
    layouts.set(table, layout);
  }
  return layout;
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
