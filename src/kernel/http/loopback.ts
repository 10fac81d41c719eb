// DESIGN.md: every listener binds loopback unless the operator opts in with
// AIRLOCK_ALLOW_NON_LOOPBACK=1, and then a warning says so at start.

import { BlockList, isIP } from 'node:net';
import { AirlockError } from '../errors.ts';

export const ALLOW_NON_LOOPBACK_VARIABLE = 'AIRLOCK_ALLOW_NON_LOOPBACK';

// node:net's BlockList checks an IPv4-mapped IPv6 address (::ffff:127.0.0.1, ::ffff:7f00:1,
// 0:0:0:0:0:ffff:127.0.0.1) against the IPv4 rules, and compares IPv6 addresses by value, so every
// spelling of ::1 (0::1, 0:0:0:0:0:0:0:1) matches too: no text comparison of ours can miss one.
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** True for 127.0.0.0/8, ::1 in any spelling, IPv4-mapped 127.x.y.z and the name localhost. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare.toLowerCase() === 'localhost') return true;
  const family = isIP(bare);
  return family !== 0 && LOOPBACK.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Refuses a non-loopback host unless opted in. Returns a warning text when the opt-in admitted one.
 * Throws AirlockError('listen_refused') otherwise.
 */
export function checkListenHost(host: string, env: NodeJS.ProcessEnv): string | undefined {
  if (isLoopbackHost(host)) return undefined;
  if (env[ALLOW_NON_LOOPBACK_VARIABLE] === '1') {
    return `Listening on non-loopback address "${host}" because ${ALLOW_NON_LOOPBACK_VARIABLE}=1`;
  }
  throw new AirlockError(
    'listen_refused',
    `Cannot listen on "${host}": not a loopback address; bind 127.0.0.1 or set ${ALLOW_NON_LOOPBACK_VARIABLE}=1 to opt in`,
  );
}
