// Embedded defaults for `npm start`: the embedded bus on node:sqlite unless NATS_URL is set in
// the environment (then the real nats-server is used), a generated owner-readback token kept in
// var/dev-secrets.json (mode 0600, other services' entries preserved), and one working curl line
// per listener. The token never appears in a curl line: each reads it from the file when it runs.

import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { writeFileAtomic } from '../kernel/index.ts';
import { DEFAULT_API_LISTEN, DEFAULT_MAILBOX_LISTEN, DEFAULT_READBACK_LISTEN } from './config.ts';
import { API_STATUS_PATH, REVIEW_TRANSPORT_PATH } from './routes.ts';

export const DEV_SECRETS_FILE = 'dev-secrets.json';

export function messagingDevDefaults(varDir: string): { env: Record<string, string>; curl: string[] } {
  const dir = resolve(varDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const secretsPath = join(dir, DEV_SECRETS_FILE);
  const token = ensureToken(secretsPath);
  const env: Record<string, string> = {
    MESSAGING_LISTEN: DEFAULT_API_LISTEN,
    MESSAGING_MAILBOX_LISTEN: DEFAULT_MAILBOX_LISTEN,
    MESSAGING_MAILBOX_URL: `http://${DEFAULT_MAILBOX_LISTEN}`,
    MESSAGING_OWNER_READBACK_LISTEN: DEFAULT_READBACK_LISTEN,
    OWNER_READBACK_API_TOKEN: token,
  };
  const bearer = `-H "Authorization: Bearer $(node -p 'require(process.argv[1]).messaging.owner_readback_api_token' '${secretsPath.replace(/'/g, `'\\''`)}')"`;
  return {
    env,
    curl: [
      `curl -sS -H 'Content-Type: application/json' -d '{"plan":"demo"}' http://${DEFAULT_MAILBOX_LISTEN}/api/v1/mailboxes/plan-studio-review/messages`,
      `curl -sS http://${DEFAULT_API_LISTEN}${API_STATUS_PATH}`,
      `curl -sS ${bearer} http://${DEFAULT_READBACK_LISTEN}${REVIEW_TRANSPORT_PATH}`,
    ],
  };
}

function ensureToken(path: string): string {
  let all: Record<string, unknown> = {};
  if (existsSync(path)) {
    try {
      all = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    } catch {
      // The parser's message would quote the file, tokens and all.
      throw new TypeError(`Dev secrets file "${path}" is not JSON: remove it to regenerate`);
    }
    if (typeof all !== 'object' || all === null || Array.isArray(all)) throw new TypeError(`Dev secrets file "${path}" does not hold a JSON object: remove it to regenerate`);
  }
  const current = all['messaging'] as Record<string, unknown> | undefined;
  const existing = current && typeof current['owner_readback_api_token'] === 'string' ? current['owner_readback_api_token'] : undefined;
  const token = existing ?? randomBytes(24).toString('base64url');
  if (existing === undefined) writeFileAtomic(path, `${JSON.stringify({ ...all, messaging: { owner_readback_api_token: token } }, null, 2)}\n`, { mode: 0o600 });
  return token;
}
