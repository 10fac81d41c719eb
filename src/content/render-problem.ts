// The kernel answers some requests itself (unknown path, wrong method, body too large or of the
// wrong type, a refused authenticator, 500). The content repository re-renders those answers in
// its own error shapes, so every error a client meets is the one its contract declares: Alfresco's
// error body on the repository API (with logId, alfresco-shapes.ts), a page on the share UI and
// the login bridge.

import type { Reply, RequestContext } from '../kernel/index.ts';
import { REPOSITORY_PREFIX, renderRepositoryProblem } from './alfresco-shapes.ts';
import { html, page } from './share/html.ts';

/** The content service's kernel problem renderer. */
export function renderContentProblem(reply: Reply, context: RequestContext): Reply {
  if (context.path.startsWith(REPOSITORY_PREFIX)) return renderRepositoryProblem(reply, context);
  const problem = (reply.body ?? {}) as { title?: unknown; detail?: unknown };
  const text = typeof problem.detail === 'string' ? problem.detail : String(problem.title ?? 'Request refused');
  return page({ title: String(problem.title ?? 'Request refused'), status: reply.status, body: html`<div class="error"><p>${text}</p></div>`, ...(reply.headers && { headers: reply.headers }) });
}
