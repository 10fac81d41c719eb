// One seq range of a hash chain, checked fast: each row's own hash and the links inside the
// range. The hashes of rows are independent (a row stores its predecessor's hash), so ranges can
// be checked on several threads at once and only their ends joined in order (verify-chain.ts).
//
// The function runs in worker threads from its own source text, so it stands alone: it reaches
// node:crypto through process.getBuiltinModule and repeats the row-hash definition of
// row-hash.ts for rows whose stored payload is already canonical. That repetition is what makes
// it fast: SQLite writes the hashed text around the stored payload text itself, instead of the
// parsed payload being serialized again. isCanonical() proves the stored text canonical in one pass without building objects
// (JSON.parse + JSON.stringify of every payload cost more than its hash). It only ever says yes
// for canonical text; a payload it cannot confirm (a \u escape, an escaped key, anything not
// canonical) is not judged here: the range reports it as doubtful and the caller runs the exact
// check of canonical-json.ts, which names the failure.

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
  // writes the whole hashed text itself, so a row reaches JavaScript as a few strings instead of
  // one per column: its json_quote() writes a string exactly as JSON.stringify does (every code
  // point of the BMP and beyond, checked against it), so the text is the row's canonical JSON as
  // soon as the payload in it is canonical, which the scan below proves, and no integer column is
  // out of JavaScript's safe range, which the query reports as the 1-based member it found.
  const members = ['seq', 'recorded_at', 'prev_sha256', 'payload', ...columns].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const hashedText = members
    .map((name, i) => `'${i === 0 ? '{' : ','}"${name}":' || ${name === 'payload' || name === 'seq' ? name : `json_quote(${name})`}`)
    .join(' || ');
  const outOfRange = columns.length === 0
    ? '0'
    : `CASE ${members.map((name, i) => (columns.includes(name) ? `WHEN typeof(${name}) = 'integer' AND ${name} NOT BETWEEN ${Number.MIN_SAFE_INTEGER} AND ${Number.MAX_SAFE_INTEGER} THEN ${i + 1} ` : '')).join('')}ELSE 0 END`;
  const select = sqlite.prepare(
    `SELECT seq, prev_sha256, sha256, payload, ${hashedText} || '}', ${outOfRange} FROM ${range.table}${range.bounds ? ' WHERE seq >= ? AND seq < ?' : ''} ORDER BY seq`,
  );
  select.setReadBigInts(true);
  select.setReturnArrays(true);
  const maxSafe = BigInt(Number.MAX_SAFE_INTEGER);
  const minSafe = BigInt(Number.MIN_SAFE_INTEGER);
  const safe = (value: unknown): number => (typeof value === 'bigint' && value <= maxSafe && value >= minSafe ? Number(value) : Number.NaN);
  // True only when `text` is the RFC 8785 form of a JSON value: no whitespace, numbers in their
  // shortest form, object keys strictly ascending, only the escapes JSON.stringify writes for
  // \" \\ \b \t \n \f \r, well-formed UTF-16. Iterative, so deep nesting cannot overflow the stack.
  function isCanonical(text: string): boolean {
    const n = text.length;
    let i = 0;
    // Stack of open containers: 1 = object, 2 = array; and for objects the previous key.
    const kinds: number[] = [];
    const lastKeys: (string | undefined)[] = [];
    const scanString = (): number => {
      // text[i] is '"'; returns the index after the closing quote, or -1.
      let j = i + 1;
      for (;;) {
        if (j >= n) return -1;
        const c = text.charCodeAt(j);
        if (c === 34) return j + 1;
        if (c < 32) return -1;
        if (c === 92) {
          const e = text.charCodeAt(j + 1);
          if (e === 34 || e === 92 || e === 98 || e === 116 || e === 110 || e === 102 || e === 114) { j += 2; continue; }
          return -1;
        }
        j++;
      }
    };
    for (;;) {
      // A value at i.
      const c = text.charCodeAt(i);
      if (c === 123 || c === 91) {
        const close = c === 123 ? 125 : 93;
        if (text.charCodeAt(i + 1) === close) { i += 2; }
        else {
          kinds.push(c === 123 ? 1 : 2);
          lastKeys.push(undefined);
          i++;
          if (c === 123) {
            if (text.charCodeAt(i) !== 34) return false;
            const end = scanString();
            if (end < 0 || text.charCodeAt(end) !== 58) return false;
            const key = text.slice(i + 1, end - 1);
            if (key.includes('\\')) return false;
            lastKeys[lastKeys.length - 1] = key;
            i = end + 1;
          }
          continue;
        }
      } else if (c === 34) {
        const end = scanString();
        if (end < 0) return false;
        i = end;
      } else if (c === 116) { if (!text.startsWith('true', i)) return false; i += 4; }
      else if (c === 102) { if (!text.startsWith('false', i)) return false; i += 5; }
      else if (c === 110) { if (!text.startsWith('null', i)) return false; i += 4; }
      else {
        let j = i;
        for (;;) {
          const d = text.charCodeAt(j);
          if ((d >= 48 && d <= 57) || d === 45 || d === 46 || d === 101 || d === 69 || d === 43) j++;
          else break;
        }
        if (j === i) return false;
        // Plain integers of up to 15 digits without a leading zero are their own shortest form.
        const first = text.charCodeAt(i);
        let plain = j - i <= 15 && (first !== 48 || j - i === 1);
        for (let k = i; plain && k < j; k++) { const d = text.charCodeAt(k); plain = d >= 48 && d <= 57; }
        if (!plain) {
          const token = text.slice(i, j);
          if (String(Number(token)) !== token) return false;
        }
        i = j;
      }
      // After a value: close containers or move to the next member.
      for (;;) {
        if (kinds.length === 0) return i === n && text.isWellFormed();
        const kind = kinds[kinds.length - 1];
        const d = text.charCodeAt(i);
        if (d === 44) {
          i++;
          if (kind === 1) {
            if (text.charCodeAt(i) !== 34) return false;
            const end = scanString();
            if (end < 0 || text.charCodeAt(end) !== 58) return false;
            const key = text.slice(i + 1, end - 1);
            if (key.includes('\\') || !(lastKeys[lastKeys.length - 1]! < key)) return false;
            lastKeys[lastKeys.length - 1] = key;
            i = end + 1;
          }
          break;
        }
        if (d !== (kind === 1 ? 125 : 93)) return false;
        kinds.pop();
        lastKeys.pop();
        i++;
      }
    }
  }
  // The common case, text with no backslash and no control character at all (one native regex
  // pass proves it), is scanned without building anything: strings end at the next quote (found
  // by indexOf), keys are compared where they stand in the text, and the open containers live in
  // typed arrays made once per range. Deeper nesting than they hold is left to isCanonical().
  const escapedOrControl = /[\u0000-\u001f\\]/;
  const MAX_DEPTH = 64;
  const openKinds = new Uint8Array(MAX_DEPTH);
  const keyStarts = new Int32Array(MAX_DEPTH);
  const keyEnds = new Int32Array(MAX_DEPTH);
  // True when the key text[start, end) sorts strictly after the open object's previous key (UTF-16 code units).
  function keyAfterPrevious(text: string, level: number, start: number, end: number): boolean {
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
  function isPlainCanonical(text: string): boolean {
    const n = text.length;
    let i = 0;
    let depth = 0;
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === 123 || c === 91) {
        if (text.charCodeAt(i + 1) === (c === 123 ? 125 : 93)) i += 2;
        else {
          if (depth === MAX_DEPTH) return false;
          openKinds[depth] = c === 123 ? 1 : 2;
          i++;
          if (c === 123) {
            if (text.charCodeAt(i) !== 34) return false;
            const end = text.indexOf('"', i + 1);
            if (end < 0 || text.charCodeAt(end + 1) !== 58) return false;
            keyStarts[depth] = i + 1;
            keyEnds[depth] = end;
            i = end + 2;
          }
          depth++;
          continue;
        }
      } else if (c === 34) {
        const end = text.indexOf('"', i + 1);
        if (end < 0) return false;
        i = end + 1;
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
        if (depth === 0) return i === n && text.isWellFormed();
        const level = depth - 1;
        const d = text.charCodeAt(i);
        if (d === 44) {
          i++;
          if (openKinds[level] === 1) {
            if (text.charCodeAt(i) !== 34) return false;
            const end = text.indexOf('"', i + 1);
            if (end < 0 || text.charCodeAt(end + 1) !== 58 || !keyAfterPrevious(text, level, i + 1, end)) return false;
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
  for (const row of select.iterate(...(range.bounds ?? [])) as Iterable<unknown> as Iterable<unknown[]>) {
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
    const payload = row[3];
    // The stored text is hashed as it is once the scan proves it canonical; anything else
    // (not a string, not JSON, an escape or key order the scan does not judge) gets the exact check.
    if (typeof payload !== 'string' || !(escapedOrControl.test(payload) ? isCanonical(payload) : isPlainCanonical(payload))) {
      report.doubtful.push(seq);
      continue;
    }
    const outOf = Number(row[5]);
    if (outOf !== 0) return fail(seq, `column "${members[outOf - 1]}" holds an integer out of range`);
    if (hash('sha256', String(row[4]), 'hex') !== sha256) return fail(seq, "sha256 does not match the row's canonical JSON");
  }
  return finish();
}
