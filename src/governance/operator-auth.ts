// Operator authentication of the worker listener. It runs before route resolution, so a 401 here
// says nothing about whether a path exists (seed 001). No configured token refuses everyone.

import { parseBearer, problem, verifyToken } from '../kernel/index.ts';
import type { Authenticator } from '../kernel/index.ts';

const CHALLENGE = { 'www-authenticate': 'Bearer realm="governance-worker"' };

/** The operator principal a request carries once admitted. */
export interface OperatorPrincipal {
  kind: 'operator';
}

/** An authenticator admitting `Authorization: Bearer <token>` for any of `tokens`. */
export function operatorAuthenticator(tokens: readonly string[]): Authenticator {
  return (context) => {
    if (tokens.length === 0) {
      return { ok: false, reply: problem(401, 'Unauthorized', { detail: 'No operator token is configured for the worker listener: every request is refused', headers: CHALLENGE }) };
    }
    if (verifyToken(parseBearer(context.headers.authorization), tokens)) {
      const principal: OperatorPrincipal = { kind: 'operator' };
      return { ok: true, principal };
    }
    return { ok: false, reply: problem(401, 'Unauthorized', { detail: 'Send Authorization: Bearer <operator token>', headers: CHALLENGE }) };
  };
}
