// Alfresco's public REST API wire shapes, which the repository API keeps so that Alfresco's
// clients and operators need no new manual: the error body, the list envelope with its
// pagination, and the timestamp format ("2026-01-19T10:01:58.913+0000").

import type { Reply, RequestContext } from '../kernel/index.ts';

/** Alfresco keeps the member but never shows a stack trace; neither do we. */
export const STACK_TRACE_NOTE = 'For security reasons the stack trace is no longer displayed, but the property is kept for previous versions';
export const DESCRIPTION_URL = 'docs/content.md#errors';

const ERROR_KEYS: Record<number, string> = {
  400: 'framework.exception.InvalidArgument',
  401: 'framework.exception.NotAuthenticated',
  403: 'framework.exception.PermissionDenied',
  404: 'framework.exception.EntityNotFound',
  405: 'framework.exception.UnsupportedResourceOperation',
  409: 'framework.exception.ConstraintViolated',
  413: 'framework.exception.RequestEntityTooLarge',
  415: 'framework.exception.UnsupportedMediaType',
  416: 'framework.exception.RangeNotSatisfiable',
  422: 'framework.exception.InvalidArgument',
  503: 'framework.exception.ServiceUnavailable',
};

/**
 * An Alfresco error reply: `{"error":{"errorKey","statusCode","briefSummary","stackTrace","descriptionURL"}}`.
 *
 * @example
 * return alfrescoError(404, 'The entity with id: "abc" was not found');
 */
export function alfrescoError(status: number, briefSummary: string, headers?: Record<string, string>): Reply {
  return {
    status,
    body: {
      error: {
        errorKey: ERROR_KEYS[status] ?? 'framework.exception.ApiDefault',
        statusCode: status,
        briefSummary,
        stackTrace: STACK_TRACE_NOTE,
        descriptionURL: DESCRIPTION_URL,
      },
    },
    ...(headers && { headers }),
  };
}

/** Alfresco's error body carries `logId`: here the request id (X-Request-Id), which the service's log lines name too. */
export function withLogId(reply: Reply, logId: string): Reply {
  const error = (reply.body as { error?: unknown } | undefined)?.error;
  if (reply.raw !== undefined || reply.stream !== undefined || error === null || typeof error !== 'object') return reply;
  return { ...reply, body: { error: { ...error, logId } } };
}

/** Paths where every answer is the repository's: Alfresco's error body, never the kernel's RFC 9457 one. */
export const REPOSITORY_PREFIX = '/repository/';

/**
 * The kernel's own problem replies (an unknown route, 405, 413, 415, a malformed body, a 500)
 * re-rendered, under /repository/, as Alfresco's error body with the same status and headers.
 */
export function renderRepositoryProblem(reply: Reply, context: RequestContext): Reply {
  if (!context.path.startsWith(REPOSITORY_PREFIX)) return reply;
  const problem = (reply.body ?? {}) as { title?: unknown; detail?: unknown };
  const summary = typeof problem.detail === 'string' ? problem.detail : typeof problem.title === 'string' ? problem.title : `HTTP ${reply.status}`;
  return withLogId(alfrescoError(reply.status, summary, reply.headers), context.requestId);
}

export interface Paging {
  skipCount: number;
  maxItems: number;
}

export const DEFAULT_MAX_ITEMS = 100;
export const MAX_MAX_ITEMS = 1000;

/** Reads skipCount and maxItems (query parameters or a search body's paging); a message when invalid. */
export function readPaging(skip: unknown, max: unknown): Paging | string {
  const skipCount = skip === undefined || skip === null ? 0 : Number(skip);
  const maxItems = max === undefined || max === null ? DEFAULT_MAX_ITEMS : Number(max);
  if (!Number.isSafeInteger(skipCount) || skipCount < 0 || (typeof skip === 'string' && !/^\d+$/.test(skip))) {
    return `Invalid paging parameter skipCount "${String(skip)}": use a whole number from 0`;
  }
  if (!Number.isSafeInteger(maxItems) || maxItems < 1 || maxItems > MAX_MAX_ITEMS || (typeof max === 'string' && !/^\d+$/.test(max))) {
    return `Invalid paging parameter maxItems "${String(max)}": use a whole number from 1 to ${MAX_MAX_ITEMS}`;
  }
  return { skipCount, maxItems };
}

/** Alfresco's list envelope over one page of entries. */
export function listEnvelope(entries: readonly unknown[], options: { paging: Paging; totalItems: number; totalExact?: boolean; extra?: Record<string, unknown> }): Record<string, unknown> {
  const { paging, totalItems } = options;
  return {
    list: {
      pagination: {
        count: entries.length,
        // An inexact total counted a window past this page, so it alone still tells whether more follow.
        hasMoreItems: paging.skipCount + entries.length < totalItems,
        // Alfresco: "The API might not be able to determine this value, in which case this property will not be present."
        ...(options.totalExact !== false && { totalItems }),
        skipCount: paging.skipCount,
        maxItems: paging.maxItems,
      },
      ...options.extra,
      entries: entries.map((entry) => ({ entry })),
    },
  };
}

/** Alfresco's timestamp: milliseconds and a "+0000" zone. */
export function alfrescoTime(iso: string): string {
  return iso.replace(/Z$/, '+0000');
}
