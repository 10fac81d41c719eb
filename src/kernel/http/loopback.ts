// DESIGN.md: every listener binds loopback unless the operator opts in with
// AIRLOCK_ALLOW_NON_LOOPBACK=1, and then a warning says so at start.

import { isIP } from 'node:net';
import { AirlockError } from '../errors.ts';

export const ALLOW_NON_LOOPBACK_VARIABLE = 'AIRLOCK_ALLOW_NON_LOOPBACK';

/** True for 127.0.0.0/8, ::1, ::ffff:127.x.y.z and the name localhost. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare.toLowerCase() === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) {
    const lower = bare.toLowerCase();
    if (lower === '::1' || lower === '0:0:0:0:0:0:0:1') return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
    return mapped !== null && mapped[1]!.startsWith('127.');
  }
  return false;
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
