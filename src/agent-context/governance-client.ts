// Calls to the governance service's worker listener (GOVERNANCE_URL) with the service auth token
// (AGENT_CONTEXT_SERVICE_AUTH_TOKEN): published truth by GET (kept for a few seconds, so a read
// of this service does not cost a round trip each time) and context compositions by POST (never
// kept). Every call is counted by outcome; nothing here throws for an upstream's failure.

import type { Counter } from './metrics.ts';

/** How long published truth is reused before it is read again. */
export const TRUTH_TTL_MS = 5_000;

export type UpstreamOutcome = 'ok' | 'http_error' | 'unreachable' | 'not_configured' | 'auth_missing' | 'invalid_json' | 'invalid_body';

export type UpstreamResult =
  | { ok: true; status: number; body: unknown }
  | { ok: false; outcome: Exclude<UpstreamOutcome, 'ok'>; status?: number; body?: unknown; reason: string };

export interface GovernanceClient {
  /** GET a published route, reused for TRUTH_TTL_MS. */
  truth(path: string): Promise<UpstreamResult>;
  /** POST /api/v1/context-composer/context: the live upstream context path. */
  compose(body: unknown, requestId: string): Promise<UpstreamResult>;
  /** Epoch seconds of the last successful call, or undefined. */
  lastSuccess(): number | undefined;
  readonly configured: boolean;
}

export const COMPOSER_PATH = '/api/v1/context-composer/context';

export function createGovernanceClient(options: {
  url: string | undefined;
  token: string;
  timeoutMs: number;
  requests: Counter;
  now: () => number;
}): GovernanceClient {
  const cache = new Map<string, { at: number; result: Promise<UpstreamResult> }>();
  let lastSuccess: number | undefined;

  const call = async (method: 'GET' | 'POST', path: string, body?: unknown, requestId?: string): Promise<UpstreamResult> => {
    const route = method === 'POST' ? COMPOSER_PATH : path;
    const done = (result: UpstreamResult): UpstreamResult => {
      options.requests.inc({ route, outcome: result.ok ? 'ok' : result.outcome });
      if (result.ok) lastSuccess = options.now() / 1000;
      return result;
    };
    if (options.url === undefined) return done({ ok: false, outcome: 'not_configured', reason: 'GOVERNANCE_URL is not set' });
    if (options.token === '') return done({ ok: false, outcome: 'auth_missing', reason: 'AGENT_CONTEXT_SERVICE_AUTH_TOKEN is empty or unset' });
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${options.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${options.token}`,
          accept: 'application/json',
          ...(body !== undefined && { 'content-type': 'application/json' }),
          ...(requestId && { 'x-request-id': requestId }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(options.timeoutMs),
        redirect: 'error',
      });
      // Inside the try: the timeout also covers a body that stalls after its headers.
      text = await response.text();
    } catch (error) {
      const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${options.timeoutMs} ms` : ((error as { cause?: Error }).cause?.message ?? (error as Error).message);
      return done({ ok: false, outcome: 'unreachable', reason: `Cannot reach governance at "${options.url}${path}": ${reason}` });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return done({ ok: false, outcome: 'invalid_json', status: response.status, reason: `Governance answered ${method} ${path} with ${response.status} and a body that is not JSON` });
    }
    if (response.status !== 200) {
      const detail = typeof (parsed as { detail?: unknown })?.detail === 'string' ? `: ${(parsed as { detail: string }).detail}` : '';
      return done({ ok: false, outcome: 'http_error', status: response.status, body: parsed, reason: `Governance answered ${method} ${path} with ${response.status}${detail}` });
    }
    // Governance publishes JSON objects; anything else (null, an array, a string) is not its truth.
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      return done({ ok: false, outcome: 'invalid_body', status: 200, reason: `Governance answered ${method} ${path} with 200 and JSON that is not an object` });
    }
    return done({ ok: true, status: 200, body: parsed });
  };

  return {
    configured: options.url !== undefined && options.token !== '',
    truth(path) {
      const now = options.now();
      const hit = cache.get(path);
      if (hit && now - hit.at < TRUTH_TTL_MS) return hit.result;
      const result = call('GET', path);
      cache.set(path, { at: now, result });
      // A failure is not kept: the next read asks again.
      void result.then((r) => {
        if (!r.ok && cache.get(path)?.result === result) cache.delete(path);
      });
      return result;
    },
    compose: (body, requestId) => call('POST', COMPOSER_PATH, body, requestId),
    lastSuccess: () => lastSuccess,
  };
}
