// What a mailbox message's Content-Type promises about its body. Subscribers trust the type they
// receive, so a body published as JSON (by the adapter or by `jhf-shuttle publish`) must be JSON.

import { isAirlockError, parseJsonBody } from '../kernel/index.ts';

const JSON_MEDIA_TYPES = new Set(['application/json', 'application/cloudevents+json']);

/** Why `body` cannot go out as `contentType` (a JSON type and not JSON), or undefined when it can. */
export function bodyMismatch(contentType: string, body: Buffer): string | undefined {
  if (!JSON_MEDIA_TYPES.has(contentType.split(';')[0]!.trim().toLowerCase())) return undefined;
  try {
    parseJsonBody(body);
    return undefined;
  } catch (error) {
    if (!isAirlockError(error)) throw error;
    return error.message;
  }
}

/** The type a body goes out as when its publisher named none: JSON, else UTF-8 text, else bytes. */
export function contentTypeOf(body: Buffer): string {
  if (bodyMismatch('application/json', body) === undefined) return 'application/json';
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(body);
    return 'text/plain';
  } catch {
    return 'application/octet-stream';
  }
}
