// The runtimes around a telephony deployment: the agent runtime's GET /healthz (JSON with a
// healthy status), the telephony runtime's protected info endpoint (Asterisk ARI's
// GET /ari/asterisk/info by default: 401 without credentials proves it exists and is protected,
// 200 with them), the GUI operator origin, and the static-required host-local ports.

import { fail, pass } from './check.ts';
import type { CheckResult } from './check.ts';
import { httpGet, tcpOpen } from './probe.ts';

/** `status` values of a /healthz body that mean healthy (compared without case). */
export const HEALTHY_STATUSES = ['ok', 'pass', 'healthy', 'up', 'ready'];

export async function checkAgentRuntime(baseUrl: string, timeoutMs: number): Promise<CheckResult> {
  const check = 'agent-runtime:/healthz';
  const answer = await httpGet(`${baseUrl}/healthz`, { timeoutMs });
  if (answer.status !== 200) return fail(check, `answered ${answer.status}`, { status: answer.status, target: baseUrl });
  const status = (answer.json as { status?: unknown } | undefined)?.status;
  if (typeof status !== 'string') return fail(check, 'answered 200 without a JSON body carrying a "status" string', { status: 200, target: baseUrl });
  if (!HEALTHY_STATUSES.includes(status.toLowerCase())) return fail(check, `status is "${status}", not one of ${HEALTHY_STATUSES.join(', ')}`, { status: 200, target: baseUrl });
  return pass(check, `status "${status}"`, { status: 200, target: baseUrl });
}

/**
 * Without credentials the endpoint must answer 401 (exists, protected); with them, 200 and a JSON
 * object. A 200 without credentials means it is not protected: a failure.
 */
export async function checkTelephonyInfo(baseUrl: string, options: { path: string; credentials: string | undefined; timeoutMs: number }): Promise<CheckResult[]> {
  const url = `${baseUrl}${options.path}`;
  const anonymous = await httpGet(url, { timeoutMs: options.timeoutMs });
  const results: CheckResult[] = [];
  const unauthenticated = 'telephony:info-protected';
  if (anonymous.status === 401) results.push(pass(unauthenticated, '401 without credentials: the endpoint exists and is protected', { status: 401, target: url }));
  else if (anonymous.status === 200) results.push(fail(unauthenticated, 'answered 200 without credentials: the info endpoint is not protected', { status: 200, target: url }));
  else results.push(fail(unauthenticated, `answered ${anonymous.status} without credentials, not 401: no protected info endpoint at ${options.path}`, { status: anonymous.status, target: url }));
  const authenticated = 'telephony:info-authenticated';
  if (options.credentials === undefined) {
    results.push({ check: authenticated, outcome: 'skip', detail: 'no credentials given (TELEPHONY_ARI_CREDENTIALS or TELEPHONY_ARI_CREDENTIALS_FILE); the 401 alone proves existence' });
    return results;
  }
  const answer = await httpGet(url, { timeoutMs: options.timeoutMs, headers: { authorization: `Basic ${Buffer.from(options.credentials, 'utf8').toString('base64')}` } });
  if (answer.status === 401) results.push(fail(authenticated, 'the credentials were refused (401)', { status: 401, target: url }));
  else if (answer.status !== 200) results.push(fail(authenticated, `answered ${answer.status} with credentials`, { status: answer.status, target: url }));
  else if (typeof answer.json !== 'object' || answer.json === null || Array.isArray(answer.json)) results.push(fail(authenticated, 'answered 200 with credentials but not a JSON object', { status: 200, target: url }));
  else results.push(pass(authenticated, `200 with credentials (${Object.keys(answer.json).slice(0, 4).join(', ') || 'empty object'})`, { status: 200, target: url }));
  return results;
}

/** The GUI operator origin answers its root below 400 (a redirect to a login page is an answer). */
export async function checkGuiOrigin(origin: string, timeoutMs: number): Promise<CheckResult> {
  const check = 'gui:origin';
  const answer = await httpGet(`${origin}/`, { timeoutMs, headers: { accept: 'text/html' } });
  return answer.status < 400 ? pass(check, `answered ${answer.status}`, { status: answer.status, target: origin }) : fail(check, `answered ${answer.status}`, { status: answer.status, target: origin });
}

/** The static-required host-local ports accept TCP connections on loopback. */
export async function checkPorts(ports: { rest: number; guiBackend: number }, timeoutMs: number): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const [check, port, what] of [['port:telephony-rest', ports.rest, 'telephony REST interface'], ['port:gui-backend', ports.guiBackend, 'GUI backend']] as const) {
    const probe = await tcpOpen('127.0.0.1', port, timeoutMs);
    results.push(probe.open ? pass(check, `127.0.0.1:${port} (${what}) ${probe.reason}`, { target: `127.0.0.1:${port}` }) : fail(check, `127.0.0.1:${port} (${what}): ${probe.reason}`, { target: `127.0.0.1:${port}` }));
  }
  return results;
}
