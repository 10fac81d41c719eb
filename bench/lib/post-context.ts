// The request context a route's handler gets for a POST, built in process: the CPU harnesses
// call a route's handler directly, without a socket or the HTTP pipeline in between.

import type { RequestContext } from '../../src/kernel/index.ts';

/** A POST of `rawBody` to `path` from loopback; `fields` adds or replaces members (params, principal, signature...). */
export function postContext(path: string, rawBody: Buffer, fields: Partial<Record<keyof RequestContext, unknown>> & { headers?: Record<string, string> }): RequestContext {
  return {
    method: 'POST',
    path,
    query: new URLSearchParams(),
    params: {},
    headers: { 'content-type': 'application/json' },
    requestId: '',
    listener: 'main',
    remoteAddress: '127.0.0.1',
    rawBody,
    body: undefined,
    principal: undefined,
    signature: undefined,
    log: undefined,
    ...fields,
  } as unknown as RequestContext;
}
