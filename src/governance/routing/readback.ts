// Reads back a public GET route of this service in process, the way the platform listener would
// answer it: used where a review "reads back the readiness targets" without calling itself
// over HTTP. Only routes without credentials can be read back this way.

import { createRouter } from '../../kernel/index.ts';
import type { RequestContext, Router } from '../../kernel/index.ts';
import { PLATFORM_LISTENER } from '../config.ts';
import type { GovernanceRuntime } from '../runtime.ts';

export type Readback = { ok: true; status: number; body: unknown } | { ok: false; reason: string };

function platformRouter(runtime: GovernanceRuntime): Router {
  let router = runtime.cache.get('platform router') as Router | undefined;
  if (!router) {
    router = createRouter(runtime.routes.filter((r) => r.listener === PLATFORM_LISTENER && r.method === 'GET'));
    runtime.cache.set('platform router', router);
  }
  return router;
}

/** The status and body `path` answers now on the platform listener; a failure reason otherwise. */
export async function readBack(runtime: GovernanceRuntime, path: string): Promise<Readback> {
  const queryAt = path.indexOf('?');
  const bare = queryAt === -1 ? path : path.slice(0, queryAt);
  if (/[{}]/.test(bare)) return { ok: false, reason: `"${path}" is a template, not a concrete path` };
  const match = platformRouter(runtime).match('GET', bare);
  if (match.kind !== 'found') return { ok: false, reason: `"${bare}" is not a GET route of the platform listener` };
  if (match.route.auth !== 'none') return { ok: false, reason: `"${bare}" needs a credential, so it is not a public readback` };
  const context: RequestContext = {
    method: 'GET',
    path: bare,
    query: new URLSearchParams(queryAt === -1 ? '' : path.slice(queryAt + 1)),
    params: match.params,
    headers: {},
    requestId: 'readback',
    listener: PLATFORM_LISTENER,
    remoteAddress: '',
    rawBody: undefined,
    body: undefined,
    principal: undefined,
    signature: undefined,
    log: runtime.log,
  };
  const reply = await match.route.handler(context);
  const body = reply.raw !== undefined ? JSON.parse(typeof reply.raw === 'string' ? reply.raw : Buffer.from(reply.raw).toString('utf8')) : reply.body;
  return { ok: true, status: reply.status, body };
}
