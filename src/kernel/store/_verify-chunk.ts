// One seq range of a hash chain, checked fast: each row's own hash and the links inside the
// range. The hashes of rows are independent (a row stores its predecessor's hash), so ranges can
// be checked on several threads at once and only their ends joined in order (verify-chain.ts).
//
// The function runs in worker threads from its own source text, so it stands alone: it reaches
// node:crypto through process.getBuiltinModule and repeats the row-hash definition of
// row-hash.ts for rows whose stored payload is already canonical. That repetition is what makes
// it fast: SQLite writes the hashed text around the stored payload text itself (one concat() per
// row), and only that text reaches JavaScript, not the payload a second time. One scan of it
// proves it canonical without building objects: the payload inside is then canonical too, and is
// exactly the stored column (see isCanonicalRow). The scan only ever says yes for canonical
// text; a row it cannot confirm (a \u escape it does not judge, an escaped key, deep nesting,
// anything not canonical) is not judged here: the range reports it as doubtful and the caller
// runs the exact check of canonical-json.ts, which names the failure.

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
  // The hashed object's members in its order (keys sorted by UTF-16 code units, RFC 8785). SQLite
  // writes the whole hashed text itself: its json_quote() writes a string exactly as
  // JSON.stringify does (every code point of the BMP and beyond, checked against it), so the text
  // is the row's canonical JSON as soon as the payload in it is canonical, which the scan below
  // proves, and no integer column is out of JavaScript's safe range, which the query reports as
  // the 1-based member it found. concat() builds the text in one allocation (|| copies it once
  // per member); it reads a NULL payload as '', which the scan then refuses.
  const members = ['seq', 'recorded_at', 'prev_sha256', 'payload', ...columns].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const hashedText = `concat(${members
    .map((name, i) => `'${i === 0 ? '{' : ','}"${name}":', ${name === 'payload' || name === 'seq' ? name : `json_quote(${name})`}`)
    .join(', ')}, '}')`;
  const outOfRange = columns.length === 0
    ? '0'
    : `CASE ${members.map((name, i) => (columns.includes(name) ? `WHEN typeof(${name}) = 'integer' AND ${name} NOT BETWEEN ${Number.MIN_SAFE_INTEGER} AND ${Number.MAX_SAFE_INTEGER} THEN ${i + 1} ` : '')).join('')}ELSE 0 END`;
  // Rows come in pages of PAGE by seq (all() of a page costs about half of iterate()'s call per
  // row): the first page from the range's lower bound, each next one after the last seq read.
  const PAGE = 2000;
  const page = (after: boolean) => {
    const statement = sqlite.prepare(
      `SELECT seq, prev_sha256, sha256, ${hashedText}, ${outOfRange} FROM ${range.table} WHERE seq ${after ? '>' : '>='} ?${range.bounds ? ' AND seq < ?' : ''} ORDER BY seq LIMIT ${PAGE}`,
    );
    statement.setReadBigInts(true);
    statement.setReturnArrays(true);
    return statement;
  };
  const firstPage = page(false);
  const nextPage = page(true);
  const upper = range.bounds === undefined ? [] : [range.bounds[1]];
  function* rows(): Generator<unknown[]> {
    let from: number | bigint = range.bounds?.[0] ?? -9223372036854775808n;
    let statement = firstPage;
    for (;;) {
      const batch = statement.all(from, ...upper) as unknown[] as unknown[][];
      yield* batch;
      if (batch.length < PAGE) return;
      from = batch[batch.length - 1]![0] as bigint;
      statement = nextPage;
    }
  }
  const maxSafe = BigInt(Number.MAX_SAFE_INTEGER);
  const minSafe = BigInt(Number.MIN_SAFE_INTEGER);
  const safe = (value: unknown): number => (typeof value === 'bigint' && value <= maxSafe && value >= minSafe ? Number(value) : Number.NaN);
  // Raw control characters: never in canonical JSON (strings escape them, no whitespace outside).
  const control = /[\u0000-\u001f]/;
  const MAX_DEPTH = 64;
  const openKinds = new Uint8Array(MAX_DEPTH);
  const keyStarts = new Int32Array(MAX_DEPTH);
  const keyEnds = new Int32Array(MAX_DEPTH);
  // Where the scan stands in the row's text, shared by the helpers below: the next backslash at
  // or after the scan (-1: none left), found once per stretch so a row costs one pass however
  // many strings it holds.
  let text = '';
  let nextEscape = -1;
  // True when the key text[start, end) sorts strictly after the open object's previous key (UTF-16 code units).
  function keyAfterPrevious(level: number, start: number, end: number): boolean {
    const prevStart = keyStarts[level]!;
    const prevLength = keyEnds[level]! - prevStart;
    const length = end - start;
    const common = prevLength < length ? prevLength : length;
    for (let k = 0; k < common; k++) {
      const a = text.charCodeAt(prevStart + k);
      const b = text.charCodeAt(start + k);
      if (a !== b) return a < b;
    }
    return prevLength < length;
  }
  const HEX = /^00[01][0-9a-f]$/;
  // text[i] is '"': the index after its closing quote, or -1 when the string holds an escape
  // JSON.stringify would not write (\/, a \u escape of a printable character or in uppercase
  // hex): such rows go to the exact check.
  function stringEnd(i: number): number {
    let j = i + 1;
    for (;;) {
      const quote = text.indexOf('"', j);
      if (quote < 0) return -1;
      if (nextEscape !== -1 && nextEscape < j) nextEscape = text.indexOf('\\', j);
      if (nextEscape === -1 || nextEscape > quote) return quote + 1;
      const e = text.charCodeAt(nextEscape + 1);
      if (e === 117) {
        // \u0000 to \u001f: JSON.stringify writes these for control characters without a short escape.
        const hex = text.slice(nextEscape + 2, nextEscape + 6);
        if (!HEX.test(hex)) return -1;
        const code = parseInt(hex, 16);
        if (code === 8 || code === 9 || code === 10 || code === 12 || code === 13) return -1;
        j = nextEscape + 6;
      } else if (e === 34 || e === 92 || e === 98 || e === 116 || e === 110 || e === 102 || e === 114) j = nextEscape + 2;
      else return -1;
      nextEscape = text.indexOf('\\', j);
    }
  }
  // A key at text[i] ('"' expected): its closing quote's index, or -1. Keys with an escape are
  // left to the exact check.
  function keyEnd(i: number): number {
    if (text.charCodeAt(i) !== 34) return -1;
    const end = text.indexOf('"', i + 1);
    if (end < 0 || text.charCodeAt(end + 1) !== 58) return -1;
    if (nextEscape !== -1 && nextEscape < i) nextEscape = text.indexOf('\\', i);
    return nextEscape !== -1 && nextEscape < end ? -1 : end;
  }
  // True only when the row's text is the RFC 8785 form of an object whose members are exactly
  // `members`, in order: no whitespace, numbers in their shortest form, object keys strictly
  // ascending, only the escapes JSON.stringify writes, well-formed UTF-16. The members' own text
  // comes from SQLite and cannot hold a bracket or quote outside a string, so a stored payload
  // that is not exactly one JSON value (unbalanced, or `1,"pb":2`) breaks either the brackets or
  // the member list: passing proves the payload column canonical.
  function isCanonicalRow(row: string): boolean {
    text = row;
    if (control.test(text)) return false;
    nextEscape = text.indexOf('\\');
    const n = text.length;
    let i = 0;
    let depth = 0;
    let member = 0;
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === 123 || c === 91) {
        if (text.charCodeAt(i + 1) === (c === 123 ? 125 : 93)) i += 2;
        else {
          if (depth === MAX_DEPTH) return false;
          openKinds[depth] = c === 123 ? 1 : 2;
          i++;
          if (c === 123) {
            const end = keyEnd(i);
            if (end < 0) return false;
            if (depth === 0 && (end - i - 1 !== members[0]!.length || !text.startsWith(members[0]!, i + 1))) return false;
            keyStarts[depth] = i + 1;
            keyEnds[depth] = end;
            i = end + 2;
          }
          depth++;
          continue;
        }
      } else if (c === 34) {
        const end = stringEnd(i);
        if (end < 0) return false;
        i = end;
      } else if (c === 116) { if (!text.startsWith('true', i)) return false; i += 4; }
      else if (c === 102) { if (!text.startsWith('false', i)) return false; i += 5; }
      else if (c === 110) { if (!text.startsWith('null', i)) return false; i += 4; }
      else {
        // Plain integers of up to 15 digits without a leading zero are their own shortest form.
        let j = i;
        if (c === 45) j++;
        const digits = j;
        for (;;) {
          const d = text.charCodeAt(j);
          if (d >= 48 && d <= 57) j++;
          else break;
        }
        const d = text.charCodeAt(j);
        if (d === 46 || d === 101 || d === 69 || d === 43 || d === 45) {
          for (;;) {
            const e = text.charCodeAt(j);
            if ((e >= 48 && e <= 57) || e === 45 || e === 46 || e === 101 || e === 69 || e === 43) j++;
            else break;
          }
          const token = text.slice(i, j);
          if (String(Number(token)) !== token) return false;
        } else if (j === digits || j - digits > 15 || (text.charCodeAt(digits) === 48 && j - digits > 1) || (c === 45 && j - digits === 1 && text.charCodeAt(digits) === 48)) {
          // No digits, too long to be sure, a leading zero, or "-0": the exact check judges it.
          return false;
        }
        i = j;
      }
      for (;;) {
        if (depth === 0) return i === n && member === members.length - 1 && text.isWellFormed();
        const level = depth - 1;
        const d = text.charCodeAt(i);
        if (d === 44) {
          i++;
          if (openKinds[level] === 1) {
            const end = keyEnd(i);
            if (end < 0) return false;
            if (level === 0) {
              // The row object: its next member, by name.
              const name = members[++member];
              if (name === undefined || end - i - 1 !== name.length || !text.startsWith(name, i + 1)) return false;
            } else if (!keyAfterPrevious(level, i + 1, end)) return false;
            keyStarts[level] = i + 1;
            keyEnds[level] = end;
            i = end + 2;
          }
          break;
        }
        if (d !== (openKinds[level] === 1 ? 125 : 93)) return false;
        depth--;
        i++;
      }
    }
  }
  // report.last is filled in on the way out: one object per range instead of one per row.
  const finish = (): ChunkReport => ({ ...report, last: report.rows > 0 ? { seq: lastSeq, sha256: prev! } : null });
  const fail = (seq: number, reason: string): ChunkReport => ({ ...finish(), failure: { seq: Number.isNaN(seq) ? null : seq, reason } });
  // The first row's seq and link are the caller's to check against the range before it.
  let expectedSeq = Number.NaN;
  let prev: string | undefined;
  let lastSeq = Number.NaN;
  for (const row of rows()) {
    const seq = safe(row[0]);
    const prevText = row[1];
    const sha256 = String(row[2]);
    if (prev === undefined) {
      report.first = { seq, prev: String(prevText) };
      // A seq out of the safe range cannot be the one the caller expects: it reports it.
      if (Number.isNaN(seq)) return report;
    } else if (seq !== expectedSeq) return fail(seq, `expected seq ${expectedSeq}: rows are missing or out of order`);
    else if (prevText !== prev) return fail(seq, `prev_sha256 does not match the sha256 of seq ${seq - 1}`);
    report.rows++;
    lastSeq = seq;
    prev = sha256;
    expectedSeq = seq + 1;
    const hashed = row[3];
    // The text is hashed as it is once the scan proves it canonical; anything else (not JSON, an
    // escape or key order the scan does not judge, a NULL payload) gets the exact check.
    if (typeof hashed !== 'string' || !isCanonicalRow(hashed)) {
      report.doubtful.push(seq);
      continue;
    }
    const outOf = Number(row[4]);
    if (outOf !== 0) return fail(seq, `column "${members[outOf - 1]}" holds an integer out of range`);
    if (hash('sha256', hashed, 'hex') !== sha256) return fail(seq, "sha256 does not match the row's canonical JSON");
  }
  return finish();
}
