// Readiness probes of the consumed upstreams (model runtime, vector store, governance): one GET
// of the upstream's readiness path with a short timeout, its result kept for a few seconds so that a readiness poll cannot
// turn into a flood of upstream requests.

import { request } from 'node:http';
import type { HealthCheck } from '../kernel/index.ts';

export const PROBE_TIMEOUT_MS = 1000;
export const PROBE_CACHE_MS = 5000;

export type UpstreamProbe = () => Promise<HealthCheck>;

/**
 * A cached probe of `${baseUrl}${path}` (path `/readyz` unless the upstream publishes readiness
 * elsewhere, as the governance service does at `/health`); undefined base URL: a `warn` saying it
 * is not configured.
 * Upstreams are consumed, not required by the API's own surfaces, so failures are `warn`.
 */
export function createUpstreamProbe(baseUrl: string | undefined, options: { variable: string; path?: string; now?: () => number; timeoutMs?: number }): UpstreamProbe {
  if (baseUrl === undefined) {
    const check: HealthCheck = { status: 'warn', output: `not configured (${options.variable})` };
    return () => Promise.resolve(check);
  }
  const now = options.now ?? Date.now;
  let cached: { at: number; check: Promise<HealthCheck> } | undefined;
  return () => {
    if (cached === undefined || now() - cached.at >= PROBE_CACHE_MS) {
      cached = { at: now(), check: probe(baseUrl, options.path ?? '/readyz', options.timeoutMs ?? PROBE_TIMEOUT_MS) };
    }
    return cached.check;
  };
}

function probe(baseUrl: string, path: string, timeoutMs: number): Promise<HealthCheck> {
  return new Promise((resolve) => {
    const started = Date.now();
    const req = request(`${baseUrl}${path}`, { method: 'GET', timeout: timeoutMs, agent: false }, (res) => {
      res.resume();
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        const elapsed = Date.now() - started;
        resolve(status >= 200 && status < 300
          ? { status: 'pass', observedValue: elapsed, observedUnit: 'ms' }
          : { status: 'warn', output: `GET ${path} answered ${status}` });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    // Unreachable is a finding for the readiness document, not an error of the service.
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ status: 'warn', output: `unreachable: ${error.code ?? error.message}` }));
    req.end();
  });
}
