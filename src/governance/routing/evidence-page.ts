// One page of an evidence table, read on the service's read pool (DESIGN.md "Evidence over
// time"): the query readRows() runs (equality on declared columns, seq after a cursor, seq order,
// a limit), but on a read-only connection in a worker thread, so a page of 1000 records never
// holds the event loop that answers /health and the guarded writes. A page still waiting or
// running when the pool's budget is spent is refused with `read_budget` (503 with Retry-After).
//
// Each record is the row's own fields around its payload's members, `{seq, recorded_at,
// ...payload, sha256}`. Parsing 1000 payloads to serialize them again costs the main thread
// about three times what splicing the stored text does (measured: 1.5 ms parse + 0.5 ms stringify
// against 0.3 ms per page of 1000), so the record's JSON is spliced from the stored payload: the
// store keeps it canonical (JCS: keys sorted, strings and numbers as JSON.stringify writes them),
// which is what parse-then-stringify gives back, except where JavaScript would reorder or merge
// keys (integer-like keys go first; a payload key naming one of the row's fields). A payload
// that may hold either, or is not an object, takes the parse-and-stringify path, so every answer
// is the one readRows() and a spread would give, byte for byte.

import { JSON_TYPE, readRowsSql } from '../../kernel/index.ts';
import type { ReadPool, Reply } from '../../kernel/index.ts';

/** An evidence table whose declared columns are all text (governance's are). */
interface TextColumnTable {
  readonly name: string;
  readonly columns: Readonly<Record<string, 'text'>>;
}

/** The row's own fields a record shows, before and after its payload's members. */
type RowField = 'seq' | 'recorded_at' | 'sha256' | 'prev_sha256';

export interface EvidencePage<T extends TextColumnTable> {
  /** Equality on declared columns, all of which must hold. */
  where?: Partial<Record<keyof T['columns'] & string, string>>;
  /** Only rows with a larger seq. */
  afterSeq: number;
  limit: number;
  /** Row fields (and declared columns) before the payload's members, and after them. */
  before: readonly (RowField | (keyof T['columns'] & string))[];
  after: readonly RowField[];
}

export interface RecordPage {
  /** Each record's JSON text, in seq order. */
  records: string[];
  /** The last record's seq, or undefined for an empty page. */
  lastSeq: number | undefined;
}

/** Keys JavaScript orders before all others (array indexes); their members need a real parse. */
const INDEX_KEY = /"(0|[1-9][0-9]*)":/;

/**
 * The page's records as JSON text, each `{...before, ...payload, ...after}`.
 *
 * @example
 * const page = await readRecordPage(runtime.readPool, outboxRecords, { afterSeq: 0, limit: 100, before: ['seq', 'recorded_at'], after: ['sha256'] });
 */
export async function readRecordPage<T extends TextColumnTable>(pool: ReadPool, table: T, page: EvidencePage<T>): Promise<RecordPage> {
  const { sql, values } = readRowsSql(table, { where: page.where ?? {}, afterSeq: page.afterSeq, limit: page.limit });
  const { rows } = await pool.query(sql, values);
  const own = [...page.before, ...page.after].map((field) => `"${field}":`);
  const records = rows.map((row) => {
    const payload = String(row['payload']);
    const members = payload.slice(1, -1);
    if (!payload.startsWith('{') || INDEX_KEY.test(members) || own.some((key) => members.includes(key))) {
      const pick = (names: readonly string[]) => Object.fromEntries(names.map((name) => [name, row[name]]));
      return JSON.stringify({ ...pick(page.before), ...(JSON.parse(payload) as object), ...pick(page.after) });
    }
    const fields = (names: readonly string[]) => names.map((name) => `"${name}":${JSON.stringify(row[name])}`).join(',');
    return `{${[fields(page.before), members, fields(page.after)].filter((part) => part !== '').join(',')}}`;
  });
  return { records, lastSeq: rows.length === 0 ? undefined : Number(rows.at(-1)!['seq']) };
}

/**
 * A 200 whose body is `head`'s members, then `name` holding the records, then `tail`'s members:
 * what json() would send for that object, without parsing the records.
 */
export function recordsReply(head: Record<string, unknown>, name: string, records: readonly string[], tail: Record<string, unknown>): Reply {
  const open = JSON.stringify(head).slice(0, -1);
  const close = JSON.stringify(tail).slice(1);
  const raw = `${open}${open === '{' ? '' : ','}${JSON.stringify(name)}:[${records.join(',')}]${close === '}' ? '' : ','}${close}`;
  return { status: 200, raw, contentType: JSON_TYPE };
}
