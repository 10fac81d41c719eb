// The internal routes' authenticator: `Authorization: Bearer <AGENT_CONTEXT_TOKEN>`, compared in
// constant time. One fixed answer per cause; each refusal is counted.

import { parseBearer, problem, verifyToken } from '../kernel/index.ts';
import type { Authenticator } from '../kernel/index.ts';
import type { Counter } from './metrics.ts';

const CHALLENGE = { 'www-authenticate': 'Bearer realm="agent-context"' };

export function internalAuthenticator(tokens: readonly string[], refusals: Counter): Authenticator {
  return (context) => {
    const header = context.headers['authorization'];
    if (header === undefined || header === '') {
      refusals.inc({ reason: 'token_missing' });
      return { ok: false, reply: problem(401, 'Bearer token missing', { type: 'token-missing', detail: 'Send Authorization: Bearer <AGENT_CONTEXT_TOKEN>', headers: CHALLENGE }) };
    }
    if (!verifyToken(parseBearer(header), tokens)) {
      refusals.inc({ reason: 'token_invalid' });
      return { ok: false, reply: problem(401, 'Bearer token invalid', { type: 'token-invalid', detail: 'The bearer token is not AGENT_CONTEXT_TOKEN', headers: CHALLENGE }) };
    }
    return { ok: true, principal: { kind: 'internal' } };
  };
}
