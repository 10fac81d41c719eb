// The three ways in: the operator token (X-Semantic-Operator-Token) for topology, fixtures and
// projection verification; consumer bearer tokens admitted by ts01_consumer_matrix for status
// and context readback; and, for projection verification, the operator token plus a configured
// case allowlist (absent or empty: 503, fail closed). Failures say one fixed thing per cause.

import { parseBearer, problem, verifyToken, whichToken } from '../kernel/index.ts';
import type { Authenticator, AuthOutcome, Reply, RequestContext } from '../kernel/index.ts';
import { consumerAdmission } from './cdc-matrix.ts';
import type { ConsumerToken } from './consumer-tokens.ts';

export const OPERATOR_HEADER = 'x-semantic-operator-token';

export interface AuthenticatorOptions {
  operatorTokens: readonly string[];
  consumerTokens: readonly ConsumerToken[];
  caseAllowlist: readonly string[];
}

/** The service's authenticators by name: `operator`, `consumer`, `projection`. */
export function createAuthenticators(options: AuthenticatorOptions): Record<'operator' | 'consumer' | 'projection', Authenticator> {
  const operator = (context: RequestContext): AuthOutcome => {
    const presented = context.headers[OPERATOR_HEADER];
    if (presented === undefined || presented === '') {
      return deny(problem(401, 'Operator token missing', { type: 'operator_token_missing', detail: 'Send the X-Semantic-Operator-Token header' }));
    }
    if (typeof presented !== 'string' || !verifyToken(presented, options.operatorTokens)) {
      return deny(problem(401, 'Operator token invalid', { type: 'operator_token_invalid', detail: 'The X-Semantic-Operator-Token value is not accepted' }));
    }
    return { ok: true, principal: { kind: 'operator' } };
  };

  // Ids and tokens are distinct (consumer-tokens.ts), so at most one consumer matches.
  const consumerTokens: Record<string, readonly string[]> = Object.fromEntries(options.consumerTokens.map((entry) => [entry.consumer, [entry.token]]));
  const consumerOrder = options.consumerTokens.map((entry) => entry.consumer);
  const consumer: Authenticator = (context) => {
    const header = context.headers['authorization'];
    const challenge = { 'www-authenticate': 'Bearer realm="semantic"' };
    if (header === undefined) {
      return deny(problem(401, 'Consumer token missing', { type: 'consumer_token_missing', detail: 'Send Authorization: Bearer <consumer token>', headers: challenge }));
    }
    // Every token is compared, so the time taken does not tell which consumer came close.
    const matched = whichToken(parseBearer(header), consumerTokens, consumerOrder);
    if (matched === undefined) {
      return deny(problem(401, 'Consumer token invalid', { type: 'consumer_token_invalid', detail: 'The bearer token is not a configured consumer token', headers: challenge }));
    }
    const admission = consumerAdmission(matched, { method: context.method === 'HEAD' ? 'GET' : context.method, path: routePath(context) });
    if (admission.admitted) return { ok: true, principal: { kind: 'consumer', consumer: matched } };
    if (admission.reason === 'downstream_gated') {
      return deny(problem(403, 'Consumer downstream-gated', {
        type: 'downstream_gated',
        detail: `Consumer "${matched}" is downstream-gated by ts01_consumer_matrix: it admits no endpoint`,
        extensions: { reason: 'downstream_gated', consumer: matched },
      }));
    }
    return deny(problem(403, 'Consumer not admitted', {
      type: 'consumer_not_admitted',
      detail: `Consumer "${matched}" is not admitted to this surface by ts01_consumer_matrix`,
      extensions: { reason: admission.reason, consumer: matched },
    }));
  };

  const projection: Authenticator = (context) => {
    const outcome = operator(context);
    if (!outcome.ok) return outcome;
    if (options.caseAllowlist.length === 0) {
      return deny(problem(503, 'Projection verification unavailable', {
        type: 'projection_allowlist_absent',
        detail: 'No admitted ts02: case refs are configured (SEMANTIC_PROJECTION_CASE_ALLOWLIST): projection verification fails closed',
      }));
    }
    return outcome;
  };

  return { operator, consumer, projection };
}

function deny(reply: Reply): { ok: false; reply: Reply } {
  return { ok: false, reply };
}

// The router treats one trailing slash as the same resource; so does admission.
function routePath(context: RequestContext): string {
  return context.path.length > 1 && context.path.endsWith('/') ? context.path.slice(0, -1) : context.path;
}
