// One page of an evidence table, read on the service's read pool (DESIGN.md "Evidence over
// time"): the query readRows() runs (equality on declared columns, seq after a cursor, seq order,
// a limit), on a read-only connection in a worker thread, which also renders the records'
// JSON text (the kernel's renderRecords(): `{seq, recorded_at, ...payload, sha256}`, spliced
// from the stored canonical payload, byte for byte what a spread would give) and hashes it. The
// event loop that answers /health and the guarded writes only joins the page's head and tail to
// that buffer: a page of 1000 records used to cost it about 10 ms of splicing and hashing. A page
// still waiting or running when the pool's budget is spent is refused with `read_budget` (503
// with Retry-After).

import { JSON_TYPE, readRowsSql, strongEtag } from '../../kernel/index.ts';
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
  /** The records' JSON texts joined by commas (UTF-8), in seq order. */
  records: Buffer;
  /** Base64url SHA-256 of `records`. */
  digest: string;
  count: number;
  /** The last record's seq, or undefined for an empty page. */
  lastSeq: number | undefined;
}

/**
 * The page's records, each `{...before, ...payload, ...after}`.
 *
 * @example
 * const page = await readRecordPage(runtime.readPool, outboxRecords, { afterSeq: 0, limit: 100, before: ['seq', 'recorded_at'], after: ['sha256'] });
 */
export async function readRecordPage<T extends TextColumnTable>(pool: ReadPool, table: T, page: EvidencePage<T>): Promise<RecordPage> {
  const { sql, values } = readRowsSql(table, { where: page.where ?? {}, afterSeq: page.afterSeq, limit: page.limit });
  const { bytes, digest, count, lastSeq } = await pool.queryRecords(sql, values, { before: page.before, after: page.after });
  return { records: bytes, digest, count, lastSeq };
}

/**
 * A 200 whose body is `head`'s members, then `name` holding the records, then `tail`'s members:
 * what json() would send for that object. Its strong ETag hashes the head, the name, the
 * records' digest and the tail, which together determine every byte, instead of the bytes.
 */
export function recordsReply(head: Record<string, unknown>, name: string, page: RecordPage, tail: Record<string, unknown>): Reply {
  const open = JSON.stringify(head).slice(0, -1);
  const close = JSON.stringify(tail).slice(1);
  const before = `${open}${open === '{' ? '' : ','}${JSON.stringify(name)}:[`;
  const after = `]${close === '}' ? '' : ','}${close}`;
  const raw = Buffer.concat([Buffer.from(before, 'utf8'), page.records, Buffer.from(after, 'utf8')]);
  return { status: 200, raw, contentType: JSON_TYPE, headers: { etag: strongEtag(JSON.stringify([before, page.digest, after])) } };
}
