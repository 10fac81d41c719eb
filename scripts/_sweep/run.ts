// Runs a planned sweep: one request at a time through the budget, 429 retried with backoff
// (Retry-After honoured), every outcome classified and recorded. A target that refuses the
// very first connection is an environment problem (exit 2), not a failed sweep.

import { AirlockError } from '../../src/kernel/index.ts';
import type { Budget } from './budget.ts';
import { classifyStatus } from './classify.ts';
import type { SweepClass } from './classify.ts';
import type { SweepClock } from './clock.ts';
import type { PlannedOperation } from './plan.ts';
import { CONNECT_ERROR_CODES } from './send.ts';
import type { SendGet } from './send.ts';

/** Backoff before retry n (1-based) when a 429 names no Retry-After: 2 s, 4 s, 8 s ... */
export const BACKOFF_BASE_MS = 2_000;
export const BACKOFF_MAX_MS = 60_000;
/** A Retry-After longer than this is not waited for: the request is recorded as rate_limited. */
export const MAX_RETRY_AFTER_MS = 300_000;

export interface SweptRequest {
  method: 'GET';
  path_template: string;
  /** The concrete path and query requested (prefix included); null when unresolved. */
  path: string | null;
  parameters: Record<string, string>;
  /** Final HTTP status; null when no response arrived. */
  status: number | null;
  class: SweepClass;
  /** Latency of the last attempt in ms; null when nothing was sent. */
  latency_ms: number | null;
  attempts: number;
  /** Why the request failed or was retried, when it says more than the status. */
  detail?: string;
}

export interface RunOptions {
  baseUrl: string;
  prefix: string;
  budget: Budget;
  clock: SweepClock;
  send: SendGet;
  retry429: number;
  timeoutMs: number;
  /** The target already answered (the export came from it): a refused connection is then a failure, not exit 2. */
  reachable?: boolean;
  /** --allow-not-ready: a readiness route's 503 does not fail the run. */
  allowNotReady?: boolean;
  /** Called after each operation, with how many are done. */
  onResult?: (result: SweptRequest, done: number) => void;
}

/** Sweeps `operations` in order. Throws AirlockError('environment') when the target is unreachable. */
export async function runSweep(operations: readonly PlannedOperation[], options: RunOptions): Promise<SweptRequest[]> {
  const results: SweptRequest[] = [];
  const state = { answered: options.reachable === true };
  for (const operation of operations) {
    const result = operation.path === undefined ? unresolvedResult(operation) : await sweepOne(operation, operation.path, { ...options, state });
    results.push(result);
    options.onResult?.(result, results.length);
  }
  return results;
}

function unresolvedResult(operation: PlannedOperation): SweptRequest {
  return {
    method: 'GET',
    path_template: operation.template,
    path: null,
    parameters: operation.parameters,
    status: null,
    class: 'unresolved_parameter',
    latency_ms: null,
    attempts: 0,
    detail: operation.unresolved.join('; '),
  };
}

async function sweepOne(operation: PlannedOperation, path: string, options: RunOptions & { state: { answered: boolean } }): Promise<SweptRequest> {
  const concrete = `${options.prefix}${path}`;
  const url = `${options.baseUrl.replace(/\/+$/, '')}${concrete}`;
  const base = { method: 'GET' as const, path_template: operation.template, path: concrete, parameters: operation.parameters };
  for (let attempt = 1; ; attempt += 1) {
    await options.budget.acquire();
    const outcome = await options.send(url, { timeoutMs: options.timeoutMs });
    if (!outcome.ok && !options.state.answered && CONNECT_ERROR_CODES.has(outcome.code)) {
      throw new AirlockError('environment', `Cannot reach "${options.baseUrl}": ${outcome.code}: ${outcome.message}`);
    }
    if (!outcome.ok) {
      return { ...base, status: null, class: 'transport_error', latency_ms: outcome.latencyMs, attempts: attempt, detail: `${outcome.code}: ${outcome.message}` };
    }
    options.state.answered = true;
    const done = { ...base, status: outcome.status, latency_ms: outcome.latencyMs, attempts: attempt };
    if (outcome.status !== 429) return { ...done, class: classifyStatus(outcome.status, { ...operation, allowNotReady: options.allowNotReady === true }) };
    if (attempt > options.retry429) {
      return { ...done, class: 'rate_limited', detail: `Still 429 after ${options.retry429} retr${options.retry429 === 1 ? 'y' : 'ies'}` };
    }
    const wait = retryAfterMs(outcome.retryAfter, options.clock.now()) ?? Math.min(BACKOFF_BASE_MS * 2 ** (attempt - 1), BACKOFF_MAX_MS);
    if (wait > MAX_RETRY_AFTER_MS) {
      return { ...done, class: 'rate_limited', detail: `Retry-After "${outcome.retryAfter}" asks for more than ${MAX_RETRY_AFTER_MS / 1000} s` };
    }
    await options.clock.sleep(wait);
  }
}

/** Retry-After as delay-seconds or an HTTP-date, in ms from `now`; undefined when absent or malformed. */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  // Only the IMF-fixdate family of RFC 9110 carries "GMT"; other strings Date.parse accepts are not HTTP-dates.
  if (!Number.isFinite(date) || !/GMT$/.test(text)) return undefined;
  return Math.max(0, date - now);
}
