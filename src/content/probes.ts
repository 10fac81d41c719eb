// Alfresco's probes, loopback only and unauthenticated: -live- says the process answers;
// -ready- is green only when the database and the search index both answer (seed 002:
// "repository readiness without search-backed readiness: not green").

import { isLoopbackHost, replicationHealthCheck, statement } from '../kernel/index.ts';
import type { Authenticator, Route } from '../kernel/index.ts';
import { alfrescoError, withLogId } from './alfresco-shapes.ts';
import { API_BASE, alfrescoHandler } from './api-support.ts';
import type { ContentDeps } from './api-support.ts';
import { searchReady } from './search.ts';

/** The probe paths (at both API bases): loopback only and without a credential. */
export function isProbePath(path: string): boolean {
  return /^\/repository\/api\/-default-\/public\/(repository|alfresco)\/versions\/1\/probes\/-(ready|live)-\/?$/.test(path);
}

/** Admits loopback peers only; anyone else gets 403 in Alfresco's shape. */
export const loopbackOnly: Authenticator = (context) =>
  isLoopbackHost(context.remoteAddress) ? { ok: true } : { ok: false, reply: withLogId(alfrescoError(403, 'Probes answer loopback callers only'), context.requestId) };

/** Proves the database answers by reading one row: a count would walk every node on each probe (issue 24). */
export const DATABASE_PROBE_SQL = 'SELECT 1 FROM nodes LIMIT 1';

/** Why the repository is not ready; empty when it is. */
export function readinessProblems(deps: ContentDeps): string[] {
  const problems: string[] = [];
  try {
    statement(deps.store.sqlite, DATABASE_PROBE_SQL).get();
  } catch (error) {
    problems.push(`database not answering: ${(error as Error).message}`);
  }
  const search = searchReady(deps.store.sqlite);
  if (!search.ok) problems.push(search.reason);
  // Evidence replication that stopped or that the stream refuses (docs/replication.md): Alfresco's
  // probe has no "warn", so only a failing replication makes the repository not ready.
  const replication = deps.store.replication();
  if (replication !== undefined) {
    const check = replicationHealthCheck(replication);
    if (check.status === 'fail') problems.push(`evidence ${check.output}`);
  }
  return problems;
}

export function probeRoutes(deps: ContentDeps): Route[] {
  const ready = alfrescoHandler(() => {
    const problems = readinessProblems(deps);
    if (problems.length > 0) {
      deps.log.warn('readiness probe not green', { problems });
      return alfrescoError(503, `Not ready: ${problems.join('; ')}`);
    }
    return { status: 200, body: { entry: { message: 'readyProbe: Success - Tested' } } };
  });
  const live = () => ({ status: 200, body: { entry: { message: 'liveProbe: Success - Tested' } } });
  return [
    { method: 'GET', path: `${API_BASE}/probes/-ready-`, auth: 'loopback', summary: 'Readiness: green only when the database and the search index answer (loopback only)', tags: ['probes'], etag: false, handler: ready },
    { method: 'GET', path: `${API_BASE}/probes/-live-`, auth: 'loopback', summary: 'Liveness (loopback only)', tags: ['probes'], etag: false, handler: live },
  ];
}
