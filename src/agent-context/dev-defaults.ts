// Embedded defaults for `npm start`: a generated AGENT_CONTEXT_TOKEN kept in var/dev-secrets.json
// (mode 0600, other services' entries preserved). The wiring to the governance service npm start
// also runs (GOVERNANCE_URL, AGENT_CONTEXT_SERVICE_AUTH_TOKEN) is scripts/start.ts's: a service
// knows nothing of another. No secret appears in a curl line: each line reads its token from the
// secrets file when it runs.

import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { writeFileAtomic } from '../kernel/index.ts';
import { SERVICE_NAME } from './identity.ts';

const BASE = 'http://127.0.0.1:18050';

/**
 * Prepares `varDir` and returns agent-context's environment and the curl lines to print.
 * Calling it again keeps the token it made.
 *
 * @example
 * const { env, curl } = agentContextDevDefaults('var');
 */
export function agentContextDevDefaults(varDir: string): { env: Record<string, string>; curl: string[] } {
  const dir = resolve(varDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const secretsPath = join(dir, 'dev-secrets.json');
  const all = existsSync(secretsPath) ? (JSON.parse(readFileSync(secretsPath, 'utf8')) as Record<string, unknown>) : {};
  const mine = (all[SERVICE_NAME] ?? {}) as Record<string, unknown>;
  const token = typeof mine['token'] === 'string' ? mine['token'] : randomBytes(24).toString('base64url');
  writeFileAtomic(secretsPath, `${JSON.stringify({ ...all, [SERVICE_NAME]: { token } }, null, 2)}\n`, { mode: 0o600 });
  const bearer = `-H "Authorization: Bearer $(node -p 'require(process.argv[1])["${SERVICE_NAME}"].token' '${secretsPath.replace(/'/g, `'\\''`)}')"`;
  const authority = (intent: string) => `"authority_context":{"role":"operator","module_key":"agent-runtime-control","action_intent":"${intent}","actor":"dev-operator"}`;
  return {
    env: { AGENT_CONTEXT_TOKEN: token },
    curl: [
      `curl -sS ${BASE}/ready`,
      `curl -sS ${BASE}/metrics`,
      `curl -sS ${bearer} ${BASE}/api/v1/drift/summary`,
      `curl -sS ${bearer} -H 'Content-Type: application/json' -d '{${authority('patch_agent_runtime')},"agent_id":"agent-1","runtime":"node","version":"1.0.0","reason":"first rollout"}' ${BASE}/api/v1/agent-runtime/patch/apply`,
      `curl -sS ${bearer} ${BASE}/api/v1/persistent-agents`,
    ],
  };
}
