// Reads a request body safely: content type first (415), then bytes with the limit enforced
// while streaming (413 as soon as the limit is passed, without buffering the rest), then a
// strict JSON parse (400 naming the position) with a nesting-depth limit (400).

import type { IncomingMessage } from 'node:http';
import { MIMEType } from 'node:util';
import { AirlockError } from '../errors.ts';

/** 1 MiB: DESIGN.md's default JSON body limit. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;
/** DESIGN.md's nesting-depth limit for JSON bodies. */
export const MAX_JSON_DEPTH = 64;

/**
 * The Content-Type header parsed by util.MIMEType (WHATWG MIME Sniffing), or undefined when it is
 * absent, empty or no media type at all (`application/json, text/plain`, `json`).
 */
function parseMediaType(header: string | undefined): MIMEType | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  try {
    return new MIMEType(header);
  } catch {
    return undefined; // ERR_INVALID_MIME_SYNTAX: the caller says the header is no media type.
  }
}

/**
 * The media type of a Content-Type value, lower-cased and without parameters, as util.MIMEType
 * reads it; undefined when absent or no media type at all.
 *
 * @example
 * mediaTypeOf('Application/JSON; charset=utf-8') // 'application/json'
 */
export function mediaTypeOf(header: string | undefined): string | undefined {
  return parseMediaType(header)?.essence;
}

/**
 * Throws AirlockError('unsupported_media_type') unless the request's media type is accepted. A JSON
 * body (RFC 8259 8.1: UTF-8 only) declared in another charset is refused rather than misread.
 */
export function checkContentType(header: string | undefined, accepted: readonly string[]): void {
  const parsed = parseMediaType(header);
  const type = parsed?.essence;
  if (type !== undefined && accepted.includes(type)) {
    const charset = parsed!.params.get('charset')?.toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8' && (type === 'application/json' || type.endsWith('+json'))) {
      throw new AirlockError('unsupported_media_type', `Cannot read a JSON body in charset "${charset}": send it as UTF-8`);
    }
    return;
  }
  const got = header === undefined || header.trim() === '' ? 'no Content-Type' : parsed === undefined ? `Content-Type "${header.slice(0, 100)}", which is no media type,` : `Content-Type "${type}"`;
  throw new AirlockError('unsupported_media_type', `Cannot read a body with ${got}: send ${accepted.join(' or ')}`);
}

/**
 * Reads the body into one Buffer, refusing it once more than `limit` bytes arrived (or when
 * Content-Length announces more). On refusal the stream is paused, not drained.
 */
export function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = request.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    return Promise.reject(tooLarge(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
      request.off('aborted', onAborted);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        request.pause();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      cleanup();
      // A stream error while reading means the client's side failed (reset, timeout), not ours.
      reject(error instanceof AirlockError ? error : new AirlockError('client_aborted', `Request body could not be read: ${error.message}`, { cause: error }));
    };
    const onAborted = () => onError(new AirlockError('client_aborted', 'Request aborted by the client before its body was complete'));
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
    request.on('aborted', onAborted);
  });
}

function tooLarge(limit: number): AirlockError {
  return new AirlockError('body_too_large', `Request body is larger than ${limit} bytes: send a smaller body`);
}

/**
 * Parses JSON text strictly (RFC 8259, UTF-8, no BOM) after checking its nesting depth.
 * Throws AirlockError('malformed_json' | 'too_deep') naming what and where.
 */
export function parseJsonBody(bytes: Buffer, maxDepth = MAX_JSON_DEPTH): unknown {
  if (bytes.length === 0) throw new AirlockError('malformed_json', 'Request body is empty: send a JSON document');
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    throw new AirlockError('malformed_json', 'Request body starts with a byte order mark: send JSON without one');
  }
  const depthAt = findExcessDepth(bytes, maxDepth);
  if (depthAt !== -1) {
    throw new AirlockError('too_deep', `Request body nests deeper than ${maxDepth} levels at byte ${depthAt}: flatten it`);
  }
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    // TextDecoder's own message says nothing useful to a client; ours names the problem.
    throw new AirlockError('malformed_json', 'Request body is not valid UTF-8: send UTF-8 encoded JSON');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new AirlockError('malformed_json', `Request body is not valid JSON: ${(error as Error).message}`);
  }
  // I-JSON (RFC 7493): member names are unique; JSON.parse would silently keep the last one.
  const duplicate = findDuplicateKey(text);
  if (duplicate !== undefined) throw new AirlockError('malformed_json', `Request body repeats the member name at "${duplicate}": send each name once`);
  // Escapes can still spell a lone surrogate, which no UTF-8 text (and no I-JSON) can hold.
  if (LONE_SURROGATE_ESCAPE.test(text)) {
    const where = findIllFormed(value, '');
    if (where !== undefined) throw new AirlockError('malformed_json', `Request body holds a lone surrogate escape at "${where}": send well-formed Unicode`);
  }
  return value;
}

const LONE_SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

// One decoder for every body: decode() without { stream: true } keeps no state between calls.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

interface Frame {
  /** Member names seen so far; undefined for an array. */
  keys: Set<string> | undefined;
  expectKey: boolean;
  /** The container this one is in, and the member name or index it is at there (its pointer is made only for a duplicate). */
  parent: Frame | undefined;
  at: string | number;
  /** Index of the next array element, for pointers. */
  index: number;
  lastKey: string;
}

function pointerOf(frame: Frame): string {
  let pointer = '';
  for (let f: Frame | undefined = frame; f?.parent !== undefined; f = f.parent) pointer = `/${typeof f.at === 'number' ? f.at : escapePointer(f.at)}${pointer}`;
  return pointer;
}

/**
 * JSON Pointer of the first member name repeated within one object, or undefined. `text` must
 * already be valid JSON (this walks its tokens, it does not validate them).
 */
export function findDuplicateKey(text: string): string | undefined {
  const stack: Frame[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const top = stack[stack.length - 1];
    if (c === 0x22) {
      let end = i + 1;
      while (text.charCodeAt(end) !== 0x22) end += text.charCodeAt(end) === 0x5c ? 2 : 1;
      if (top?.keys && top.expectKey) {
        // A name without escapes is its own text.
        const raw = text.slice(i + 1, end);
        const key = raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
        if (top.keys.has(key)) return `${pointerOf(top)}/${escapePointer(key)}`;
        top.keys.add(key);
        top.lastKey = key;
        top.expectKey = false;
      }
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      const at = top === undefined ? '' : top.keys ? top.lastKey : top.index;
      stack.push({ keys: c === 0x7b ? new Set() : undefined, expectKey: c === 0x7b, parent: top, at, index: 0, lastKey: '' });
    } else if (c === 0x7d || c === 0x5d) {
      stack.pop();
    } else if (c === 0x2c && top) {
      if (top.keys) top.expectKey = true;
      else top.index++;
    }
  }
  return undefined;
}

function escapePointer(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** JSON Pointer of the first string or key that is not well-formed Unicode, or undefined. */
function findIllFormed(value: unknown, pointer: string): string | undefined {
  if (typeof value === 'string') return value.isWellFormed() ? undefined : pointer;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const here = `${pointer}/${escapePointer(key)}`;
    if (!key.isWellFormed()) return here;
    const found = findIllFormed(item, here);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Byte offset where nesting first exceeds maxDepth, or -1. Brackets inside strings do not count. */
function findExcessDepth(bytes: Uint8Array, maxDepth: number): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (inString) {
      if (b === 0x5c) i++; // backslash: skip the escaped byte
      else if (b === 0x22) inString = false;
    } else if (b === 0x22) inString = true;
    else if (b === 0x5b || b === 0x7b) {
      if (++depth > maxDepth) return i;
    } else if (b === 0x5d || b === 0x7d) depth--;
  }
  return -1;
}
