// Single-part byte ranges on content downloads (RFC 9110 14.2), as Alfresco's getNodeContent
// and getVersionContent offer them ("Single part request supported, for example: bytes=1-10";
// 206, or 416 Range Not Satisfiable). What this does not serve (another unit, several ranges,
// a malformed header, an If-Range that no longer matches) gets the whole content: RFC 9110
// lets a server ignore such a Range, and a download that resumes from stale bytes is worse.

/** What to send for a Range header against content of `size` bytes whose ETag is `etag`. */
export type RangeChoice = { kind: 'whole' } | { kind: 'partial'; start: number; end: number } | { kind: 'unsatisfiable' };

const SINGLE = /^bytes=(\d*)-(\d*)$/;

export function chooseRange(headers: { range?: string | string[] | undefined; ifRange?: string | string[] | undefined }, size: number, etag: string): RangeChoice {
  const range = headers.range;
  if (typeof range !== 'string') return { kind: 'whole' };
  // If-Range with a date cannot be judged here (no Last-Modified is sent): serve the whole.
  if (headers.ifRange !== undefined && headers.ifRange !== etag) return { kind: 'whole' };
  const match = SINGLE.exec(range.replace(/\s+/g, ''));
  if (!match || (match[1] === '' && match[2] === '')) return { kind: 'whole' };
  const first = match[1] === '' ? undefined : Number(match[1]);
  const last = match[2] === '' ? undefined : Number(match[2]);
  if (first === undefined) {
    // bytes=-N: the last N bytes.
    if (last === 0) return { kind: 'unsatisfiable' };
    return size === 0 ? { kind: 'unsatisfiable' } : { kind: 'partial', start: Math.max(0, size - last!), end: size - 1 };
  }
  if (last !== undefined && last < first) return { kind: 'whole' };
  if (first >= size) return { kind: 'unsatisfiable' };
  return { kind: 'partial', start: first, end: Math.min(last ?? size - 1, size - 1) };
}
