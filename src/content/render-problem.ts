// The kernel answers some requests itself (unknown path, wrong method, body too large or of the
// wrong type, a refused authenticator, 500). The content repository re-renders those answers in
// its own error shapes, so every error a client meets is the one its contract declares: Alfresco's
// error body on the repository API, a page on the share UI and the login bridge.

import type { Reply, RequestContext } from '../kernel/index.ts';
import { alfrescoError } from './alfresco-shapes.ts';
import { html, page } from './share/html.ts';

export const REPOSITORY_PREFIX = '/repository/';

/** The content service's kernel problem renderer. */
export function renderContentProblem(reply: Reply, context: RequestContext): Reply {
  const problem = (reply.body ?? {}) as { title?: unknown; detail?: unknown };
  const text = typeof problem.detail === 'string' ? problem.detail : String(problem.title ?? 'Request refused');
  if (context.path.startsWith(REPOSITORY_PREFIX)) return alfrescoError(reply.status, text, reply.headers);
  return page({ title: String(problem.title ?? 'Request refused'), status: reply.status, body: html`<div class="error"><p>${text}</p></div>`, ...(reply.headers && { headers: reply.headers }) });
}
