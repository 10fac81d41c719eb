// The access log: one JSON line per request on the service's logger `<service>.access` (method,
// path without its query, status, duration, request id), on by default, off with
// AIRLOCK_ACCESS_LOG=0. The query is left out because it may carry what a caller did not mean to
// leave in a log; headers and bodies are never logged.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LogFields, Logger } from '../log.ts';

/** The variable that turns the access log off (0, false, no, off) or on (anything else). */
export const ACCESS_LOG_VARIABLE = 'AIRLOCK_ACCESS_LOG';

/** The message of every access-log record. */
export const ACCESS_LOG_MESSAGE = 'request';

const OFF_WORDS = new Set(['0', 'false', 'no', 'off']);

/** True unless AIRLOCK_ACCESS_LOG says off. */
export function accessLogEnabled(env: NodeJS.ProcessEnv): boolean {
  const value = env[ACCESS_LOG_VARIABLE];
  return value === undefined || !OFF_WORDS.has(value.trim().toLowerCase());
}

/** Made once: a default parameter `performance.now.bind(performance)` was a new function per request. */
function monotonicMs(): number {
  return performance.now();
}

/**
 * Logs `request` once its response is finished or its connection closed. `status` is what the
 * client got (null when the connection closed before any answer); `completed` is false then.
 *
 * @example
 * server.on('request', (request, response) => { logAccess(request, response, accessLog); ... });
 */
export function logAccess(request: IncomingMessage, response: ServerResponse, log: Logger, clock: () => number = monotonicMs): void {
  const started = clock();
  // A response closes once; `on` spares the wrapper that `once` makes for every request.
  response.on('close', () => {
    const target = request.url ?? '/';
    const queryAt = target.indexOf('?');
    const id = response.getHeader('x-request-id');
    const fields: LogFields = {
      method: request.method ?? 'GET',
      path: queryAt === -1 ? target : target.slice(0, queryAt),
      status: response.headersSent ? response.statusCode : null,
      duration_ms: Math.round((clock() - started) * 1000) / 1000,
      request_id: typeof id === 'string' ? id : null,
    };
    if (!response.writableFinished) fields['completed'] = false;
    log.info(ACCESS_LOG_MESSAGE, fields);
  });
}
