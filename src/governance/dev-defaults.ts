// Embedded defaults for `npm start`: a generated operator token kept in var/dev-secrets.json
// (mode 0600, other services' entries preserved) so control-api can start, and the curl lines a
// newcomer tries first. The token never appears in a curl line: each line reads it when it runs.

import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
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
  const dir = resolve(varDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const secretsPath = join(dir, DEV_SECRETS_FILE);
  const all = existsSync(secretsPath) ? (JSON.parse(readFileSync(secretsPath, 'utf8')) as unknown) : {};
  if (typeof all !== 'object' || all === null || Array.isArray(all)) throw new TypeError(`Dev secrets file "${secretsPath}" does not hold a JSON object: remove it to regenerate`);
  const record = all as Record<string, unknown>;
  const current = record[SERVICE_NAME] as { operator_token?: unknown } | undefined;
  const token = typeof current?.operator_token === 'string' ? current.operator_token : randomBytes(24).toString('base64url');
  writePrivate(secretsPath, `${JSON.stringify({ ...record, [SERVICE_NAME]: { operator_token: token } }, null, 2)}\n`);
  const bearer = `-H "Authorization: Bearer $(node -p 'require(process.argv[1]).${SERVICE_NAME}.operator_token' '${secretsPath.replace(/'/g, `'\\''`)}')"`;
  return {
    env: { GOVERNANCE_OPERATOR_TOKEN: token },
    curl: [
      `curl -sS ${PLATFORM}/health`,
      `curl -sS ${PLATFORM}/api/v1/platform/services`,
      `curl -sS ${PLATFORM}/api/v1/contracts/registry`,
      `curl -sS ${PLATFORM}/api/v1/contracts/drift`,
      `curl -sS ${PLATFORM}/api/v1/signoff/readiness`,
      `curl -sS '${PLATFORM}/api/v1/agent/bootstrap?role=operator'`,
      `curl -sS ${bearer} ${WORKER}/api/v1/contracts/matrix`,
      `node scripts/governance-readiness.ts --base-url ${PLATFORM}`,
    ],
  };
}

/** Writes through a temporary file so a reader never sees half a file; mode 0600 either way. */
function writePrivate(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}
