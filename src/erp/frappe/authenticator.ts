// Frappe's two ways in (frappe/auth.py validate_auth): `Authorization: token <api_key>:<api_secret>`
// (or `Basic base64(key:secret)`) against ERP_API_KEYS, and the `sid` cookie of a login session.
// No credential at all is Frappe's Guest: PermissionError 403. A credential that does not match:
// AuthenticationError 401. The principal is the api key or the user, never the secret.

import { verifyToken } from '../../kernel/index.ts';
import type { Authenticator, AuthOutcome } from '../../kernel/index.ts';
import type { ApiKey } from '../config.ts';
import { frappeError } from './envelope.ts';
import { sidCookie } from './sessions.ts';
import type { Sessions } from './sessions.ts';

export const FRAPPE_AUTH = 'frappe';

export interface Principal {
  kind: 'token' | 'session';
  user: string;
}

/** The caller of a request, or the reply that refuses it. */
export function frappeAuthenticator(apiKeys: readonly ApiKey[], sessions: Sessions): Authenticator {
  const pairs = apiKeys.map((k) => k.pair);
  return (context): AuthOutcome => {
    const header = context.headers.authorization;
    if (header !== undefined) {
      const pair = tokenPair(header);
      if (pair !== undefined && verifyToken(pair, pairs)) {
        return { ok: true, principal: { kind: 'token', user: pair.slice(0, pair.indexOf(':')) } satisfies Principal };
      }
      return { ok: false, reply: frappeError('AuthenticationError', 'Invalid api key or secret: send Authorization: token <api_key>:<api_secret> from ERP_API_KEYS') };
    }
    const sid = sidCookie(context.headers.cookie);
    if (sid !== undefined) {
      const user = sessions.user(sid);
      if (user !== undefined) return { ok: true, principal: { kind: 'session', user } satisfies Principal };
      return { ok: false, reply: frappeError('AuthenticationError', 'Session expired or unknown: log in again with POST /api/method/login') };
    }
    return { ok: false, reply: frappeError('PermissionError', 'Not permitted: log in (POST /api/method/login) or send Authorization: token <api_key>:<api_secret>') };
  };
}

function tokenPair(header: string): string | undefined {
  const space = header.indexOf(' ');
  if (space === -1) return undefined;
  const scheme = header.slice(0, space).toLowerCase();
  const value = header.slice(space + 1).trim();
  if (scheme === 'token') return value.includes(':') ? value : undefined;
  if (scheme === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    return decoded.includes(':') ? decoded : undefined;
  }
  return undefined;
}
