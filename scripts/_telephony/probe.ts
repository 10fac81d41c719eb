// What every telephony check sends: one HTTP request with a timeout (no redirect followed), or
// one TCP connect. A target that cannot be reached throws Unreachable (its checks fail, naming
// it; exit 2 only for the governance service); any answer, whatever its status, is returned for
// the check to judge.

import { connect } from 'node:net';
import { readResponseBounded } from '../_read-response-bounded.ts';

export class Unreachable extends Error {}

export interface HttpAnswer {
  status: number;
  contentType: string;
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  json: unknown;
  headers: Headers;
}

export async function httpGet(url: string, options: { timeoutMs: number; headers?: Record<string, string> }): Promise<HttpAnswer> {
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: 'application/json', ...options.headers }, signal: AbortSignal.timeout(options.timeoutMs), redirect: 'manual' });
  } catch (error) {
    const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${options.timeoutMs} ms` : ((error as { cause?: Error }).cause?.message ?? (error as Error).message);
    throw new Unreachable(`Cannot reach "${url}": ${reason}`);
  }
  let text: string;
  try {
    text = await readResponseBounded(response, MAX_ANSWER_BYTES);
  } catch (error) {
    throw new Unreachable(`Cannot read the answer of "${url}": ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // Not JSON: the check decides whether that matters.
    json = undefined;
  }
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', text, json, headers: response.headers };
}

/** Far more than any answer checked here (the governance OpenAPI export is about 320 KB). */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/** Whether a TCP connection to host:port opens within the timeout; the reason when not. */
export function tcpOpen(host: string, port: number, timeoutMs: number): Promise<{ open: boolean; reason: string }> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (open: boolean, reason: string) => {
      socket.destroy();
      resolve({ open, reason });
    };
    socket.setTimeout(timeoutMs, () => done(false, `no connection within ${timeoutMs} ms`));
    socket.once('connect', () => done(true, 'accepts connections'));
    socket.once('error', (error: NodeJS.ErrnoException) => done(false, error.code ?? error.message));
  });
}
