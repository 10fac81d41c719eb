// The kernel answers some requests itself (unknown path, wrong method, signature refused, body
// too large or malformed, schema failure, idempotency refusal, 500). On the Frappe paths those
// answers are re-rendered in Frappe's envelope, so a Frappe client reads every error the same way.
// /healthz and /capability-inventory are Airlock's own surfaces and keep RFC 9457.

import type { Reply, RequestContext } from '../../kernel/index.ts';
import { frappeError, signatureChallenge } from './envelope.ts';
import type { ExcType } from './envelope.ts';

const FRAPPE_PATHS = ['/api/method/', '/api/resource/', '/api/resource'];

/** Kernel status -> Frappe class and the status Frappe answers with. */
function classify(status: number): { excType: ExcType; status: number } {
  switch (status) {
    case 400:
    case 422:
      // Frappe raises ValidationError (417) for any argument it cannot use.
      return { excType: 'ValidationError', status: 417 };
    case 401:
      return { excType: 'AuthenticationError', status };
    case 403:
    case 405:
      // Frappe's is_valid_http_method raises PermissionError; the 405 and its Allow header stay.
      return { excType: 'PermissionError', status };
    case 404:
      return { excType: 'DoesNotExistError', status };
    case 409:
      return { excType: 'DuplicateEntryError', status };
    case 413:
      return { excType: 'RequestEntityTooLarge', status };
    case 415:
      return { excType: 'UnsupportedMediaType', status };
    case 429:
      return { excType: 'TooManyRequestsError', status };
    case 503:
      return { excType: 'ServiceUnavailable', status };
    default:
      return status >= 500 ? { excType: 'InternalServerError', status } : { excType: 'ValidationError', status };
  }
}

/**
 * The ERP service's kernel problem renderer. `signatureSchemes` maps each signed path to its scheme:
 * the kernel's own 401 on a Frappe path is a signature it could not verify, and its challenge
 * names that scheme (RFC 9110: every 401 carries WWW-Authenticate).
 */
export function frappeProblemRenderer(signatureSchemes: ReadonlyMap<string, string>): (reply: Reply, context: RequestContext) => Reply {
  return (reply, context) => {
    if (!FRAPPE_PATHS.some((prefix) => context.path === prefix || context.path.startsWith(prefix))) return reply;
    const problem = (reply.body ?? {}) as { title?: unknown; detail?: unknown };
    const text = typeof problem.detail === 'string' ? problem.detail : String(problem.title ?? 'Request refused');
    const { excType, status } = classify(reply.status);
    const scheme = signatureSchemes.get(context.path);
    const headers = status === 401 && scheme !== undefined ? { ...reply.headers, 'www-authenticate': signatureChallenge(scheme) } : reply.headers;
    return frappeError(excType, text, { status, ...(headers && { headers }) });
  };
}
