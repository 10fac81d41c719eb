// Embedded defaults for `npm start`: a generated token for every lane and a git-host webhook
// secret, kept in var/dev-secrets.json (mode 0600, other services' entries preserved) so
// control-api can start and every lane can be tried, and the curl lines a newcomer tries first.
// No secret appears in a curl line: each line reads it from the file when it runs.

import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { ensureDevSecrets } from '../kernel/index.ts';
import { LANE_VARIABLES, LANES } from './config.ts';
import type { Lane } from './config.ts';
import { SERVICE_NAME } from './identity.ts';

export const DEV_SECRETS_FILE = 'dev-secrets.json';

const PLATFORM = 'http://127.0.0.1:18010';
const WORKER = 'http://127.0.0.1:18011';

/**
 * Prepares `varDir` and returns the environment of both governance roles and the curl lines to
 * print. Calling it again keeps the token it made.
 *
 * @example
 * const { env, curl } = governanceDevDefaults('var');
 */
export function governanceDevDefaults(varDir: string): { env: Record<string, string>; curl: string[] } {
  const names = [...LANES.map((lane) => `${lane}_token`), 'git_host_webhook_secret'];
  const { path: secretsPath, secrets } = ensureDevSecrets(resolve(varDir), SERVICE_NAME, names, () => randomBytes(24).toString('base64url'));
  const read = (name: string) => `$(node -p 'require(process.argv[1]).${SERVICE_NAME}.${name}' '${secretsPath.replace(/'/g, `'\\''`)}')`;
  const bearer = (lane: Lane) => `-H "Authorization: Bearer ${read(`${lane}_token`)}"`;
  const json = `-H 'Content-Type: application/json'`;
  const key = `-H "Idempotency-Key: $(node -p 'crypto.randomUUID()')"`;
  return {
    env: { ...Object.fromEntries(LANES.map((lane) => [LANE_VARIABLES[lane], secrets[`${lane}_token`]!])), GOVERNANCE_GIT_HOST_WEBHOOK_SECRET: secrets['git_host_webhook_secret']! },
    curl: [
      `curl -sS ${PLATFORM}/health`,
      `curl -sS ${PLATFORM}/api/v1/platform/services`,
      `curl -sS ${PLATFORM}/api/v1/contracts/registry`,
      `curl -sS ${PLATFORM}/api/v1/contracts/drift`,
      `curl -sS ${PLATFORM}/api/v1/signoff/readiness`,
      `curl -sS '${PLATFORM}/api/v1/agent/bootstrap?role=operator'`,
      `curl -sS ${PLATFORM}/api/v1/identity/mail-admission/jwks`,
      `curl -sS ${bearer('operator')} ${WORKER}/api/v1/contracts/matrix`,
      `curl -sS ${bearer('operator')} ${json} -d '{"mode":"BACKWARD","previous":{"type":"string"},"proposed":{"type":"string","maxLength":8}}' ${WORKER}/api/v1/contracts/compatibility/check`,
      `curl -sS ${bearer('bff')} ${json} ${key} -d '{"title":"First plan","goal":"Try the planning lane","requested_by":{"kind":"human","subject_id":"me"}}' ${WORKER}/api/v1/planning/sessions`,
      `curl -sS ${bearer('mail_consumer')} '${PLATFORM}/api/v1/identity/mail-management/decision?tenant_id=tenant-a&mailbox=ops@example.com'`,
      `npx node scripts/governance-readiness.ts --base-url ${PLATFORM}  # on this dev stack: exit 1 at /api/v1/security/readiness, as no CRM upstream (GOVERNANCE_CRM_UPSTREAM_URL) answers assertions`,
    ],
  };
}

/** Writes through a temporary file so a reader never sees half a file; mode 0600 either way. */
