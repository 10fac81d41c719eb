// Reply builders for handlers: JSON, RFC 9457 problem details, RFC-draft health documents.

import type { Reply } from './route.ts';

export const JSON_TYPE = 'application/json; charset=utf-8';
export const PROBLEM_TYPE = 'application/problem+json';
export const HEALTH_TYPE = 'application/health+json';

/** Prefix of Airlock's problem `type` URIs: a URN, so nothing tempts a client to fetch it. */
export const PROBLEM_URN = 'urn:airlock:problem:';

/** A JSON reply, 200 unless told otherwise. */
export function json(body: unknown, init: { status?: number; headers?: Record<string, string> } = {}): Reply {
  return { status: init.status ?? 200, body, ...(init.headers && { headers: init.headers }) };
}

export interface ProblemInit {
  /** The slug after `urn:airlock:problem:`; defaults to one derived from the title. */
  type?: string;
  detail?: string;
  /** Per-field problems, each with a JSON Pointer into the request body. */
  errors?: readonly { pointer: string; detail: string }[];
  headers?: Record<string, string>;
  /** Extension members (RFC 9457 section 3.2), e.g. a machine `reason`. */
  extensions?: Record<string, unknown>;
}

/**
 * An RFC 9457 problem-details reply.
 *
 * @example
 * return problem(403, 'Case ref not admitted', { detail: 'Cannot admit case ref "ts02:x": not in the allowlist' });
 */
export function problem(status: number, title: string, init: ProblemInit = {}): Reply {
  const slug = init.type ?? title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
  const body: Record<string, unknown> = { ...init.extensions, type: `${PROBLEM_URN}${slug}`, title, status };
  if (init.detail !== undefined) body['detail'] = init.detail;
  if (init.errors !== undefined) body['errors'] = init.errors;
  return { status, body, contentType: PROBLEM_TYPE, ...(init.headers && { headers: init.headers }) };
}

export type HealthStatus = 'pass' | 'warn' | 'fail';

export interface HealthCheck {
  status: HealthStatus;
  /** Why a check is not `pass`; never a secret. */
  output?: string;
  [extra: string]: unknown;
}

/**
 * An `application/health+json` reply: 200 for pass and warn, 503 for fail.
 * The overall status is the worst of `checks` unless given.
 */
export function health(init: { version: string; checks: Record<string, HealthCheck[]>; status?: HealthStatus; extra?: Record<string, unknown> }): Reply {
  const worst = init.status ?? worstStatus(Object.values(init.checks).flat().map((c) => c.status));
  return {
    status: worst === 'fail' ? 503 : 200,
    contentType: HEALTH_TYPE,
    body: { status: worst, version: init.version, ...init.extra, checks: init.checks },
  };
}

function worstStatus(statuses: HealthStatus[]): HealthStatus {
  if (statuses.includes('fail')) return 'fail';
  if (statuses.includes('warn')) return 'warn';
  return 'pass';
}
