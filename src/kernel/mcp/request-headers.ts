// Reading the transport's request headers: the Accept check of "Sending Messages", single
// values, and the Base64 sentinel of 2026-07-28 "Value Encoding" (`=?base64?...?=`).

import { MIMEType } from 'node:util';
import type { IncomingHttpHeaders } from 'node:http';

/** The header's one value; undefined when absent, null when sent more than once. */
export function singleHeader(headers: IncomingHttpHeaders, name: string): string | undefined | null {
  const value = headers[name];
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return value.length === 1 ? value[0]! : null;
  return value;
}

/** True when Accept admits both application/json and text/event-stream (media ranges count). */
export function acceptsJsonAndEventStream(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  // util.MIMEType reads each range and its parameters; splitting on "," first is safe because no
  // parameter this check reads (q) can hold one. A range that is no media type admits nothing.
  const ranges = accept.split(',').map((part) => {
    let range: MIMEType;
    try {
      range = new MIMEType(part.trim());
    } catch {
      return '';
    }
    // q=0 means "not acceptable" (RFC 9110 12.5.1).
    return /^0(\.0{0,3})?$/.test(range.params.get('q') ?? '') ? '' : range.essence;
  });
  const admits = (type: string) => ranges.some((r) => r === type || r === '*/*' || r === `${type.split('/')[0]}/*`);
  return admits('application/json') && admits('text/event-stream');
}

const SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;

/** Decodes a Mcp-Name value: the sentinel form to its UTF-8 text; undefined for a malformed sentinel. */
export function decodeHeaderValue(value: string): string | undefined {
  if (!value.startsWith('=?base64?')) return value;
  const match = SENTINEL.exec(value);
  if (!match || match[1]!.length % 4 !== 0) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(match[1]!, 'base64'));
  } catch {
    // Bytes that are not UTF-8 cannot equal any body string.
    return undefined;
  }
}
