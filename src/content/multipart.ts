// A streaming multipart/form-data parser (RFC 7578 over RFC 2046). It reads the request in the
// chunks the socket delivers and hands each file part's bytes to a sink as they arrive, awaiting
// the sink (backpressure), so an upload is never held whole in memory. Plain fields are small
// and collected as text; headers, field sizes and part counts are bounded.

import type { Readable } from 'node:stream';

export const MAX_PART_HEADER_BYTES = 16 * 1024;
export const MAX_FIELD_BYTES = 64 * 1024;
export const MAX_PARTS = 64;

export class MultipartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MultipartError';
  }
}

export interface PartInfo {
  name: string;
  filename: string | undefined;
  contentType: string | undefined;
}

export interface FileSink {
  write(chunk: Buffer): Promise<void>;
  end(): Promise<void>;
}

export interface MultipartHandlers {
  /** A plain field, whole. Throw to stop the upload (e.g. a missing CSRF token before the file). */
  field(name: string, value: string): void;
  /** A part with a filename: return the sink for its bytes. */
  file(part: PartInfo): FileSink;
}

/** The boundary of a multipart/form-data Content-Type, or undefined. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  if (contentType === undefined || !/^multipart\/form-data\s*;/i.test(contentType)) return undefined;
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

/** Parses `stream` to its end, calling `handlers` in document order. Throws MultipartError for a malformed body. */
export async function parseMultipart(stream: Readable, boundary: string, handlers: MultipartHandlers): Promise<void> {
  const first = Buffer.from(`--${boundary}`);
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  let buffer: Buffer = Buffer.alloc(0);
  let state: 'preamble' | 'after-boundary' | 'headers' | 'body' | 'done' = 'preamble';
  let parts = 0;
  let sink: FileSink | undefined;
  let field: { name: string; chunks: Buffer[]; size: number } | undefined;

  const emit = async (bytes: Buffer) => {
    if (bytes.length === 0) return;
    if (sink) await sink.write(bytes);
    else if (field) {
      field.size += bytes.length;
      if (field.size > MAX_FIELD_BYTES) throw new MultipartError(`Field "${field.name}" is over ${MAX_FIELD_BYTES} bytes`);
      field.chunks.push(bytes);
    }
  };
  const closePart = async () => {
    if (sink) await sink.end();
    else if (field) handlers.field(field.name, Buffer.concat(field.chunks).toString('utf8'));
    sink = undefined;
    field = undefined;
  };

  let epilogue = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (state === 'done') {
      // The epilogue, which RFC 2046 says to ignore (usually a CRLF, or nothing more to read). The
      // stream is read to its end rather than left: leaving it destroys the request stream with an
      // AbortError and its stack trace per upload. One that goes on is left all the same.
      epilogue += chunk.length;
      if (epilogue > MAX_PART_HEADER_BYTES) break;
      continue;
    }
    if (state === 'body' && buffer.length < delimiter.length) {
      // Inside a part only a short tail is held back. Unless a delimiter starts in that tail,
      // hand the tail over and search the new chunk as it is: no copy of the upload's bytes.
      const joint = Buffer.concat([buffer, chunk.subarray(0, delimiter.length)]);
      const at = joint.indexOf(delimiter);
      if (at === -1 || at >= buffer.length) {
        await emit(buffer);
        buffer = chunk;
      } else buffer = Buffer.concat([buffer, chunk]);
    } else buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
    for (;;) {
      if (state === 'preamble') {
        // The first boundary may start the body (no CRLF before it).
        const at = buffer.indexOf(first);
        if (at === -1) {
          if (buffer.length > MAX_PART_HEADER_BYTES) throw new MultipartError('No multipart boundary found at the start of the body');
          break;
        }
        buffer = buffer.subarray(at + first.length);
        state = 'after-boundary';
      }
      if (state === 'after-boundary') {
        if (buffer.length < 2) break;
        if (buffer[0] === 0x2d && buffer[1] === 0x2d) {
          state = 'done';
          break;
        }
        const eol = buffer.indexOf('\r\n');
        if (eol === -1) {
          if (buffer.length > 1024) throw new MultipartError('Malformed boundary line');
          break;
        }
        if (buffer.subarray(0, eol).toString('latin1').trim() !== '') throw new MultipartError('Malformed boundary line');
        buffer = buffer.subarray(eol + 2);
        state = 'headers';
      }
      if (state === 'headers') {
        const end = buffer.indexOf('\r\n\r\n');
        if (end === -1) {
          if (buffer.length > MAX_PART_HEADER_BYTES) throw new MultipartError(`Part headers are over ${MAX_PART_HEADER_BYTES} bytes`);
          break;
        }
        if (++parts > MAX_PARTS) throw new MultipartError(`More than ${MAX_PARTS} parts`);
        const info = parsePartHeaders(buffer.subarray(0, end).toString('utf8'));
        buffer = buffer.subarray(end + 4);
        if (info.filename !== undefined) sink = handlers.file(info);
        else field = { name: info.name, chunks: [], size: 0 };
        state = 'body';
      }
      if (state === 'body') {
        const at = buffer.indexOf(delimiter);
        if (at === -1) {
          // Keep a tail that might be the start of the delimiter.
          const keep = Math.min(buffer.length, delimiter.length - 1);
          await emit(buffer.subarray(0, buffer.length - keep));
          buffer = Buffer.from(buffer.subarray(buffer.length - keep));
          break;
        }
        await emit(buffer.subarray(0, at));
        await closePart();
        buffer = buffer.subarray(at + delimiter.length);
        state = 'after-boundary';
        continue;
      }
      break;
    }
  }
  if (state !== 'done') throw new MultipartError('The multipart body ended before its closing boundary');
}

function parsePartHeaders(text: string): PartInfo {
  let disposition: string | undefined;
  let contentType: string | undefined;
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new MultipartError('Malformed part header line');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'content-disposition') disposition = value;
    else if (name === 'content-type') contentType = value;
  }
  if (disposition === undefined || !/^form-data\b/i.test(disposition)) throw new MultipartError('A part has no "Content-Disposition: form-data" header');
  const name = dispositionParam(disposition, 'name');
  if (name === undefined || name === '') throw new MultipartError('A part has no field name');
  return { name, filename: dispositionParam(disposition, 'filename'), contentType };
}

function dispositionParam(disposition: string, key: string): string | undefined {
  const pattern = new RegExp(`;\\s*${key}="((?:[^"\\\\]|\\\\.)*)"|;\\s*${key}=([^;\\s"]+)`, 'i');
  const match = pattern.exec(disposition);
  if (!match) return undefined;
  return match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2];
}
