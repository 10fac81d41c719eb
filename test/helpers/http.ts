// A small HTTP client for tests: one request, one fresh connection, the whole answer as text.

import { request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';

export interface TestResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json(): unknown;
}

export function send(
  url: string,
  init: { method?: string; headers?: Record<string, string | number | undefined>; body?: string | Uint8Array } = {},
): Promise<TestResponse> {
  // An undefined header value means "do not send it", so tables of cases can switch headers off.
  const headers = Object.fromEntries(Object.entries(init.headers ?? {}).filter((entry): entry is [string, string | number] => entry[1] !== undefined));
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: init.method ?? 'GET', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/** Sends a JSON body with the right Content-Type. */
export function sendJson(url: string, body: unknown, init: { method?: string; headers?: Record<string, string> } = {}): Promise<TestResponse> {
  return send(url, {
    method: init.method ?? 'POST',
    headers: { 'content-type': 'application/json', ...init.headers },
    body: JSON.stringify(body),
  });
}
