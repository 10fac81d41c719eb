// Answers a request that node:http refused before it became a request (malformed start line,
// a head over maxHeaderSize, a header timeout): a problem+json body with the status that says
// what was wrong, then the connection closes. Never throws, never crashes the server.

import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { problem } from './reply.ts';
import { HEADERS_TOO_LARGE, requestLineOverflowed, URI_TOO_LONG } from './request-head.ts';
import { replyBytes, replyContentType } from './send.ts';

/** The status and problem for a parser or timeout error code of node:http (and the bytes it was parsing). */
export function clientErrorReply(code: string | undefined, rawPacket?: unknown): { status: number; title: string; detail: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return requestLineOverflowed(rawPacket) ? { ...URI_TOO_LONG } : { ...HEADERS_TOO_LARGE };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, title: 'Request timeout', detail: 'The request did not arrive in time: send it again' };
    default:
      return { status: 400, title: 'Bad request', detail: 'The request could not be parsed as HTTP/1.1' };
  }
}

/**
 * The server's 'clientError' handler.
 *
 * @example
 * server.on('clientError', answerClientError);
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const { status, title, detail } = clientErrorReply(error.code, (error as { rawPacket?: unknown }).rawPacket);
  const reply = problem(status, title, { detail });
  const body = replyBytes(reply);
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    `content-type: ${replyContentType(reply)}`,
    `content-length: ${body.length}`,
    'x-content-type-options: nosniff',
    'connection: close',
  ];
  socket.end(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), body]));
}
