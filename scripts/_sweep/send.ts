// One GET over node:http or node:https with a deadline covering the whole exchange (connect,
// headers and body). Failures come back as data with a stable code, so the run can tell a
// target that was never reachable from a connection dropped mid-sweep.

import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';

export interface SendOptions {
  timeoutMs: number;
  /** Keep the response body (the export); swept bodies are read and dropped. */
  keepBody?: boolean;
}

export type SendOutcome =
  | { ok: true; status: number; retryAfter: string | undefined; body: Buffer | undefined; latencyMs: number }
  | { ok: false; code: string; message: string; latencyMs: number };

export type SendGet = (url: string, options: SendOptions) => Promise<SendOutcome>;

/** Error codes that mean no connection was ever made. */
export const CONNECT_ERROR_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

const USER_AGENT = 'airlock-throttled-api-sweep';

/** Sends `GET url`; never rejects. */
export function sendGet(url: string, options: SendOptions): Promise<SendOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round((performance.now() - started) * 10) / 10;
  const signal = AbortSignal.timeout(options.timeoutMs);
  return new Promise((resolve) => {
    const fail = (error: unknown) => {
      const timedOut = signal.aborted;
      const code = timedOut ? 'timeout' : ((error as NodeJS.ErrnoException)?.code ?? 'transport');
      const message = timedOut ? `No complete response within ${options.timeoutMs} ms` : ((error as Error)?.message ?? String(error));
      resolve({ ok: false, code, message, latencyMs: elapsed() });
    };
    let target: URL;
    try {
      target = new URL(url);
    } catch (error) {
      fail(error);
      return;
    }
    const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = request(target, { method: 'GET', signal, headers: { accept: 'application/json, */*;q=0.5', 'user-agent': USER_AGENT } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => {
        if (options.keepBody) chunks.push(chunk);
      });
      res.on('error', fail);
      res.on('close', () => {
        if (!res.complete) fail(Object.assign(new Error('Connection closed before the response ended'), { code: 'ECONNRESET' }));
      });
      res.on('end', () => {
        const header = res.headers['retry-after'];
        resolve({
          ok: true,
          status: res.statusCode ?? 0,
          retryAfter: Array.isArray(header) ? header[0] : header,
          body: options.keepBody ? Buffer.concat(chunks) : undefined,
          latencyMs: elapsed(),
        });
      });
    });
    req.on('error', fail);
    req.end();
  });
}
