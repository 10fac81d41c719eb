// Limits on a request's head, as RFC 9110 names their refusals: a request target (path and
// query) over MAX_TARGET_BYTES is 414 URI Too Long, header fields over MAX_HEADER_BYTES are 431.
// node:http counts the request line and the headers together against one maxHeaderSize, so a
// long URL alone would be 431; the server's own maxHeaderSize is therefore MAX_HEAD_BYTES (room
// for both) and these limits are checked here, apart. A head over MAX_HEAD_BYTES never becomes
// a request: client-error.ts answers it, 414 when its request line is what overflowed.

import type { IncomingMessage } from 'node:http';
import { problem } from './reply.ts';
import type { Reply } from './route.ts';

/** Request target (path and query), in bytes: RFC 9110 §4.1 asks servers to take at least 8000 octets. */
export const MAX_TARGET_BYTES = 8 * 1024;
/** Header fields, in bytes (name, value, ": " and CRLF each). */
export const MAX_HEADER_BYTES = 16 * 1024;
/** node:http's maxHeaderSize: request line and header fields together, above both limits. */
export const MAX_HEAD_BYTES = 64 * 1024;

export const URI_TOO_LONG = { status: 414, title: 'URI too long', detail: `The request target is longer than the server accepts (${MAX_TARGET_BYTES / 1024} KiB of path and query): send a shorter URL` } as const;
export const HEADERS_TOO_LARGE = { status: 431, title: 'Request header fields too large', detail: `The request headers are larger than the server accepts (${MAX_HEADER_BYTES / 1024} KiB in all): send fewer or shorter headers` } as const;

/** The 414 or 431 a request's head earns, or undefined when it is within the limits. */
export function requestHeadRefusal(request: IncomingMessage): Reply | undefined {
  if (Buffer.byteLength(request.url ?? '', 'latin1') > MAX_TARGET_BYTES) return problem(URI_TOO_LONG.status, URI_TOO_LONG.title, { detail: URI_TOO_LONG.detail });
  let bytes = 0;
  const raw = request.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) bytes += Buffer.byteLength(raw[i]!, 'latin1') + Buffer.byteLength(raw[i + 1] ?? '', 'latin1') + 4;
  return bytes > MAX_HEADER_BYTES ? problem(HEADERS_TOO_LARGE.status, HEADERS_TOO_LARGE.title, { detail: HEADERS_TOO_LARGE.detail }) : undefined;
}

/**
 * For a head node:http refused as over MAX_HEAD_BYTES, from the bytes it was reading then: true
 * when the request line is what overflowed. Either that read holds the start of the request line
 * (a method, a space) and the line has not ended or is over MAX_TARGET_BYTES; or the read
 * continues a head begun earlier and its first line ends in the HTTP version, so the request line
 * filled the reads before. A read that only continues a long line is taken as headers (431).
 */
export function requestLineOverflowed(rawPacket: unknown): boolean {
  if (!Buffer.isBuffer(rawPacket)) return false;
  const text = rawPacket.toString('latin1');
  const end = text.indexOf('\r\n');
  if (/^[A-Z]+ /.test(text)) return end === -1 || end > MAX_TARGET_BYTES;
  return end !== -1 && / HTTP\/1\.[01]$/.test(text.slice(Math.max(0, end - 9), end));
}
