// agent_context_http_requests_total counts every answer, not only a handler's: the kernel's own
// 401, 404, 405, 413, 415 and 422 (and a 500) are what an error-rate alert must see. Each answer
// is labelled with its route template (`unmatched` for a path no route has), the method (`other`
// beyond the known ones), the status code and its class, so the label sets stay bounded.

import { createRouter } from '../kernel/index.ts';
import type { AnswerInfo, Method, Route } from '../kernel/index.ts';
import type { Counter } from './metrics.ts';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
export const UNMATCHED_ROUTE = 'unmatched';

/** The onResponse hook for createService(): one increment per answer. */
export function countAnswers(routes: readonly Route[], requests: Counter): (answer: AnswerInfo) => void {
  const router = createRouter(routes);
  return (answer) => {
    if (answer.status === null) return; // The client left before any answer: nothing was answered.
    const method = METHODS.has(answer.method) ? answer.method : 'other';
    requests.inc({ method, route: routeTemplate(router, answer.method, answer.path), code: String(answer.status), status_class: `${Math.floor(answer.status / 100)}xx` });
  };
}

function routeTemplate(router: ReturnType<typeof createRouter>, method: string, path: string): string {
  const match = router.match((METHODS.has(method) ? method : 'GET') as Method, path);
  if (match.kind === 'found') return match.route.path;
  // A known path asked with another method (405): the template of the path it names.
  if (match.kind === 'method_not_allowed') {
    const other = router.match(match.allow[0] as Method, path);
    if (other.kind === 'found') return other.route.path;
  }
  return UNMATCHED_ROUTE;
}
