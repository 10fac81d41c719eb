// telephony_verify: the telephony verification repository of seed 002 as one command. It has no
// service API of its own; it verifies what a telephony deployment consumes: the six governance
// routes against their contracts, the agent runtime's /healthz, the telephony runtime's protected
// info endpoint, the GUI operator origin, and the static-required ports 19088 and 19089.

import { defineCommand, EXIT_FAILED, EXIT_OK, EXIT_USAGE, main, readConfig, usageError } from '../src/kernel/index.ts';
import type { CheckResult } from './_telephony/check.ts';
import { fail, orUnreachable, pass, skip } from './_telephony/check.ts';
import { checkGovernance } from './_telephony/governance-checks.ts';
import { checkAgentRuntime, checkGuiOrigin, checkPorts, checkTelephonyInfo } from './_telephony/runtime-checks.ts';

const CREDENTIALS_SPEC = {
  TELEPHONY_ARI_CREDENTIALS: { type: 'secret', description: 'user:password of the telephony runtime (HTTP Basic)' },
} as const;

function baseUrl(flag: string, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (!URL.canParse(raw) || !/^https?:$/.test(new URL(raw).protocol)) usageError(`Invalid --${flag} "${redacted(raw)}": use an http(s) URL`);
  // fetch() refuses such a URL, and every message that names the target would show the secret.
  const url = new URL(raw);
  if (url.username !== '' || url.password !== '') {
    usageError(`Invalid --${flag} "${redacted(raw)}": credentials in the URL are not used; the telephony runtime's come from TELEPHONY_ARI_CREDENTIALS`);
  }
  return raw.replace(/\/+$/, '');
}

/** The URL with anything between "//" and "@" replaced: safe to show. */
function redacted(raw: string): string {
  return raw.replace(/\/\/[^/?#]*@/, '//***@');
}

/** Decimal digits only: Number() would also take "1e3", "0x4a99" or " 19088 " for a port. */
const DIGITS = /^[0-9]+$/;

function port(flag: string, raw: string): number {
  const value = DIGITS.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(value) || value < 1 || value > 65535) usageError(`Invalid --${flag} "${raw}": use a port from 1 to 65535`);
  return value;
}

const command = defineCommand({
  name: 'telephony_verify',
  summary: 'Verifies what a telephony deployment consumes: governance routes, agent runtime, telephony info endpoint, GUI origin and ports',
  description: [
    'Governance: GET /api/v1/contracts/matrix, /contracts/docs-standard, /voice/contracts/events, /combinations/profiles,',
    '/combinations/optional-slices and /combinations/optional-slices/carrier-cti on the platform listener, each checked',
    'against the 200 schema of /api/v1/openapi.json and the content a telephony deployment relies on.',
    'Agent runtime: GET /healthz answers 200 with a JSON "status" of ok, pass, healthy, up or ready.',
    'Telephony runtime: the info endpoint answers 401 without credentials (it exists and is protected) and 200 with',
    'them; credentials "user:password" from TELEPHONY_ARI_CREDENTIALS or the file named by TELEPHONY_ARI_CREDENTIALS_FILE.',
    'GUI: the operator origin answers below 400; 127.0.0.1:19088 (telephony REST) and :19089 (GUI backend) accept connections.',
    'A target flag left out skips its checks. A target that does not answer is a failed check naming it; the other checks still run.',
    'Exit 0 all pass, 1 a check failed (named), 2 a flag is wrong or the governance service does not answer.',
  ].join('\n'),
  options: {
    'governance-url': { type: 'string', valueName: 'URL', description: 'Governance platform listener, e.g. http://127.0.0.1:18010 (required)' },
    'agent-runtime-url': { type: 'string', valueName: 'URL', description: 'Agent runtime base URL (GET /healthz)' },
    'telephony-url': { type: 'string', valueName: 'URL', description: 'Telephony REST interface, e.g. http://127.0.0.1:19088' },
    'gui-origin': { type: 'string', valueName: 'URL', description: 'GUI operator origin, e.g. https://voice.example.internal' },
    'telephony-info-path': { type: 'string', valueName: 'PATH', default: '/ari/asterisk/info', description: 'Protected info endpoint of the telephony runtime' },
    'rest-port': { type: 'string', valueName: 'N', default: '19088', description: 'Static-required port of the telephony REST interface' },
    'gui-backend-port': { type: 'string', valueName: 'N', default: '19089', description: 'Static-required host-local port of the GUI backend' },
    'timeout-ms': { type: 'string', valueName: 'N', default: '5000', description: 'Timeout of each request or connection' },
  },
  async run({ values, json, print, printJson, io }) {
    const governance = baseUrl('governance-url', values['governance-url']);
    if (governance === undefined) usageError('Missing --governance-url: give the governance platform listener, e.g. --governance-url http://127.0.0.1:18010');
    const agentRuntime = baseUrl('agent-runtime-url', values['agent-runtime-url']);
    const telephony = baseUrl('telephony-url', values['telephony-url']);
    const guiOrigin = baseUrl('gui-origin', values['gui-origin']);
    const infoPath = values['telephony-info-path'];
    if (!infoPath.startsWith('/')) usageError(`Invalid --telephony-info-path "${infoPath}": it must start with "/"`);
    const ports = { rest: port('rest-port', values['rest-port']), guiBackend: port('gui-backend-port', values['gui-backend-port']) };
    const timeoutMs = DIGITS.test(values['timeout-ms']) ? Number(values['timeout-ms']) : NaN;
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) usageError(`Invalid --timeout-ms "${values['timeout-ms']}": use a positive whole number`);
    const credentials = readConfig(CREDENTIALS_SPEC, io.env).TELEPHONY_ARI_CREDENTIALS;
    if (credentials !== undefined && !credentials.includes(':')) usageError('TELEPHONY_ARI_CREDENTIALS must be "user:password"');

    const checks: CheckResult[] = [];
    const report = (results: readonly CheckResult[]) => {
      checks.push(...results);
      if (!json) for (const r of results) print(`${r.outcome === 'pass' ? 'PASS' : r.outcome === 'fail' ? 'FAIL' : 'SKIP'} ${r.check}: ${r.detail}`);
    };
    // Every target is checked whatever another did: one that does not answer is a failed check
    // naming it. Only an unreachable governance service (the required target) is exit 2.
    let governanceDown: string | undefined;
    report(await orUnreachable(() => checkGovernance(governance, { timeoutMs }), (reason) => {
      governanceDown = reason;
      return [fail('governance:/api/v1/openapi.json', reason, { target: governance })];
    }));
    report(agentRuntime ? await orUnreachable(async () => [await checkAgentRuntime(agentRuntime, timeoutMs)], (reason) => [fail('agent-runtime:/healthz', reason, { target: agentRuntime })]) : [skip('agent-runtime:/healthz', 'no --agent-runtime-url')]);
    if (telephony) {
      const onPort = Number(new URL(telephony).port || (new URL(telephony).protocol === 'https:' ? 443 : 80)) === ports.rest;
      report([onPort ? pass('telephony:rest-port', `on the static-required port ${ports.rest}`) : fail('telephony:rest-port', `--telephony-url is not on the static-required port ${ports.rest}`)]);
      report(await orUnreachable(() => checkTelephonyInfo(telephony, { path: infoPath, credentials, timeoutMs }), (reason) => [
        fail('telephony:info-protected', reason, { target: telephony }),
        credentials === undefined ? skip('telephony:info-authenticated', 'no credentials given') : fail('telephony:info-authenticated', `not tried: ${reason}`, { target: telephony }),
      ]));
    } else report([skip('telephony:info-protected', 'no --telephony-url')]);
    report(guiOrigin ? await orUnreachable(async () => [await checkGuiOrigin(guiOrigin, timeoutMs)], (reason) => [fail('gui:origin', reason, { target: guiOrigin })]) : [skip('gui:origin', 'no --gui-origin')]);
    report(await checkPorts(ports, timeoutMs));
    if (governanceDown !== undefined) {
      const failedChecks = checks.filter((c) => c.outcome === 'fail').map((c) => c.check);
      if (json) printJson({ ok: false, error: governanceDown, failed: failedChecks, checks });
      io.stderr.write(`telephony_verify: ${governanceDown}: the governance service is required\n`);
      return EXIT_USAGE;
    }
    const failed = checks.filter((c) => c.outcome === 'fail').map((c) => c.check);
    if (json) printJson({ ok: failed.length === 0, failed, checks });
    else print(failed.length === 0 ? `all ${checks.filter((c) => c.outcome === 'pass').length} checks pass (${checks.filter((c) => c.outcome === 'skip').length} skipped)` : `FAILED: ${failed.join(', ')}`);
    return failed.length === 0 ? EXIT_OK : EXIT_FAILED;
  },
});

await main(command);
