// Writes a Reply to the wire: serialization, a strong ETag with If-None-Match -> 304 for GET
// and HEAD, no body for HEAD, and closing the connection when the request was not read whole.

import { hash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { JSON_TYPE } from './reply.ts';
import type { Reply } from './route.ts';

export interface SendOptions {
  /** Add an ETag and honour If-None-Match (GET/HEAD 200 replies only). */
  etag: boolean;
  /** Close the connection after this reply (the body was refused unread, or the server drains). */
  close: boolean;
}

/** A strong ETag: the quoted base64url SHA-256 of the representation's bytes (a string counts as UTF-8). */
export function strongEtag(payload: Uint8Array | string): string {
  // The one-shot form makes no Hash object: every 200 to a GET is hashed.
  return `"${hash('sha256', payload, 'base64url')}"`;
}

/** True when an If-None-Match header value matches `etag` (weak comparison, RFC 9110 13.1.2). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}

export function sendReply(request: IncomingMessage, response: ServerResponse, reply: Reply, options: SendOptions): void {
  if (reply.stream) return sendStream(request, response, reply, options);
  const payload = replyPayload(reply);
  const headers: Record<string, string | number> = { 'x-content-type-options': 'nosniff', ...reply.headers };
  if (payload.length > 0 || reply.status !== 204) headers['content-type'] = replyContentType(reply);
  if (options.close) headers['connection'] = 'close';
  const readOnly = request.method === 'GET' || request.method === 'HEAD';
  if (options.etag && readOnly && reply.status === 200) {
    // A handler that serves cached bytes may send their tag with them, as a stream's handler does.
    const etag = reply.headers?.['etag'] ?? strongEtag(payload);
    headers['etag'] = etag;
    if (etagMatches(request.headers['if-none-match'], etag)) return notModified(response, headers);
  }
  headers['content-length'] = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
  response.writeHead(reply.status, headers);
  if (options.close && !request.complete) {
    // The rest of the body was refused: do not read it, hang up once the reply is out.
    response.once('finish', () => request.socket?.destroySoon());
  }
  if (request.method === 'HEAD') return void response.end();
  // node:http writes a string body in one go with the head, but then encodes the head as UTF-8:
  // a header value with a character from U+0080 to U+00FF must go out as its one latin1 byte.
  response.end(typeof payload === 'string' && !asciiHeaders(headers) ? Buffer.from(payload, 'utf8') : payload);
}

function asciiHeaders(headers: Record<string, string | number>): boolean {
  for (const value of Object.values(headers)) if (typeof value === 'string' && NON_ASCII.test(value)) return false;
  return true;
}

const NON_ASCII = /[^\x00-\x7f]/;

/** The media type a reply is sent with. */
export function replyContentType(reply: Reply): string {
  return reply.contentType ?? (reply.raw !== undefined ? 'text/plain; charset=utf-8' : JSON_TYPE);
}

/** The bytes a reply is sent as. */
export function replyBytes(reply: Reply): Buffer {
  const payload = replyPayload(reply);
  return typeof payload === 'string' ? Buffer.from(payload, 'utf8') : Buffer.from(payload);
}

/**
 * What a reply is sent as: text stays a string (UTF-8 on the wire), because node:http writes a
 * string body together with the head in one write, while a Buffer body takes a second, corked chunk.
 */
export function replyPayload(reply: Reply): string | Uint8Array {
  if (reply.raw !== undefined) return reply.raw;
  if (reply.body === undefined) return '';
  return JSON.stringify(reply.body);
}

/** A streamed reply: the handler sets its own ETag (a content hash it already knows); HEAD sends no body. */
function sendStream(request: IncomingMessage, response: ServerResponse, reply: Reply, options: SendOptions): void {
  const source = reply.stream!;
  const headers: Record<string, string | number> = { 'x-content-type-options': 'nosniff', ...reply.headers, 'content-type': replyContentType(reply) };
  if (options.close) headers['connection'] = 'close';
  const etag = reply.headers?.['etag'];
  if (etag !== undefined && reply.status === 200 && etagMatches(request.headers['if-none-match'], etag)) return notModified(response, headers);
  headers['content-length'] = source.length;
  response.writeHead(reply.status, headers);
  if (request.method === 'HEAD') {
    response.end();
    return;
  }
  const body = source.open();
  // A source that fails mid-way cannot change the status any more: cut the connection instead.
  body.on('error', () => response.destroy());
  body.pipe(response);
}

/** 304: the reply's headers without a body or its type. */
function notModified(response: ServerResponse, headers: Record<string, string | number>): void {
  delete headers['content-type'];
  response.writeHead(304, headers);
  response.end();
}
