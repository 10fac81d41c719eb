// A closed-loop HTTP load generator on node:http alone: a fixed number of workers, each with
// its own keep-alive connection, sending the next request as soon as the last answer ended.

import { Agent, request as httpRequest } from 'node:http';
import { percentile } from './percentile.ts';

export interface LoadRequest {
  path: string;
  method?: string;
  headers?: Record<string, string>;
  /** A fixed body, or a function making one per request (for unique ids, fresh signatures). */
  body?: string | Buffer | (() => { body: string | Buffer; headers?: Record<string, string> });
}

export interface LoadResult {
  requests: number;
  rps: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  errors: number;
  /** Count of each status code seen. */
  statuses: Record<string, number>;
  /** Every successful request's latency in ms, ascending (for merging runs). */
  samples: number[];
}

/** Runs `request` against `baseUrl` for warmupMs (discarded) then durationMs. */
export async function runLoad(
  baseUrl: string,
  options: { request: LoadRequest; concurrency: number; durationMs: number; warmupMs: number; expectStatus?: number },
): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  try {
    await phase(baseUrl, agent, options, options.warmupMs, undefined);
    const samples: number[] = [];
    const statuses: Record<string, number> = {};
    const started = process.hrtime.bigint();
    const errors = await phase(baseUrl, agent, options, options.durationMs, { samples, statuses });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    samples.sort((a, b) => a - b);
    return {
      requests: samples.length,
      rps: samples.length / seconds,
      p50_ms: percentile(samples, 0.5),
      p95_ms: percentile(samples, 0.95),
      p99_ms: percentile(samples, 0.99),
      errors,
      statuses,
      samples,
    };
  } finally {
    agent.destroy();
  }
}

async function phase(
  baseUrl: string,
  agent: Agent,
  options: { request: LoadRequest; concurrency: number; expectStatus?: number },
  durationMs: number,
  record: { samples: number[]; statuses: Record<string, number> } | undefined,
): Promise<number> {
  const end = Date.now() + durationMs;
  let errors = 0;
  const url = new URL(options.request.path, baseUrl);
  const worker = async () => {
    while (Date.now() < end) {
      const t0 = process.hrtime.bigint();
      const status = await once(url, agent, options.request);
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      const ok = status !== 0 && (options.expectStatus === undefined ? status < 400 : status === options.expectStatus);
      if (record) {
        record.statuses[String(status)] = (record.statuses[String(status)] ?? 0) + 1;
        if (ok) record.samples.push(ms);
      }
      if (!ok) errors++;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return errors;
}

function once(url: URL, agent: Agent, spec: LoadRequest): Promise<number> {
  let body: string | Buffer | undefined;
  let headers = spec.headers ?? {};
  if (typeof spec.body === 'function') {
    const made = spec.body();
    body = made.body;
    headers = { ...headers, ...made.headers };
  } else body = spec.body;
  return new Promise((resolve) => {
    const req = httpRequest(url, { method: spec.method ?? 'GET', agent, headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(0));
    });
    // A transport error is a counted failure (status 0), not a crash of the generator.
    req.on('error', () => resolve(0));
    req.end(body);
  });
}
