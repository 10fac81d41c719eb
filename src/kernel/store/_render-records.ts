// Evidence rows as the JSON text of records `{...before, ...payload, ...after}`, the answer of a
// paged evidence read (DESIGN.md "Evidence over time"). It runs on a read-pool thread, beside the
// query, so the event loop that answers probes and writes receives one finished buffer instead
// of a thousand rows to splice and hash (a page of 1000 outbox records cost the event loop about
// 10 ms that way). The read worker carries this function's source text (see _read-worker.ts),
// so it must stand alone: no imports (node:crypto through process.getBuiltinModule), nothing
// from its module.
//
// Parsing each payload to serialize it again costs about three times what splicing its stored
// text does, so a record is spliced: the store keeps payloads canonical (JCS: keys sorted,
// strings and numbers as JSON.stringify writes them), which is what parse-then-stringify gives
// back, except where JavaScript would reorder or merge keys (integer-like keys go first, at any
// depth; a payload key naming one of the row's fields). A payload that may hold either, or is not
// an object, is parsed and stringified, so every record is what a spread would give, byte for byte.

/** Which row fields a record shows, before and after its payload's members. */
export interface RecordShape {
  before: readonly string[];
  after: readonly string[];
}

/** A page of records: their JSON texts joined by commas (the inside of a JSON array), as UTF-8. */
export interface RenderedRecords {
  /** A buffer of its own (not a slice of Node's pool), so that it can move to another thread. */
  bytes: Uint8Array;
  /** Base64url SHA-256 of `bytes`. */
  digest: string;
  count: number;
  /** The last row's seq, or null for no rows. */
  lastSeq: number | null;
}

/** The rows as records, in row order, with the page's digest and last seq. */
export function renderRecords(rows: readonly Record<string, unknown>[], shape: RecordShape): RenderedRecords {
  const indexKey = /"(0|[1-9][0-9]*)":/;
  const own = [...shape.before, ...shape.after].map((field) => `"${field}":`);
  const fields = (row: Record<string, unknown>, names: readonly string[]) => {
    let text = '';
    for (const name of names) text += `${text === '' ? '' : ','}"${name}":${JSON.stringify(row[name])}`;
    return text;
  };
  const pick = (row: Record<string, unknown>, names: readonly string[]) => Object.fromEntries(names.map((name) => [name, row[name]]));
  const records: string[] = [];
  for (const row of rows) {
    const payload = String(row['payload']);
    const members = payload.slice(1, -1);
    if (!payload.startsWith('{') || indexKey.test(members) || own.some((key) => members.includes(key))) {
      records.push(JSON.stringify({ ...pick(row, shape.before), ...(JSON.parse(payload) as object), ...pick(row, shape.after) }));
      continue;
    }
    const parts = [fields(row, shape.before), members, fields(row, shape.after)].filter((part) => part !== '');
    records.push(`{${parts.join(',')}}`);
  }
  const pooled = Buffer.from(records.join(','), 'utf8');
  const bytes = pooled.byteOffset === 0 && pooled.byteLength === pooled.buffer.byteLength ? pooled : new Uint8Array(pooled);
  const lastSeq = rows.length === 0 ? null : Number(rows[rows.length - 1]!['seq']);
  const { hash } = process.getBuiltinModule('node:crypto');
  return { bytes, digest: hash('sha256', bytes, 'base64url'), count: rows.length, lastSeq };
}
