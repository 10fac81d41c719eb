// RFC 9110 11.6.1: a 401 carries WWW-Authenticate with a challenge for the target resource. The
// pipeline adds one to every 401 that lacks it (an authenticator's, a handler's, a refused
// signature's), from the route's authenticator, so no service has to remember it on each path.

import type { Reply, Route } from './route.ts';

export const WWW_AUTHENTICATE = 'www-authenticate';

/** The challenge of an authenticator of `service`: the one the service gave, else Bearer. */
export function challengeFor(init: { service: string; auth: string | undefined; route: Route | undefined; challenges: Readonly<Record<string, string>> }): string {
  const realm = `realm="${init.service}"`;
  if (init.auth !== undefined && init.auth !== 'none') return init.challenges[init.auth] ?? `Bearer ${realm}`;
  // A signature is no HTTP authentication scheme: the challenge names the one the route verifies.
  if (init.route?.signature) return `Signature ${realm}, scheme="${init.route.signature.scheme}"`;
  return `Bearer ${realm}`;
}

/** `reply` with a WWW-Authenticate challenge when it is a 401 without one; otherwise `reply` itself. */
export function withChallenge(reply: Reply, challenge: () => string): Reply {
  if (reply.status !== 401) return reply;
  if (Object.keys(reply.headers ?? {}).some((name) => name.toLowerCase() === WWW_AUTHENTICATE)) return reply;
  return { ...reply, headers: { ...reply.headers, [WWW_AUTHENTICATE]: challenge() } };
}
